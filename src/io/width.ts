// Text as a terminal lays it out: display width (a CJK character takes two columns, a
// combining accent none, a skin-toned or joined emoji two), cutting a value to a width the
// way tables cut it (…), and wrapping prose at word boundaries with a hanging indent.
// Wide characters are Unicode's East Asian Width table (get-east-asian-width, the table
// string-width uses); characters are grouped as a terminal draws them (an accent, a skin
// tone or a joined emoji stays with the character before it), so no cut splits one.
// Not string-width itself, nor Intl.Segmenter: each builds ICU's break rules when loaded
// (40 ms), and svc's stderr passes through here at every start.
import { eastAsianWidth } from 'get-east-asian-width';

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ELLIPSIS = '…';
/**
 * Drawn over the character before: combining marks, joiners, variation selectors, and
 * controls (shown as carets elsewhere). Made at the first character outside printable ASCII:
 * V8 builds a Unicode property class from ICU's tables when the pattern is made (most of a
 * millisecond), and most of what svc prints never needs it.
 */
let zeroWidth: RegExp | undefined;
const isZeroWidth = (char: string) => (zeroWidth ??= new RegExp('^[\\p{M}\\p{Default_Ignorable_Code_Point}\\p{Cc}]$', 'u')).test(char);
const SGR = /\x1b\[[0-9;]*m/g;
const ZWJ = 0x200d;
const EMOJI_VARIATION = 0xfe0f;
const isSkinTone = (cp: number) => cp >= 0x1f3fb && cp <= 0x1f3ff;
const isRegionalIndicator = (cp: number) => cp >= 0x1f1e6 && cp <= 0x1f1ff;

/** The characters of `text` as a terminal draws them, each with its width. */
function clusters(text: string): Array<{ text: string; width: number }> {
  const out: Array<{ text: string; width: number; ri?: boolean }> = [];
  let afterJoiner = false;
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    const last = out[out.length - 1];
    if (last && (afterJoiner || isZeroWidth(char) || isSkinTone(cp) || (last.ri && isRegionalIndicator(cp)))) {
      last.text += char;
      // U+FE0F asks for the emoji form, two columns wide; a second regional indicator completes a flag.
      if (cp === EMOJI_VARIATION) last.width = 2;
      if (last.ri && isRegionalIndicator(cp)) ((last.width = 2), (last.ri = false));
      afterJoiner = cp === ZWJ;
      continue;
    }
    afterJoiner = false;
    out.push({ text: char, width: eastAsianWidth(cp), ...(isRegionalIndicator(cp) ? { ri: true } : {}) });
  }
  return out;
}

/** Columns `text` takes on a terminal (colour sequences take none). */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  return clusters(text.replace(SGR, '')).reduce((sum, c) => sum + c.width, 0);
}

/** The longest start of `text` within `width` columns. */
function head(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const c of clusters(text)) {
    if (used + c.width > width) break;
    out += c.text;
    used += c.width;
  }
  return out;
}

/** `text` cut to `width` columns, ending in … when cut (as a table cell is). */
export function cutEnd(text: string, width: number, ellipsis: string = ELLIPSIS): string {
  if (displayWidth(text) <= width) return text;
  if (width < ellipsis.length) return head(text, width);
  return head(text, width - ellipsis.length) + ellipsis;
}

/**
 * `text` shortened in the middle to `width` columns: its start and end stay (an address's
 * scheme and host, a link's id), for values whose end matters as much as their start.
 */
export function cutMiddle(text: string, width: number, ellipsis: string = ELLIPSIS): string {
  if (displayWidth(text) <= width) return text;
  if (width < 2 + ellipsis.length) return cutEnd(text, width, ellipsis);
  const room = width - ellipsis.length;
  // Two thirds to the start, and an address's whole origin (scheme, host, port) where it
  // leaves the end a few columns: the origin reads first, the id's end after.
  const origin = /^[a-z]+:\/\/[^/]*\//i.exec(text)?.[0].length ?? 0;
  const start = head(text, Math.max(Math.ceil((room * 2) / 3), Math.min(origin, room - 6)));
  let end = '';
  let used = 0;
  for (const c of clusters(text).reverse()) {
    if (used + c.width > room - displayWidth(start)) break;
    end = c.text + end;
    used += c.width;
  }
  return start + ellipsis + end;
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
    // A word too wide for the room beside the label, but not for the terminal (a path): on a
    // line of its own from the first column, so the terminal does not fold it mid-word.
    if (w > width - hang.length && w <= width && currentWidth + (fresh ? 0 : 1) + w > width) {
      if (!fresh || current.trim() !== '') lines.push(current.trimEnd());
      lines.push(word);
      current = hang;
      currentWidth = hang.length;
      fresh = true;
      continue;
    }
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
  if (current.trim() !== '') lines.push(current);
  return lines;
}

/**
 * Each line of `text` wrapped to `width` (wrapProse). Left to the terminal: lines holding a
 * tab, CR or escape, and a JSON document (`--json`'s error object), which a newline inside
 * one of its strings would break.
 */
export function wrapText(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => (/[\t\r\x1b]|^\s*\{/.test(line) ? line : wrapProse(line, width).join('\n')))
    .join('\n');
}
