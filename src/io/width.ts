// Text as a terminal lays it out: display width (a CJK character takes two columns, a
// combining accent none, a skin-toned or joined emoji two), cutting a value to a width the
// way tables cut it (…), and wrapping prose at word boundaries with a hanging indent.
// Measured by string-width (the library ora and most of npm's terminal tools use); cut by
// grapheme (Intl.Segmenter), so no accent or emoji is split.
import stringWidth from 'string-width';

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ELLIPSIS = '…';

/** Columns `text` takes on a terminal (escape sequences take none). */
export function displayWidth(text: string): number {
  return PRINTABLE_ASCII.test(text) ? text.length : stringWidth(text);
}

let segmenter: Intl.Segmenter | undefined;
function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** The longest start of `text` within `width` columns. */
function head(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const g of graphemes(text)) {
    const w = displayWidth(g);
    if (used + w > width) break;
    out += g;
    used += w;
  }
  return out;
}

/** `text` cut to `width` columns, ending in … when cut (as a table cell is). */
export function cutEnd(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width < 1) return '';
  return head(text, width - 1) + ELLIPSIS;
}

/**
 * `text` shortened in the middle to `width` columns: its start and end stay (an address's
 * scheme and host, a link's id), for values whose end matters as much as their start.
 */
export function cutMiddle(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  if (width < 3) return cutEnd(text, width);
  const room = width - 1;
  // Two thirds to the start, and an address's whole origin (scheme, host, port) where it
  // leaves the end a few columns: the origin reads first, the id's end after.
  const origin = /^[a-z]+:\/\/[^/]*\//i.exec(text)?.[0].length ?? 0;
  const start = head(text, Math.max(Math.ceil((room * 2) / 3), Math.min(origin, room - 6)));
  const tailGraphemes = graphemes(text).reverse();
  let end = '';
  let used = 0;
  for (const g of tailGraphemes) {
    const w = displayWidth(g);
    if (used + w > room - displayWidth(start)) break;
    end = g + end;
    used += w;
  }
  return start + ELLIPSIS + end;
}

/** Space-padded to `width` columns (display width, not string length). */
export function padEnd(text: string, width: number): string {
  const missing = width - displayWidth(text);
  return missing > 0 ? text + ' '.repeat(missing) : text;
}

/**
 * What a line of prose may start with, after its indent, that its continuation lines start
 * under: a label (`error: `, `warning: `, `fix: `, `dry run: `) or a first column (doctor's
 * `ok      `, a field's name).
 */
const LEAD = /^(\s*)((?:[a-z]+(?: [a-z]+)?: )|(?:\S+ {2,}))?/;
const MAX_LABEL = 16;

/**
 * One line of prose wrapped to `width` columns at word boundaries, with a hanging indent:
 * continuation lines start under the text after a label (`error: `, `warning: `) or two
 * columns in from the line's own indent. A single word wider than the room (an address
 * to copy) is kept whole on a line of its own: the terminal folds it, and it stays one word
 * to copy. Returns the line as is when it fits.
 */
export function wrapProse(line: string, width: number): string[] {
  if (displayWidth(line) <= width) return [line];
  const [lead, indent, label] = LEAD.exec(line)!;
  const under = label && label.length <= MAX_LABEL ? label.length : 2;
  const hang = ' '.repeat(Math.min(indent!.length + under, Math.floor(width / 2)));
  const start = label && label.length <= MAX_LABEL ? lead : indent!;
  const words = line.slice(start.length).split(/ +/);
  const lines: string[] = [];
  let current = start;
  let currentWidth = displayWidth(start);
  let fresh = true; // nothing but the indent and label on the current line yet
  for (const word of words) {
    if (word === '') continue;
    const w = displayWidth(word);
    if (!fresh && currentWidth + 1 + w > width) {
      lines.push(current);
      current = hang + word;
      currentWidth = hang.length + w;
    } else {
      current += (fresh ? '' : ' ') + word;
      currentWidth += (fresh ? 0 : 1) + w;
    }
    fresh = false;
  }
  lines.push(current);
  return lines;
}

/** Each line of `text` wrapped to `width` (wrapProse); lines holding a tab, CR or escape are left to the terminal. */
export function wrapText(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => (/[\t\r\x1b]/.test(line) ? line : wrapProse(line, width).join('\n')))
    .join('\n');
}
