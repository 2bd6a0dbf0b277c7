// Helpers shared by the resource commands (calls, links, lines, chats, translate):
// reading commander's flags, turning a validator's refusal into a usage error, the
// live-mode billing notice, and requests and lists through the core's API client.
import type { Context } from '../../context.js';
import type { ApiRequest, QueryValue } from '../../api/client.js';
import { type EndpointName, type ListPage, LIST_LIMIT_MAX } from '../../api/endpoints.js';
import { CliError, EXIT, UsageError } from '../../errors.js';
import { confirm, startSpinner } from '../../io/interactive.js';
import { note } from '../../io/output.js';
import { InvalidValueError, parseLimit } from '../../validate/index.js';

export type Flags = Record<string, unknown>;

/** Runs validators; a refused value becomes a usage error (exit 2) with the validator's message. */
export function validated<T>(validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    if (error instanceof InvalidValueError) throw new UsageError(error.message);
    throw error;
  }
}

/** A string flag, or undefined when absent. The name must be one the command declares. */
export function stringFlag<F extends Flags>(flags: F, name: keyof F & string): string | undefined {
  const value = flags[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new UsageError(`--${kebab(name)} needs a value`);
}

export function booleanFlag<F extends Flags>(flags: F, name: keyof F & string): boolean {
  return flags[name] === true;
}

/** Commander hands a variadic argument as a nested array; accept both shapes. */
export function positional(args: readonly unknown[]): string[] {
  return args.flat().filter((arg): arg is string => typeof arg === 'string');
}

/** The one required positional argument, e.g. an ID. */
export function requiredArg(args: readonly unknown[], index: number, name: string, example: string): string {
  const value = positional(args)[index];
  if (value === undefined || value === '') throw new UsageError(`missing ${name}: e.g. ${example}`);
  return value;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

export interface ListFlags {
  /** Objects to show: one request with this page size. */
  limit?: number;
  /** Every object, following cursors (pages of 100). */
  all: boolean;
}

/** `--limit N` (1–100) or `--all`; not both, because they contradict each other. */
export function parseListFlags(flags: Flags): ListFlags {
  const all = booleanFlag(flags, 'all');
  const limitText = stringFlag(flags, 'limit');
  if (all && limitText !== undefined) {
    throw new UsageError('give either --limit N (at most N objects) or --all (every object), not both');
  }
  if (limitText === undefined) return { all };
  return { all, limit: validated(() => parseLimit(limitText)) };
}

/**
 * Live-mode actions that cost money say so on stderr, and ask on a terminal unless
 * `--yes`; without a terminal they just run (scripts and CI). Test mode is free and
 * says nothing. Declining is exit 1 with nothing done.
 */
export async function confirmBilled(ctx: Context, action: string): Promise<void> {
  const { credential } = await ctx.api();
  if (credential.mode !== 'live') return;
  const org = credential.profile?.org_name ?? credential.profile?.org_id ?? 'the organization';
  const free = credential.source === 'env' ? 'Set SVC_API_KEY to a test key (svc_test_…) to try it free of charge.' : 'Use --test to try it free of charge.';
  note(ctx, `${action} is billed to ${org} (live mode). ${free}`);
  if (ctx.globals.yes || !ctx.io.stdin.isTTY || !ctx.io.stderr.isTTY) return;
  if (!(await confirm(ctx, `${action}: continue?`))) throw new CliError('cancelled: nothing was done', EXIT.failure);
}

/** A single request through the endpoint table; the core client maps errors to exit codes. */
export async function call<T>(ctx: Context, endpoint: EndpointName, request: Omit<ApiRequest, 'endpoint'> = {}): Promise<T> {
  const api = await ctx.api();
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
): Promise<T[]> {
  const api = await ctx.api();
  const query: Record<string, QueryValue> = { ...request.query };
  if (!list.all) {
    if (list.limit !== undefined) query.limit = String(list.limit);
    const page = await api.request<ListPage<T>>({ endpoint, ...request, query });
    // Say that the list goes on, to a person only: scripts get exactly what they asked for.
    if (page.has_more && ctx.io.stderr.isTTY) note(ctx, `showing the newest ${page.data.length}; there are more (--limit up to 100, or --all)`);
    return page.data;
  }
  // The core spinner has no text update: a fresh one per page keeps the count current.
  let spinner = await startSpinner(ctx, 'fetching…');
  const items: T[] = [];
  try {
    let cursor: string | null = null;
    do {
      const pageQuery: Record<string, QueryValue> = { ...query, limit: String(LIST_LIMIT_MAX) };
      if (cursor !== null) pageQuery.cursor = cursor;
      const page: ListPage<T> = await api.request<ListPage<T>>({ endpoint, ...request, query: pageQuery });
      items.push(...page.data);
      cursor = page.has_more ? page.next_cursor : null;
      if (cursor !== null) {
        spinner.stop();
        spinner = await startSpinner(ctx, `fetching… ${items.length} so far`);
      }
    } while (cursor !== null);
  } finally {
    spinner.stop();
  }
  return items;
}

/**
 * Text given on stdin (for `chats send`, `translate`): all of it, less one trailing
 * newline. A terminal on stdin would wait forever for input nobody means to type, so it
 * is a usage error naming the way to give the text.
 */
export async function readStdinText(ctx: Context, what: string, example: string): Promise<string> {
  if (ctx.io.stdin.isTTY) throw new UsageError(`no ${what} given: pass it as an argument or pipe it on stdin, e.g. ${example}`);
  const text = (await ctx.io.stdin.readAll()).replace(/\r?\n$/, '');
  if (text.trim() === '') throw new UsageError(`${what} on stdin is empty: e.g. ${example}`);
  return text;
}
