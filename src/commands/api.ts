// `svc api [METHOD] PATH [-f/-F key=value …] [-H 'Name: value'] [--input FILE|-]
// [--paginate] [--jq EXPR] [--include]`: any request, authenticated like every other
// command — the escape hatch for what is not wrapped, shaped like `gh api`.
import { commandModule, defineCommand, repeated, type ArgsOf, type FlagsOf } from '../kit/define.js';
import { readFile } from 'node:fs/promises';
import type { Context } from '../context.js';
import { headerValueProblem, isHeaderName, type HttpResponse } from '../api/http.js';
import { apiErrorFrom } from '../api/errors.js';
import { confirmedOrg } from '../credentials/confirmed.js';
import { CliError, UsageError } from '../errors.js';
import { redactText } from '../io/redact.js';
import { escapeJsonControls, sanitizeLine, sanitizeText } from '../io/sanitize.js';
import { buildBody, fileOf, parseField, queryOf, typedValue } from '../kit/api/fields.js';
import { ASKS_BEFORE_BILLING, askedEndpoint, billableRequest, confirmBilled, refuseImpliedLive } from '../kit/resources.js';
import type { FieldSpec } from '../kit/api/fields.js';
import { ENDPOINTS, endpointFor, type Endpoint } from '../contract/endpoints.js';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The API's paths with their methods, from the contract's table: what `svc api --help` lists (and a 404 of an unknown path points to). */
function pathsNote(): string {
  const methods = new Map<string, string[]>();
  for (const { method, path } of Object.values(ENDPOINTS)) if (path.startsWith('/v1/')) methods.set(path, [...(methods.get(path) ?? []), method]);
  const width = Math.max(...[...methods.keys()].map((path) => path.length));
  return ['Paths:', ...[...methods].map(([path, verbs]) => `  ${path.padEnd(width)}  ${verbs.join(' ')}`)].join('\n');
}
type Method = (typeof METHODS)[number];

/** Headers that would carry a credential: svc sends the profile's, and only to its own address. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'x-api-key', 'proxy-authorization', 'cookie']);

export interface ApiRequestOptions {
  method: Method;
  /** Starts with `/`; may carry a query (`/v1/calls?status=active`). */
  path: string;
  /** -f then -F fields, in the order given: body fields, or query parameters for GET/DELETE or with --input. */
  fields: FieldSpec[];
  headers: Record<string, string>;
  /** A file path, `-` for stdin. */
  input?: string;
  include: boolean;
  paginate: boolean;
}

/** `-F n=3` sends a number, `true`/`false`/`null` their JSON values, anything else a string. */
export { typedValue as fieldValue } from '../kit/api/fields.js';

function methodOf(text: string): Method {
  const method = text.toUpperCase() as Method;
  if (!METHODS.includes(method)) throw new UsageError(`METHOD must be one of ${METHODS.join(', ')}, not ${JSON.stringify(text)}`);
  return method;
}

export function parseHeader(entry: string): [string, string] {
  const colon = entry.indexOf(':');
  const name = colon > 0 ? entry.slice(0, colon).trim() : '';
  const value = colon > 0 ? entry.slice(colon + 1).trim() : '';
  if (!isHeaderName(name)) throw new UsageError(`-H needs 'Name: value', not ${JSON.stringify(entry)}`);
  const problem = headerValueProblem(value);
  if (problem) throw new UsageError(`-H ${name}: the value has ${problem}, which cannot be sent in a header`);
  if (CREDENTIAL_HEADERS.has(name.toLowerCase()))
    throw new UsageError(`-H ${name} is refused: svc sends the credential itself`, 'choose it with --profile, --test/--live or SVC_API_KEY');
  return [name.toLowerCase(), value];
}

export const command = defineCommand({
  summary: 'any request, authenticated like every other command (the escape hatch, like gh api)',
  args: [
    { name: 'method-or-path', help: 'GET, POST, PUT, DELETE, PATCH; or the path, as in gh api PATH', required: true },
    { name: 'path', help: 'e.g. /v1/calls (the leading / may be left out)' },
  ],
  flags: {
    method: { short: '-X', value: '<method>', help: 'the method with `svc api PATH` (default GET, or POST with fields)' },
    rawField: { short: '-f', value: '<key=value>', repeatable: true, help: 'a string field (query parameter for GET/DELETE); repeatable' },
    field: {
      short: '-F',
      value: '<key=value>',
      repeatable: true,
      help: "a typed field: true, false, null and numbers as JSON, @file a file's contents, @- stdin; key[]=v arrays, key[sub]=v objects; repeatable",
    },
    header: { short: '-H', value: '<name:value>', repeatable: true, help: 'an extra request header (not Authorization: svc sends the credential); repeatable' },
    input: { value: '<file>', kind: { type: 'file' }, help: 'the request body from a file, or - for stdin' },
    paginate: { help: 'follow next_cursor to the last page (with --json: one array of every item)' },
    include: { short: '-i', help: 'print the status line and headers too' },
  },
  examples: [
    'svc api GET /v1/account',
    'svc api POST /v1/chats -f language=en -f subject=123',
    'svc api v1/calls -F languages[]=en -F languages[]=es',
    "svc api GET /v1/calls --paginate --json --jq '.[].id'",
    "svc api GET /v1/events/stream -H 'Last-Event-ID: evt_123'",
    'svc api POST /v1/translate --input body.json',
  ],
  notes: pathsNote(),
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ApiRequestOptions {
  const fields = [...repeated(flags.rawField).map((e) => parseField(e, 'raw')), ...repeated(flags.field).map((e) => parseField(e, 'typed'))];
  const input = typeof flags.input === 'string' ? flags.input : undefined;
  // `svc api METHOD PATH` (svc's form) or `svc api PATH [-X METHOD]` (gh's form).
  let method: Method;
  let rawPath: string | undefined;
  if (args.length >= 2) {
    if (typeof flags.method === 'string') throw new UsageError('give the method once: `svc api METHOD PATH` or `svc api PATH -X METHOD`');
    method = methodOf(args[0]!);
    rawPath = args[1];
  } else {
    rawPath = args[0];
    method = typeof flags.method === 'string' ? methodOf(flags.method) : fields.length || input !== undefined ? 'POST' : 'GET';
  }
  if (!rawPath) throw new UsageError('usage: svc api [METHOD] PATH, e.g. svc api GET /v1/account');
  // Only paths: the credential must never go to an address other than the service's.
  if (/^[a-z][a-z0-9+.-]*:/i.test(rawPath) || rawPath.startsWith('//'))
    throw new UsageError(
      `PATH must be a path such as /v1/calls, not ${JSON.stringify(rawPath)}`,
      'the address comes from --base-url / SVC_BASE_URL / the profile',
    );
  const path = rawPath.startsWith('/') ? rawPath : `/${rawPath}`;
  const headers: Record<string, string> = {};
  for (const entry of repeated(flags.header)) {
    const [name, value] = parseHeader(entry);
    headers[name] = value;
  }
  const paginate = flags.paginate === true;
  if (paginate && method !== 'GET') throw new UsageError('--paginate follows next_cursor of GET lists; it does not apply to ' + method);
  const stdinUsers = fields.filter((f) => fileOf(f) === '-').length + (input === '-' ? 1 : 0);
  if (stdinUsers > 1) throw new UsageError('stdin can be read once: use @- in one field, or --input -, not both');
  const opts: ApiRequestOptions = { method, path, fields, headers, include: flags.include === true, paginate };
  if (input !== undefined) opts.input = input;
  return opts;
}

/** Kept for callers of the old name: the body of fields given as [key, value] pairs. */
export function bodyOf(fields: Array<[string, unknown]>): Record<string, unknown> {
  return buildBody(fields.map(([key, value]) => ({ spec: parseField(`${key}=`, 'typed'), value })));
}

async function readSource(ctx: Context, source: string, what: string): Promise<string> {
  try {
    return source === '-' ? await ctx.io.stdin.readAll() : await readFile(source, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${what} ${source}: ${(error as Error).message}`);
  }
}

async function resolveFields(ctx: Context, fields: FieldSpec[]): Promise<Array<{ spec: FieldSpec; value: unknown }>> {
  const resolved: Array<{ spec: FieldSpec; value: unknown }> = [];
  for (const spec of fields) {
    const file = fileOf(spec);
    const value = spec.kind === 'raw' ? spec.value : file !== undefined ? await readSource(ctx, file, `the file of -F ${spec.key}:`) : typedValue(spec.value);
    resolved.push({ spec, value });
  }
  return resolved;
}

function headText(response: HttpResponse): string {
  let head = `HTTP/1.1 ${response.status} ${response.statusText}\n`;
  response.headers.forEach((value, name) => (head += `${name}: ${sanitizeLine(redactText(value))}\n`));
  return head + '\n';
}

function isEventStream(response: HttpResponse): boolean {
  return (response.headers.get('content-type') ?? '').includes('text/event-stream');
}

function isList(value: unknown): value is { data: unknown[]; next_cursor?: unknown; has_more?: unknown } {
  return typeof value === 'object' && value !== null && Array.isArray((value as { data?: unknown }).data);
}

/** Writes an event stream's bytes as they arrive, until the service ends it or Ctrl-C. */
async function pipeStream(ctx: Context, response: HttpResponse): Promise<void> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  // As sent when piped; on a terminal the server's control characters are made inert.
  const write = (text: string) => ctx.io.stdout.write(ctx.io.stdout.isTTY ? sanitizeText(text) : text);
  try {
    for await (const chunk of response.body) write(decoder.decode(chunk, { stream: true }));
  } catch (error) {
    if (!ctx.signal.aborted) throw error;
  }
  const rest = decoder.decode();
  if (rest) write(rest);
}

/** `--jq` (the global flag, src/io/jq.ts) filters JSON texts: headers and an event stream are not. */
function refuseJqWith(opts: ApiRequestOptions, jq: string | undefined): void {
  if (jq === undefined) return;
  if (opts.include) throw new UsageError('--jq filters the JSON answer; with --include the headers are printed too', 'leave out --include or --jq');
  const endpoint = endpointFor(opts.method, opts.path.split('?')[0]!);
  if (endpoint !== undefined && (ENDPOINTS[endpoint] as Endpoint).stream)
    throw new UsageError('--jq does not apply to an event stream here', '`svc events tail --jq` and `svc chats stream --jq` filter each event');
}

export async function run(opts: ApiRequestOptions, ctx: Context): Promise<void> {
  refuseJqWith(opts, ctx.globals.jq);
  const inQuery = opts.method === 'GET' || opts.method === 'DELETE' || opts.input !== undefined;
  const fields = await resolveFields(ctx, opts.fields);
  const query: Record<string, string[]> = inQuery ? queryOf(fields) : {};
  const rawBody = opts.input !== undefined ? await readSource(ctx, opts.input, '--input') : undefined;
  const api = await ctx.api();
  const [path, search] = opts.path.split('?', 2) as [string, string | undefined];
  // What the dedicated commands ask before billing (calls start, calls dial, calls lines add), this asks too.
  const billed = askedEndpoint(opts.method, path);
  if (billed) await confirmBilled(ctx, billed, `${ASKS_BEFORE_BILLING[billed]} (${opts.method} ${path})`, { testModeRefuses: billed === 'calls.dial' });
  else if (billableRequest(opts.method, path)) refuseImpliedLive(ctx, api.credential, `${opts.method} ${path}`);
  for (const [key, value] of new URLSearchParams(search ?? '')) (query[key] ??= []).push(value);
  const headers = { ...(rawBody !== undefined ? { 'content-type': 'application/json' } : {}), ...opts.headers };

  // JSON re-indented with DEL/C1 escaped (the same value); other text as sent when piped, and
  // with its control characters made inert on a terminal.
  const printJson = (value: unknown) => ctx.io.stdout.write(escapeJsonControls(JSON.stringify(value, null, 2)) + '\n');
  const printText = (text: string) => ctx.io.stdout.write((ctx.io.stdout.isTTY ? sanitizeText(text) : text) + (text.endsWith('\n') ? '' : '\n'));

  /** --paginate --json: every page's items, printed once as one array. */
  const items: unknown[] = [];
  let slurped = false;
  let cursor: string | undefined;
  for (;;) {
    const response = await api.send({
      method: opts.method,
      path,
      query: cursor === undefined ? query : { ...query, cursor: [cursor] },
      headers,
      ...(rawBody !== undefined ? { rawBody } : {}),
      ...(!inQuery && fields.length ? { body: buildBody(fields) } : {}),
    });
    if (opts.include) ctx.io.stdout.write(headText(response));

    if (response.ok && isEventStream(response)) {
      await pipeStream(ctx, response);
      return;
    }

    const text = await response.text();
    let parsed: unknown = text;
    let isJson = false;
    if ((response.headers.get('content-type') ?? '').includes('json') && text) {
      try {
        parsed = JSON.parse(text);
        isJson = true;
      } catch {
        // printed as text below
      }
    }
    if (!response.ok) {
      // The body is the answer (on stdout, for scripts); the meaning and exit code as everywhere.
      // A --jq filter is for the answer asked for: an error's body is not run through it (the
      // error on stderr carries what it says).
      if (ctx.globals.jq !== undefined) {
        // nothing on stdout
      } else if (isJson) printJson(parsed);
      else if (text) printText(text);
      throw apiErrorFrom(response.status, parsed, {
        method: opts.method,
        path,
        credential: api.credential,
        org: confirmedOrg(api.credential),
        origin: new URL(api.credential.baseUrl).origin,
      });
    }

    const next = opts.paginate && isList(parsed) && typeof parsed.next_cursor === 'string' && parsed.has_more !== false ? parsed.next_cursor : undefined;
    if (opts.paginate && ctx.globals.json && isList(parsed)) {
      items.push(...parsed.data);
      slurped = true;
    } else if (isJson) printJson(parsed);
    else if (ctx.globals.jq !== undefined)
      throw new CliError(`--jq needs a JSON answer; ${opts.method} ${path} answered ${response.headers.get('content-type') ?? 'no content type'}`);
    else if (text) printText(text);

    if (next === undefined || next === cursor) break;
    cursor = next;
  }
  if (slurped) {
    const all = escapeJsonControls(JSON.stringify(items, null, 2));
    ctx.io.stdout.write(all + '\n');
  }
}

export default commandModule({ command, parse, run });
