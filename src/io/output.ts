// Rendering results on stdout (design.md "Output and errors"): --json prints the API's
// JSON as one document; otherwise a table on a TTY (cli-table3, loaded only then) and
// tab-separated lines when piped, so `svc calls list | cut -f1` works.
import type { Io } from './io.js';
import type { GlobalOptions } from '../shared/runtime.js';
import { escapeJsonControls, sanitizeLine, sanitizeText } from './sanitize.js';
import { type ColumnFit, fitColumns } from './fit.js';

export interface Column<T> extends ColumnFit {
  header: string;
  /** The cell text; undefined/null print as empty (TSV) or `-` (table). */
  value(row: T): string | number | boolean | null | undefined;
  /** A shorter text for a terminal too narrow for the full one (a time as "3 min ago"); never piped. */
  narrow?(row: T): string | null | undefined;
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
  const { default: chalk } = await import('chalk');
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
const NO_BORDER = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: ' '.repeat(GAP),
};

/**
 * A table for the terminal, fitted to `width` when given (src/io/fit.ts): the columns'
 * narrow texts, then cells cut with …, then columns left out, as each column allows.
 */
export async function renderTable<T>(rows: readonly T[], columns: readonly Column<T>[], color: boolean, width?: number): Promise<string> {
  const { default: Table } = await import('cli-table3');
  const head = await bold(color);
  const full = rows.map((row) => columns.map((c) => cell(c.value(row)) || '-'));
  const narrow = rows.map((row) => columns.map((c) => (c.narrow ? cell(c.narrow(row)) || '-' : '')));
  // cli-table3 measures (string-width: wide characters count twice) and cuts with … where a width is set.
  const draw = (shown: ReadonlyArray<{ index: number; width?: number; narrow?: boolean }>) => {
    const table = new Table({
      head: shown.map((c) => head(columns[c.index]!.header)),
      colWidths: shown.map((c) => c.width ?? null),
      wordWrap: false,
      style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 0 },
      chars: NO_BORDER,
    });
    for (const r of rows.keys()) table.push(shown.map((c) => (c.narrow ? narrow : full)[r]![c.index]!));
    const text = table.toString();
    // toString() leaves each column's measured width in options.colWidths.
    return { text, widths: table.options.colWidths.map((w) => w ?? 0) };
  };
  const whole = draw(columns.map((_, index) => ({ index })));
  const lineWidth = whole.widths.reduce((sum, w) => sum + w, 0) + GAP * (columns.length - 1);
  if (width === undefined || lineWidth <= width) return whole.text + '\n';

  const narrowed = draw(columns.map((c, index) => ({ index, narrow: c.narrow !== undefined })));
  const fit = fitColumns(
    columns.map((c, i) => ({
      header: c.header.length,
      full: whole.widths[i]!,
      ...(c.narrow ? { narrow: narrowed.widths[i]! } : {}),
      fit: { ...(c.shrink !== undefined ? { shrink: c.shrink } : {}), ...(c.drop !== undefined ? { drop: c.drop } : {}) },
    })),
    width,
    GAP,
  );
  return draw(fit.columns).text + '\n';
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
  ctx.io.stdout.write(await renderTable(rows, columns, ctx.io.color, ctx.io.stdout.columns));
}

/** Prints one object: JSON, or `field<TAB>value` lines (a two-column table on a TTY). */
export async function printObject(
  ctx: { io: Io; globals: Pick<GlobalOptions, 'json'> },
  fields: ReadonlyArray<readonly [string, unknown]>,
  json: unknown,
): Promise<void> {
  if (ctx.globals.json) return printJson(ctx, json);
  const rows = fields.map(([k, v]) => ({ k, v: Array.isArray(v) ? v.join(',') : v }));
  const columns: Column<{ k: string; v: unknown }>[] = [
    { header: 'FIELD', value: (r) => r.k },
    { header: 'VALUE', value: (r) => cell(r.v) },
  ];
  if (!ctx.io.stdout.isTTY) return ctx.io.stdout.write(renderTsv(rows, columns));
  const width = Math.max(...rows.map((r) => r.k.length));
  const label = await bold(ctx.io.color);
  ctx.io.stdout.write(rows.map((r) => `${label(r.k.padEnd(width))}  ${cell(r.v) || '-'}\n`).join(''));
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
  const [n, unit] =
    abs < 60 ? [abs, 's'] : abs < 3600 ? [Math.round(abs / 60), 'min'] : abs < 86_400 ? [Math.round(abs / 3600), 'h'] : [Math.round(abs / 86_400), 'd'];
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
