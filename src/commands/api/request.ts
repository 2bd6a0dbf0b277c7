// `svc api METHOD PATH [-F key=value …] [--input FILE|-] [--include]`: any request,
// authenticated like every other command — the escape hatch for what is not wrapped.
import { defineCommand, type ArgsOf, type FlagsOf } from '../../cli/define.js';
import { readFile } from 'node:fs/promises';
import type { Context } from '../../context.js';
import { apiErrorFrom } from '../../api/errors.js';
import { UsageError } from '../../errors.js';
import { redactText } from '../../io/redact.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
type Method = (typeof METHODS)[number];

export interface ApiRequestOptions {
  method: Method;
  path: string;
  /** -F fields in order: body fields, or query parameters for GET/DELETE or with --input. */
  fields: Array<[string, unknown]>;
  /** A file path, `-` for stdin. */
  input?: string;
  include: boolean;
}

/** `-F n=3` sends a number, `true`/`false`/`null` their JSON values, anything else a string. */
export function fieldValue(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text) && text.length < 16) return Number(text);
  return text;
}

export const command = defineCommand({
  name: 'api',
  summary: 'any request, authenticated like every other command (the escape hatch)',
  args: [
    { name: 'method', help: 'GET, POST, PUT, DELETE, PATCH', required: true },
    { name: 'path', help: 'e.g. /v1/calls', required: true },
  ],
  flags: {
    field: { short: '-F', value: '<key=value>', repeatable: true, help: 'a body field (query parameter for GET/DELETE); repeatable' },
    input: { value: '<file>', help: 'the request body from a file, or - for stdin' },
    include: { short: '-i', help: 'print the status line and headers too' },
  },
  examples: ['svc api GET /v1/account', 'svc api POST /v1/chats -F language=en -F subject=Hi', 'svc api GET /v1/calls -F status=active --include', 'svc api POST /v1/translate --input body.json'],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ApiRequestOptions {
  const [methodText, path] = args;
  if (!methodText || !path) throw new UsageError('usage: svc api METHOD PATH, e.g. svc api GET /v1/account');
  const method = methodText.toUpperCase() as Method;
  if (!METHODS.includes(method)) throw new UsageError(`METHOD must be one of ${METHODS.join(', ')}, not ${JSON.stringify(methodText)}`);
  // Only paths: the credential must never be sent to an address other than the service's.
  if (!path.startsWith('/') || path.startsWith('//'))
    throw new UsageError(`PATH must start with / (e.g. /v1/calls), not ${JSON.stringify(path)}`, 'the address comes from --base-url / SVC_BASE_URL / the profile');
  const fields: Array<[string, unknown]> = [];
  const raw = flags.field;
  for (const entry of Array.isArray(raw) ? (raw as string[]) : raw === undefined ? [] : [String(raw)]) {
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new UsageError(`-F needs key=value, not ${JSON.stringify(entry)}`);
    fields.push([entry.slice(0, eq), fieldValue(entry.slice(eq + 1))]);
  }
  const opts: ApiRequestOptions = { method, path, fields, include: flags.include === true };
  if (typeof flags.input === 'string') opts.input = flags.input;
  return opts;
}

/** `-F languages[]=en -F languages[]=es` builds an array; a repeated plain key too. */
export function bodyOf(fields: Array<[string, unknown]>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [rawKey, value] of fields) {
    const isArray = rawKey.endsWith('[]');
    const key = isArray ? rawKey.slice(0, -2) : rawKey;
    const current = body[key];
    if (isArray) body[key] = Array.isArray(current) ? [...current, value] : current === undefined ? [value] : [current, value];
    else body[key] = current === undefined ? value : Array.isArray(current) ? [...current, value] : [current, value];
  }
  return body;
}

export async function run(opts: ApiRequestOptions, ctx: Context): Promise<number | void> {
  const inQuery = opts.method === 'GET' || opts.method === 'DELETE' || opts.input !== undefined;
  const query: Record<string, string[]> = {};
  if (inQuery) for (const [key, value] of opts.fields) (query[key.replace(/\[\]$/, '')] ??= []).push(String(value));

  let rawBody: string | undefined;
  if (opts.input !== undefined) {
    try {
      rawBody = opts.input === '-' ? await ctx.io.stdin.readAll() : await readFile(opts.input, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read --input ${opts.input}: ${(error as Error).message}`);
    }
  }
  const api = await ctx.api();
  const [path, search] = opts.path.split('?', 2) as [string, string | undefined];
  for (const [key, value] of new URLSearchParams(search ?? '')) (query[key] ??= []).push(value);
  const response = await api.send({
    method: opts.method,
    path,
    query,
    ...(rawBody !== undefined ? { rawBody, headers: { 'content-type': 'application/json' } } : {}),
    ...(!inQuery && opts.fields.length ? { body: bodyOf(opts.fields) } : {}),
  });

  if (opts.include) {
    let head = `HTTP/1.1 ${response.status} ${response.statusText}\n`;
    response.headers.forEach((value, name) => (head += `${name}: ${redactText(value)}\n`));
    ctx.io.stdout.write(head + '\n');
  }
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  let parsed: unknown = text;
  if (type.includes('json') && text) {
    try {
      parsed = JSON.parse(text);
      ctx.io.stdout.write(JSON.stringify(parsed, null, 2) + '\n');
    } catch {
      ctx.io.stdout.write(text.endsWith('\n') ? text : text + '\n');
    }
  } else if (text) ctx.io.stdout.write(text.endsWith('\n') ? text : text + '\n');

  if (!response.ok) {
    // The body is the answer (on stdout, for scripts); the meaning and exit code as everywhere.
    throw apiErrorFrom(response.status, parsed, { method: opts.method, path, credential: api.credential });
  }
}
