// What a command's run() returns: its value (what `--json` prints, and what `svc mcp` takes as a
// tool's result) with how a person is shown it. The runner prints it (src/cli/print-result.ts);
// `svc mcp` takes the value itself, never the printed text. A command that streams (events tail,
// chats stream, the emulator) prints as it goes and returns nothing.
import type { Column } from '../io/output.js';

/** What every result may carry besides its value. */
interface Shown {
  /** A line said on stderr after the result, whatever the output's form (the command decides whether it is said with --json). */
  readonly after?: string;
  /** The run failed all the same (a check of `svc doctor`): the result is printed, then this error is the run's. */
  readonly failure?: Error;
}

/** An object's fields as shown: `field<TAB>value` lines, a two-column table at a terminal. */
export type Fields = ReadonlyArray<readonly [string, unknown]>;

/** One object: the API's JSON, and its fields. */
export interface ObjectResult extends Shown {
  readonly kind: 'object';
  readonly value: unknown;
  readonly fields: Fields;
}

/** How a page of a list ends (src/kit/resources.ts fetchList): whether the service has more, and the next page's cursor. */
export interface PageEnd {
  /** The service has more than this page. */
  more: boolean;
  /** The cursor of the next page (one page asked for, and more). */
  next?: string;
  /** A page after the first (asked for with a cursor). */
  later?: true;
}

/** A list: its JSON (the rows, unless the command's JSON is another shape), its rows and columns, and how the page ends. */
export interface ListResult extends Shown {
  readonly kind: 'list';
  readonly value: unknown;
  readonly rows: readonly unknown[];
  readonly columns: ReadonlyArray<Column<any>>;
  /** Said on stderr after the list: there are more (and the cursor of the next page). */
  readonly page?: PageEnd;
}

/** A result whose JSON and text differ in shape (`svc mode`, `svc doctor`): the JSON, and the prose a person reads, wrapped at a terminal. */
export interface ProseResult extends Shown {
  readonly kind: 'prose';
  readonly value: unknown;
  readonly text: string;
}

/** The JSON, and one text printed as it is (made inert, never wrapped): a translation, a balance piped. */
export interface TextResult extends Shown {
  readonly kind: 'text';
  readonly value: unknown;
  readonly text: string;
}

/** A dry run: what would be sent and its price (the JSON), said as lines, then "nothing was sent" on stderr. */
export interface DryRunResult extends Shown {
  readonly kind: 'dry-run';
  readonly value: DryRunValue;
  readonly lines: readonly string[];
}

export interface DryRunValue {
  dry_run: true;
  mode: 'test' | 'live';
  request: { method: string; path: string; body: Record<string, unknown> | null };
  billed: boolean;
  price: { item: string; unit_amount: number; currency: string } | null;
}

/** A result with nothing to show but its JSON (`svc auth switch`, whose words are on stderr): printed with --json alone. */
export interface JsonOnlyResult extends Shown {
  readonly kind: 'json-only';
  readonly value: unknown;
}

export type CommandResult = ObjectResult | ListResult | ProseResult | TextResult | DryRunResult | JsonOnlyResult;

/** What a result carries besides its value (Shown), an absent one left out. */
type After = { after?: string | undefined; failure?: Error | undefined };
const afterOf = (more: After): Shown => ({
  ...(more.after !== undefined ? { after: more.after } : {}),
  ...(more.failure !== undefined ? { failure: more.failure } : {}),
});

export function objectResult(value: unknown, fields: Fields, more: After = {}): ObjectResult {
  return { kind: 'object', value, fields, ...afterOf(more) };
}

/** A fetched page (its end said after it), or rows; `value` when the JSON is not the rows. */
export function listResult<T>(
  list: (PageEnd & { items: readonly T[] }) | readonly T[],
  columns: ReadonlyArray<Column<T>>,
  more: After & { value?: unknown } = {},
): ListResult {
  if (isRows(list)) return { kind: 'list', value: more.value ?? list, rows: list, columns, ...afterOf(more) };
  const { items, ...page } = list;
  return { kind: 'list', value: more.value ?? items, rows: items, columns, page, ...afterOf(more) };
}

function isRows<T>(list: (PageEnd & { items: readonly T[] }) | readonly T[]): list is readonly T[] {
  return Array.isArray(list);
}

export function proseResult(value: unknown, text: string, more: After = {}): ProseResult {
  return { kind: 'prose', value, text, ...afterOf(more) };
}

export function textResult(value: unknown, text: string, more: After = {}): TextResult {
  return { kind: 'text', value, text, ...afterOf(more) };
}

export function jsonOnly(value: unknown, more: After = {}): JsonOnlyResult {
  return { kind: 'json-only', value, ...afterOf(more) };
}
