// Request input: bodies read with a size cap, JSON parsed without trusting it, and every
// body and query validated by zod into the 422 list form (docs/contract.md "Conventions").
// Unknown body fields AND unknown query parameters are REJECTED (422 `extra_forbidden`),
// consistently, so a client's typo shows at once instead of being silently ignored.
import type { Context } from 'hono';
import { z } from 'zod';
import { HttpError, invalid, invalidOne } from './errors.js';
import type { ValidationItem } from './errors.js';
import type { Stored } from './state.js';
import { BODIES, LIMITS, checkField, jsonTypeOf } from '../contract/index.js';
import type { BodyEndpoint, BodyField, BodyOf } from '../contract/index.js';

export const JSON_BODY_LIMIT = LIMITS.jsonBodyBytes;
export const VOICE_BODY_LIMIT = LIMITS.voiceBytes;

/** Reads the raw body, stopping (413) as soon as it passes `limit` bytes. */
export async function readBody(c: Context, limit: number): Promise<Buffer> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (declared > limit) throw new HttpError(413, `the request body is larger than ${limit} bytes`);
  const body = c.req.raw.body;
  if (!body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw new HttpError(413, `the request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function issuesToItems(where: 'body' | 'query', issues: readonly z.core.$ZodIssue[]): ValidationItem[] {
  return issues.flatMap((issue): ValidationItem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ loc: [where, ...issue.path.map(String), key], msg: 'unknown field', type: 'extra_forbidden' }));
    }
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    return [
      {
        loc: [where, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
        msg: missing ? 'field required' : issue.message,
        type: missing ? 'missing' : issue.code,
      },
    ];
  });
}

/** A JSON body validated by `schema`; an empty body counts as `{}` so missing fields are named. */
export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const raw = await readBody(c, JSON_BODY_LIMIT);
  let value: unknown = {};
  if (raw.length > 0) {
    const type = c.req.header('content-type') ?? '';
    if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
      throw new HttpError(415, 'the request body must be JSON (Content-Type: application/json)');
    }
    try {
      value = JSON.parse(raw.toString('utf8'));
    } catch (error) {
      throw invalidOne(['body'], `the body is not valid JSON: ${(error as Error).message}`, 'json_invalid');
    }
  }
  const result = schema.safeParse(value);
  if (!result.success) throw invalid(issuesToItems('body', result.error.issues));
  return result.data;
}

/**
 * The query validated by `schema`. Only the `repeatable` parameters may appear more than once; any
 * other given twice is a 422 rather than silently reduced to its first value.
 */
export function parseQuery<S extends z.ZodType>(c: Context, schema: S, repeatable: string[] = []): z.output<S> {
  const all = c.req.queries() as Record<string, string[]>;
  const query: Record<string, unknown> = {};
  const repeated: ValidationItem[] = [];
  for (const [name, values] of Object.entries(all)) {
    if (repeatable.includes(name)) query[name] = values;
    else {
      query[name] = values[0];
      if (values.length > 1) repeated.push({ loc: ['query', name], msg: 'given more than once; this parameter takes one value', type: 'value_error' });
    }
  }
  const result = schema.safeParse(query);
  const items = [...repeated, ...(result.success ? [] : issuesToItems('query', result.error.issues))];
  if (items.length > 0 || !result.success) throw invalid(items);
  return result.data;
}

const emptyQuery = z.strictObject({});

/** For operations that take no query parameters: any parameter is 422 `extra_forbidden`. */
export function noQuery(c: Context): void {
  parseQuery(c, emptyQuery);
}

/**
 * For operations that take no body (POST …/end, …/close, DELETE /v1/lines/{id}): an empty body, or
 * a JSON `{}`, is accepted; anything else is 422 at ["body"] instead of being silently ignored.
 */
export async function noBody(c: Context): Promise<void> {
  const raw = await readBody(c, JSON_BODY_LIMIT);
  const text = raw.toString('utf8').trim();
  if (text === '') return;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const isEmptyObject = typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
  if (!isEmptyObject) throw invalidOne(['body'], 'this operation takes no body', 'extra_forbidden');
}

/** A body field from its contract row: the JSON type, then the contract's rule (which normalises). */
function fieldSchema(field: BodyField) {
  const type = jsonTypeOf(field.rule);
  const base = type === 'number' ? z.number() : type === 'string[]' ? z.array(z.string()) : z.string();
  const checked = base.transform((value, ctx) => {
    const result = checkField(field.rule, value);
    if (result.ok) return result.value;
    ctx.addIssue({ code: 'custom', message: result.problem, ...(result.at === undefined ? {} : { path: [result.at] }) });
    return z.NEVER;
  });
  return field.required ? checked : checked.optional();
}

const bodySchemas = new Map<BodyEndpoint, z.ZodType>();

/** The body of a contract endpoint (src/contract/bodies.ts), validated into the 422 list form. */
export async function contractBody<N extends BodyEndpoint>(c: Context, name: N): Promise<BodyOf<N>> {
  let schema = bodySchemas.get(name);
  if (!schema) {
    schema = z.strictObject(Object.fromEntries(Object.entries(BODIES[name] as Record<string, BodyField>).map(([field, spec]) => [field, fieldSchema(spec)])));
    bodySchemas.set(name, schema);
  }
  return (await jsonBody(c, schema)) as BodyOf<N>;
}

export const listQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(LIMITS.listLimitMax).default(LIMITS.listLimitDefault),
  cursor: z.string().min(1).optional(),
});

/** Lists are newest first; the cursor is opaque (the last returned sequence number, encoded). */
export function page<T extends { id: string; livemode: boolean }>(
  items: Iterable<Stored<T>>,
  query: { limit: number; cursor?: string | undefined },
  keep: (item: Stored<T>) => boolean,
): { object: 'list'; data: T[]; has_more: boolean; next_cursor: string | null } {
  const before = query.cursor === undefined ? Infinity : decodeCursor(query.cursor);
  const all = [...items].filter((item) => item.seq < before && keep(item)).sort((a, b) => b.seq - a.seq);
  const data = all.slice(0, query.limit);
  const has_more = all.length > data.length;
  const last = data[data.length - 1];
  return { object: 'list', data: data.map((d) => d.obj), has_more, next_cursor: has_more && last ? encodeCursor(last.seq) : null };
}

export function encodeCursor(seq: number): string {
  return Buffer.from(`s:${seq}`).toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const match = /^s:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw invalidOne(['query', 'cursor'], 'not a cursor this API gave out', 'value_error');
  return Number(match[1]);
}
