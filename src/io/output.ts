// Rendering results on stdout (docs/design.md "Output and errors"): --json prints the API's
// JSON as one document; otherwise a table on a TTY (fitted to its width) and
// tab-separated lines when piped, so `svc calls list | cut -f1` works.
import type { Io } from './io.js';
import type { GlobalOptions } from '../shared/runtime.js';
import { escapeJsonControls, sanitizeLine, sanitizeText } from './sanitize.js';
import { type ColumnFit, fitColumns } from './fit.js';
import { cutEnd, cutMiddle, displayWidth, padEnd, wrapProse, wrapText } from './width.js';

export interface Column<T> extends ColumnFit {
  header: string;
  /** The cell text; undefined/null print as empty (TSV) or `-` (table). */
  value(row: T): string | number | boolean | null | undefined;
  /** A shorter text for a terminal too narrow for the full one (a time as "3 min ago"); never piped. */
  narrow?(row: T): string | null | undefined;
  /** The text at a terminal where it differs from the piped one (the default profile's name marked *). */
  table?(row: T): string | null | undefined;
  /** A column for scripts only: piped, never in the table (a DEFAULT column holding one *). */
  pipedOnly?: boolean;
}

// JSON.stringify escapes C0; escapeJsonControls the rest (DEL, C1): exact JSON, inert on a terminal.
export function printJson(ctx: { io: Io }, data: unknown): void {
  ctx.io.stdout.write(escapeJsonControls(JSON.stringify(data, null, 2)) + '\n');
}

/** One JSON document per line, for streams (--json on events tail, chats stream). */
export function printNdjson(ctx: { io: Io }, data: unknown): void {
  ctx.io.stdout.write(escapeJsonControls(JSON.stringify(data)) + '\n');
}

/** Bold when colour is on (ctx.io.color: a TTY, no NO_COLOR, no --no-color). */
async function bold(color: boolean): Promise<(text: string) => string> {
  if (!color) return (text) => text;
  // io.color already decided (TTY, NO_COLOR, --no-color): chalk does not second-guess it.
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return (text) => chalk.bold(text);
}

/** A cell's text; what the server sent may hold control characters, made inert here (src/io/sanitize.ts). */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  return sanitizeLine(String(value).replace(/[\t\r\n]+/g, ' '));
}

/** Tab-separated lines with no header: stable for scripts. Tabs/newlines inside cells become spaces. */
export function renderTsv<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  return rows.map((row) => columns.map((c) => cell(c.value(row))).join('\t') + '\n').join('');
}

/** Two spaces between columns, none around them, as gh prints tables. */
const GAP = 2;

/**
 * A table for the terminal, fitted to `width` when given (src/io/fit.ts): the columns'
 * narrow texts, then cells cut with … (or shortened in the middle), then columns left out,
 * as each column allows. Widths are display widths (src/io/width.ts); no line ends in spaces.
 */
export async function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], color: boolean, width?: number, ellipsis?: string): Promise<string> {
  const head = await bold(color);
  const shownColumns = columns.filter((c) => !c.pipedOnly);
  const text = (c: Column<T>, row: T) => cell(c.table ? c.table(row) : c.value(row)) || '-';
  const full = rows.map((row) => shownColumns.map((c) => text(c, row)));
  const narrow = rows.map((row) => shownColumns.map((c) => (c.narrow ? cell(c.narrow(row)) || '-' : '')));
  const widest = (cells: string[][], i: number) => Math.max(displayWidth(shownColumns[i]!.header), ...cells.map((r) => displayWidth(r[i]!)));
  const fullWidths = shownColumns.map((_, i) => widest(full, i));
  const lineWidth = fullWidths.reduce((sum, w) => sum + w, 0) + GAP * (shownColumns.length - 1);
  const shown =
    width === undefined || lineWidth <= width
      ? shownColumns.map((_, index) => ({ index, width: fullWidths[index]!, narrow: false }))
      : fitColumns(
          shownColumns.map((c, i) => ({
            header: displayWidth(c.header),
            full: fullWidths[i]!,
            ...(c.narrow ? { narrow: widest(narrow, i) } : {}),
            fit: {
              ...(c.shrink !== undefined ? { shrink: c.shrink } : {}),
              ...(c.drop !== undefined ? { drop: c.drop } : {}),
              ...(c.cutLast ? { cutLast: true } : {}),
            },
          })),
          width,
          GAP,
        ).columns;
  const line = (cells: (k: number) => string, style: (s: string) => string = (s) => s) =>
    shown
      .map((c, k) => {
        const value = cells(k);
        const fitted = shownColumns[c.index]!.shorten === 'middle' ? cutMiddle(value, c.width, ellipsis) : cutEnd(value, c.width, ellipsis);
        return style(k === shown.length - 1 ? fitted : padEnd(fitted, c.width));
      })
      .join(' '.repeat(GAP))
      .trimEnd();
  const lines = [line((k) => shownColumns[shown[k]!.index]!.header, head)];
  for (const r of rows.keys()) lines.push(line((k) => (shown[k]!.narrow ? narrow : full)[r]![shown[k]!.index]!));
  return lines.join('\n') + '\n';
}

/**
 * Prints a list result: `json` as the API's JSON, else a table (TTY) or TSV (piped).
 * An empty list prints nothing on stdout and a note on stderr when on a TTY.
 */
export async function printList<T>(
  ctx: { io: Io; globals: Pick<GlobalOptions, 'json'> },
  rows: readonly T[],
  columns: readonly Column<T>[],
  json: unknown = rows,
): Promise<void> {
  if (ctx.globals.json) return printJson(ctx, json);
  if (!ctx.io.stdout.isTTY) return ctx.io.stdout.write(renderTsv(rows, columns));
  if (rows.length === 0) {
    ctx.io.stderr.write('(none)\n');
    return;
  }
  ctx.io.stdout.write(await renderTable(rows, columns, ctx.io.color, ctx.io.stdout.columns, ctx.io.stdout.ascii ? '...' : undefined));
}

/** Prints one object: JSON, or `field<TAB>value` lines (a two-column table on a TTY). */
export async function printObject(
  ctx: { io: Io; globals: Pick<GlobalOptions, 'json'> },
  fields: ReadonlyArray<readonly [string, unknown]>,
  json: unknown,
): Promise<void> {
  if (ctx.globals.json) return printJson(ctx, json);
  // A list is comma-joined for scripts; at a terminal it is spaced, so a long one wraps between its items.
  const tty = ctx.io.stdout.isTTY === true;
  const rows = fields.map(([k, v]) => ({ k, v: Array.isArray(v) ? v.join(tty ? ', ' : ',') : v }));
  const columns: Column<{ k: string; v: unknown }>[] = [
    { header: 'FIELD', value: (r) => r.k },
    { header: 'VALUE', value: (r) => cell(r.v) },
  ];
  if (!ctx.io.stdout.isTTY) return ctx.io.stdout.write(renderTsv(rows, columns));
  const width = Math.max(...rows.map((r) => r.k.length));
  const label = await bold(ctx.io.color);
  // At a terminal too narrow for a value, it wraps at its spaces under the value column, and
  // what is still too wide (one long word) is cut with …, as a table cuts it.
  const room = ctx.io.stdout.columns === undefined ? Infinity : Math.max(ctx.io.stdout.columns - width - 2, 10);
  const valueLines = (value: string) =>
    room === Infinity
      ? [value]
      : wrapProse(value, room).map((line, i) => cutEnd(i === 0 ? line : line.trimStart(), room, ctx.io.stdout.ascii ? '...' : undefined));
  ctx.io.stdout.write(
    rows
      .map((r) =>
        valueLines(cell(r.v) || '-')
          .map((line, i) => `${i === 0 ? label(r.k.padEnd(width)) : ' '.repeat(width)}  ${line}\n`)
          .join(''),
      )
      .join(''),
  );
}

/**
 * Prose results on stdout (`auth status`, `doctor`): made inert (sanitize.ts) and, at a
 * terminal, wrapped to its width as stderr is (src/io/fit-output.ts); piped, whole lines.
 */
export function printText(ctx: { io: Io }, text: string): void {
  const safe = sanitizeText(text);
  const columns = ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined;
  ctx.io.stdout.write((columns ? wrapText(safe, columns) : safe) + '\n');
}

/** Warnings, progress and notes: stderr, never stdout. */
export function note(ctx: { io: Io }, message: string): void {
  ctx.io.stderr.write(sanitizeText(message) + '\n');
}

export function warn(ctx: { io: Io }, message: string): void {
  ctx.io.stderr.write(`warning: ${sanitizeText(message)}\n`);
}

/** "3 min ago" / "in 5 min" relative to `now` (ms). */
export function relativeTime(iso: string | number, now: number): string {
  const then = typeof iso === 'number' ? iso : Date.parse(iso);
  if (Number.isNaN(then)) return String(iso);
  const seconds = Math.round((now - then) / 1000);
  const abs = Math.abs(seconds);
  // Each unit is chosen after rounding, so one span has one name: 23 h 59 min is "1 d", as 24 h is, never "24 h".
  const minutes = Math.round(abs / 60);
  const hours = Math.round(abs / 3600);
  const [n, unit] = abs < 60 ? [abs, 's'] : minutes < 60 ? [minutes, 'min'] : hours < 24 ? [hours, 'h'] : [Math.round(abs / 86_400), 'd'];
  if (abs < 5) return 'just now';
  return seconds >= 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
}

/** Local date-time for tables: `2026-11-22 19:35`. */
export function localTime(iso: string | number): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** Local `19:35:07` for stream lines (chats stream, as events tail prints them): the same on every locale. */
export function clockTime(iso: string | number): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

/** Scopes as every command shows them: space-separated, as OAuth writes them (RFC 6749 §3.3). */
export function scopeList(scopes: readonly string[]): string {
  return scopes.join(' ') || 'none';
}
