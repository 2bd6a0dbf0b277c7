// What the resource commands' handlers share (calls, links, lines, chats, translate,
// events): a request or a list through the context's API client, the live-mode
// billing notice, and text read from stdin.
import type { Context } from '../context.js';
import type { ApiRequest, QueryValue } from '../api/client.js';
import { ENDPOINTS, endpointFor, type EndpointName, type ListPage, LIST_LIMIT_MAX } from '../contract/endpoints.js';
import { lacksScope } from '../api/errors.js';
import type { ResolvedCredential } from '../credentials/resolve.js';
import { CliError, EXIT, UsageError } from '../errors.js';
import { confirmedOrg, orgLabel } from '../credentials/confirmed.js';
import { confirm } from '../io/interactive.js';
import { note } from '../io/output.js';
import { sanitizeLine } from '../io/sanitize.js';
import type { ListFlags } from './list-flags.js';
import type { PageEnd } from './result.js';

/**
 * The live-mode operations that say what they cost and ask first (starting a call,
 * dialling, adding a line), from their commands and from `svc api` alike. Sending a chat
 * message or translating is billed too (the contract's `billable`), in amounts too small
 * to ask about each time.
 */
export const ASKS_BEFORE_BILLING = {
  'calls.create': 'Starting a call',
  'calls.dial': 'Dialling a phone',
  'lines.create': 'Adding a phone line',
} as const satisfies Partial<Record<EndpointName, string>>;
export type AskedEndpoint = keyof typeof ASKS_BEFORE_BILLING;

/** How a refused billable request is named (refuseImpliedLive). */
const BILLED_ACTION: Partial<Record<EndpointName, string>> = {
  ...ASKS_BEFORE_BILLING,
  'chats.messages.create': 'Sending a chat message',
  'chats.voice': 'Sending a voice message',
  translate: 'Translating',
};

/** Whether a raw request is one the service bills in live mode (the contract's `billable`). */
export function billableRequest(method: string, path: string): boolean {
  const endpoint = endpointFor(method, path);
  return endpoint !== undefined && 'billable' in ENDPOINTS[endpoint];
}

/** The endpoint a raw request is when it is one of those, else undefined. */
export function askedEndpoint(method: string, path: string): AskedEndpoint | undefined {
  const endpoint = endpointFor(method, path);
  return endpoint !== undefined && Object.hasOwn(ASKS_BEFORE_BILLING, endpoint) ? (endpoint as AskedEndpoint) : undefined;
}

/** The scopes stored with the credential (the service's answer when it was stored), or undefined when svc does not know them. */
function storedScopes(credential: ResolvedCredential): readonly string[] | undefined {
  if (credential.source !== 'profile' || !credential.profile) return undefined;
  if (credential.kind === 'oauth') return credential.profile.oauth?.scopes;
  const key = credential.keyName ? credential.profile.keys?.[credential.keyName] : undefined;
  return key && !key.unverified ? key.scopes : undefined;
}

/**
 * Live-mode actions that cost money say so on stderr, and ask on a terminal unless
 * `--yes`; without a terminal they just run (scripts and CI). Test mode is free and
 * says nothing. Declining is exit 1 with nothing done. A credential whose stored scopes
 * cannot do it fails first, as the service's 403 would, rather than asking in vain.
 */
export async function confirmBilled(ctx: Context, endpoint: AskedEndpoint, action: string, opts: { testModeRefuses?: boolean } = {}): Promise<void> {
  const { credential } = await ctx.api();
  if (credential.mode !== 'live') return;
  refuseImpliedLive(ctx, credential, action);
  const scope = ENDPOINTS[endpoint].scope;
  const scopes = storedScopes(credential);
  if (scopes && !scopes.includes(scope)) {
    const { message, hint } = lacksScope(scope, { credential, org: confirmedOrg(credential) });
    throw new CliError(message, EXIT.forbidden, hint);
  }
  const org = orgLabel(credential);
  // Never suggest test mode for what test mode refuses (dialling a phone).
  const free = opts.testModeRefuses
    ? ''
    : credential.source === 'env'
      ? ' Set SVC_API_KEY to a test key (svc_test_…) to try it free of charge.'
      : ' Use --test to try it free of charge.';
  // Said once: as a note when nothing is asked, else by the question itself (with its price).
  if (ctx.globals.yes || !ctx.io.canPrompt()) return note(ctx, `${action} is billed to ${org} (live mode).${free}`);
  if (free) note(ctx, free.trim());
  // The price is the one --dry-run shows (src/kit/dry-run.ts), read only when asking.
  const { perUnit, priceOf } = await import('./dry-run.js');
  const priced = await priceOf(await ctx.api(), endpoint);
  const billed = 'price' in priced ? `billed ${perUnit(priced.price, endpoint)} to ${org}` : `billed to ${org} (${priced.error})`;
  if (!(await confirm(ctx, `${action}, ${billed}: continue?`))) throw new CliError('cancelled: nothing was done', EXIT.failure);
}

/**
 * Without a terminal, money is spent only in a live mode someone chose (svc help modes:
 * the mode rule): --live, SVC_MODE=live, `svc mode live`, or a live SVC_API_KEY. A profile that is live
 * only because its first credential was live (a sign-in) does not bill a script that never said
 * so; at a terminal the billing note (and, for a call, the question) says it first.
 */
export function refuseImpliedLive(ctx: Context, credential: ResolvedCredential, action: string): void {
  if (credential.mode !== 'live' || credential.modeChosen || ctx.io.canPrompt()) return;
  throw new UsageError(
    `${action} would be billed to ${orgLabel(credential)}, and live mode was not chosen: profile "${credential.profileName}" is live only because of its credentials; nothing was done`,
    'choose live for this command with --live (or SVC_MODE=live), or for the profile with `svc mode live`; or use --test to try it free of charge',
  );
}

/** A single request through the endpoint table; the core client maps errors to exit codes. */
export async function call<T>(ctx: Context, endpoint: EndpointName, request: Omit<ApiRequest, 'endpoint'> = {}): Promise<T> {
  const api = await ctx.api();
  if ('billable' in ENDPOINTS[endpoint]) refuseImpliedLive(ctx, api.credential, BILLED_ACTION[endpoint] ?? 'This request');
  return api.request<T>({ endpoint, ...request });
}

/**
 * A list: one page of `--limit` (or the service's default), or with `--all` every page
 * (100 per request), with a spinner counting on a terminal.
 */
export async function fetchList<T>(
  ctx: Context,
  endpoint: EndpointName,
  list: ListFlags,
  request: Pick<ApiRequest, 'params' | 'query'> = {},
): Promise<FetchedList<T>> {
  const api = await ctx.api();
  const query: Record<string, QueryValue> = { ...request.query };
  if (!list.all) {
    if (list.limit !== undefined) query.limit = String(list.limit);
    if (list.cursor !== undefined) query.cursor = list.cursor;
    const page = await api.request<ListPage<T>>({ endpoint, ...request, query });
    return {
      items: page.data,
      more: page.has_more,
      ...(page.has_more && page.next_cursor ? { next: page.next_cursor } : {}),
      ...(list.cursor !== undefined ? { later: true } : {}),
    };
  }
  // The core spinner has no text update: a fresh one per page keeps the count current.
  let spinner = await ctx.io.spinner('fetching…');
  const items: T[] = [];
  try {
    let cursor: string | null = null;
    // A cursor the service gave before would read those pages again, for ever: stopped there.
    const cursors = new Set<string>();
    do {
      const pageQuery: Record<string, QueryValue> = { ...query, limit: String(LIST_LIMIT_MAX) };
      if (cursor !== null) pageQuery.cursor = cursor;
      const page: ListPage<T> = await api.request<ListPage<T>>({ endpoint, ...request, query: pageQuery });
      items.push(...page.data);
      cursor = page.has_more ? page.next_cursor : null;
      if (cursor !== null) {
        if (cursors.has(cursor))
          throw new CliError(
            `the service gave the page cursor ${JSON.stringify(sanitizeLine(cursor.slice(0, 80)))} twice while listing (${items.length} items read): --all stopped rather than read the same pages for ever`,
            EXIT.failure,
            'list page by page with --limit and --cursor, or report it to the service',
          );
        cursors.add(cursor);
      }
      if (cursor !== null) {
        spinner.stop();
        spinner = await ctx.io.spinner(`fetching… ${items.length} so far`);
      }
    } while (cursor !== null);
  } finally {
    spinner.stop();
  }
  return { items, more: false };
}

/** A page of a list as fetched, and how it ends. */
export interface FetchedList<T> extends PageEnd {
  items: T[];
}

/**
 * Says that the list goes on, on stderr, also when piped (a script's stdout gets exactly what
 * it asked for). The runner says it after the list (src/cli/print-result.ts): at a terminal the
 * note follows the table.
 */
export function noteMore(ctx: Context, list: PageEnd & { items: readonly unknown[] }): void {
  if (!list.more) return;
  const next = list.next === undefined ? ', or --all for every one' : `, --all for every one, or --cursor ${list.next} for the next page`;
  note(ctx, `note: showing ${list.later ? '' : 'the newest '}${list.items.length}; there are more results (--limit up to 100${next})`);
}

/** The limit a text read from stdin is held to, as its command names and refuses it. */
export interface StdinTextLimit {
  maxChars: number;
  /** The text as the limit's message names it ("the text"). */
  name: string;
  /** The way forward for a text over the limit, judged from its start (all that was read). */
  hint?: (start: string) => string;
}

/**
 * Text given on stdin (for `chats send`, `translate`): all of it, less one trailing
 * newline. A terminal on stdin would wait forever for input nobody means to type, so it
 * is a usage error naming the way to give the text. With a limit, no more is read than a
 * text within it can take, so an endless stdin is refused as over it.
 */
export async function readStdinText(ctx: Context, what: string, example: string, limit?: StdinTextLimit): Promise<string> {
  if (ctx.io.stdin.isTTY) throw new UsageError(`no ${what} given: pass it as an argument or pipe it on stdin, e.g. ${example}`);
  // The most UTF-8 a text within the limit takes: four bytes a character, and a CRLF after it.
  const maxBytes = limit ? limit.maxChars * 4 + 2 : undefined;
  const read = await ctx.io.stdin.readAll(maxBytes);
  if (limit && Buffer.byteLength(read) > maxBytes!) {
    const max = limit.maxChars.toLocaleString('en-US');
    throw new UsageError(`${limit.name} is more than ${max} characters long; the limit is ${max}`, limit.hint?.(read));
  }
  const text = read.replace(/\r?\n$/, '');
  if (text.trim() === '') throw new UsageError(`${what} on stdin is empty: e.g. ${example}`);
  return text;
}
