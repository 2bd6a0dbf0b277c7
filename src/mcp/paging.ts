// A tool's result as an assistant receives it. The structured content is the whole result; the
// text content is that same JSON, serialized (the MCP spec: a tool returning structured content
// should return it as text too, and some clients, Claude Code among them, read only the text).
// A list tool's result is one page whose JSON stays within MAX_PAGE_CHARS, with `next_cursor`
// for the next, which the tool's `cursor` input takes: a page asked for that would be larger is
// asked for again, smaller, so the service's cursor points just past what was returned.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { UsageError } from '../errors.js';
import type { TypedInput } from './invoke.js';
import type { Ran } from './result.js';
import type { ToolSpec } from './tool-spec.js';

/** A list page's JSON, and so its text content, stays within this many characters (about 5,000 tokens) unless one item alone is larger. */
export const MAX_PAGE_CHARS = 20_000;
/** A page found too large is asked for again at most this many times, each smaller. */
const REFITS = 3;

/** A run's result as a tool's structured content: `{ items }` for a list, the object itself otherwise. */
export function structuredOf(ran: Ran): Record<string, unknown> {
  const value = 'result' in ran ? ran.result?.value : undefined;
  if (value === undefined) return {};
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { items: value };
}

/** The cursor of a list page's next page, as the command's result says it. */
function nextCursorOf(ran: Ran): string | undefined {
  const result = 'result' in ran ? ran.result : undefined;
  return result?.kind === 'list' ? result.page?.next : undefined;
}

/** Whether a tool's results are pages (it takes a cursor). */
const paged = (tool: Pick<ToolSpec, 'params'>) => tool.params.some((p) => p.property === 'cursor');

/** A cursor svc mcp gave: the service's own, with the filters of the page it ended. */
const CARRIED = 'svcq_';

/** A list call's filters: its arguments but the page's own (cursor, limit). */
function filtersOf(args: Record<string, unknown>): Record<string, unknown> {
  const { cursor: _cursor, limit: _limit, ...rest } = args;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined && v !== null));
}

/** A list tool's page with the cursor of the next one (null: the last page), which its `cursor` input takes, carrying the page's filters. */
export function pageOf(tool: Pick<ToolSpec, 'params'>, ran: Ran, args: Record<string, unknown> = {}): Record<string, unknown> {
  const structured = structuredOf(ran);
  if (!paged(tool) || !Array.isArray(structured.items)) return structured;
  const next = nextCursorOf(ran);
  return { ...structured, next_cursor: next ? CARRIED + Buffer.from(JSON.stringify({ c: next, f: filtersOf(args) })).toString('base64url') : null };
}

/**
 * A list call's arguments with the filters its cursor carries (the next page of `status:
 * ended` is of ended calls, whether or not the call says it again); a filter given that is
 * not the cursor's is refused, as is a cursor of svc mcp's form that does not read.
 */
export function withCarriedFilters(tool: Pick<ToolSpec, 'params'>, args: Record<string, unknown>): Record<string, unknown> {
  // Another cursor is the service's to judge, as it is given.
  if (!paged(tool) || typeof args.cursor !== 'string' || !args.cursor.startsWith(CARRIED)) return args;
  let carried: { c?: unknown; f?: unknown } | undefined;
  try {
    carried = JSON.parse(Buffer.from(args.cursor.slice(CARRIED.length), 'base64url').toString('utf8')) as typeof carried;
  } catch {
    carried = undefined;
  }
  if (!carried || typeof carried.c !== 'string' || carried.f === null || typeof carried.f !== 'object' || Array.isArray(carried.f))
    throw new UsageError('cursor is not one this tool gave: give the next_cursor of its last page as it is');
  const known = new Set(tool.params.map((p) => p.property));
  const filters = Object.fromEntries(
    Object.entries(carried.f as Record<string, unknown>).filter(([key]) => known.has(key) && key !== 'cursor' && key !== 'limit'),
  );
  for (const [key, value] of Object.entries(filtersOf(args)))
    if (JSON.stringify(value) !== JSON.stringify(filters[key]))
      throw new UsageError(`this cursor's pages are of ${key} ${JSON.stringify(filters[key] ?? null)}: give the same ${key}, or leave it out`);
  return { ...filters, ...args, cursor: carried.c };
}

/**
 * A command's run with its result: for a list tool, asked again with a smaller `limit` while
 * its page's JSON passes MAX_PAGE_CHARS (each time sized by the items' average length).
 */
export async function fittedRun(
  tool: Pick<ToolSpec, 'params'>,
  input: TypedInput,
  run: (input: TypedInput) => Promise<Ran>,
  args: Record<string, unknown> = {},
): Promise<{ ran: Ran; result?: CallToolResult }> {
  let ran = await run(input);
  for (let refit = 0; ; refit++) {
    if (ran.exitCode !== 0) return { ran };
    const structured = pageOf(tool, ran, args);
    const result = resultOf(structured);
    const chars = (result.content[0] as { text: string }).text.length;
    const items = structured.items;
    if (!paged(tool) || !Array.isArray(items) || chars <= MAX_PAGE_CHARS || items.length <= 1 || refit >= REFITS) return { ran, result };
    const limit = Math.max(1, Math.min(items.length - 1, Math.floor((items.length * MAX_PAGE_CHARS * 0.9) / chars)));
    ran = await run({ ...input, flags: { ...input.flags, limit } });
  }
}

/** The tool result of a structured value: the text content is its JSON, whole. */
export function resultOf(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}
