// Text the server sent (error details, OAuth error descriptions, event fields, chat
// messages) is untrusted: an ESC or CSI in it would be obeyed by the terminal (move the
// cursor, rewrite the title, hide or fake lines). Before such text is printed, every
// control character becomes inert caret notation, as cli/go-gh's asciisanitizer does:
// C0 (U+0000–U+001F) as ^@…^_, DEL as ^?, and C1 (U+0080–U+009F, where U+009B is a
// one-character CSI) as the caret of its 7-bit equivalent. Tab and newline stay where the
// text is multi-line (messages); cells of a table or TSV line keep neither.

// Bidirectional controls (U+202A–202E embeddings and overrides, U+2066–2069 isolates) are
// obeyed by the terminal too: they reorder what follows, so a line can show one text and
// hold another (Trojan Source, CVE-2021-42574). They are written as <U+202E>.
const CONTROL_KEEPING_LINES = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function caret(char: string): string {
  const code = char.charCodeAt(0);
  if (code >= 0x2000) return `<U+${code.toString(16).toUpperCase()}>`;
  if (code === 0x7f) return '^?';
  // C1 U+0080+n is the 8-bit form of ESC followed by U+0040+n: the same caret as C0 n.
  return `^${String.fromCharCode((code & 0x1f) + 0x40)}`;
}

/** For messages: control characters as ^X, except tab and newline. */
export function sanitizeText(text: string): string {
  return ANY_CONTROL.test(text) ? text.replace(CONTROL_KEEPING_LINES, caret) : text;
}

/**
 * For a text printed as one line of a line-for-line output (`translate --lines`): the same
 * escaping as sanitizeText, so both modes print the same characters; only a line break, which
 * would break the one-line-per-input rule, becomes a space. A tab breaks neither the line nor
 * the terminal, so it stays.
 */
export function sanitizeOneLine(text: string): string {
  return sanitizeText(text.replace(/\r?\n/g, ' '));
}

/** For one-line fields (table cells, event lines): every control character as ^X, tab and newline included. */
export function sanitizeLine(text: string): string {
  return ANY_CONTROL.test(text) ? text.replace(CONTROL_ALL, caret) : text;
}

/**
 * A JSON value as one line of human output (an event's data in `events get`): the same
 * caret notation as every other cell, not JSON's `\u001b`, so one rule holds everywhere
 * but `--json`. Keys and strings are sanitised before JSON.stringify sees them.
 */
export function displayJson(value: unknown): string {
  return JSON.stringify(inert(value)) ?? 'null';
}

function inert(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeLine(value);
  if (Array.isArray(value)) return value.map(inert);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [sanitizeLine(k), inert(v)]));
  return value;
}

/** True when the text holds a character a terminal would act on. */
export function hasControl(text: string): boolean {
  return ANY_CONTROL.test(text);
}

const JSON_UNESCAPED_CONTROL = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON.stringify escapes C0 but leaves DEL, C1 and the bidirectional controls raw (JSON allows them). Those characters
 * can only stand inside strings of the output, so writing them as \u escapes gives the
 * same JSON value and nothing a terminal would obey: `--json` stays exact JSON.
 */
export function escapeJsonControls(json: string): string {
  return /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(json)
    ? json.replace(JSON_UNESCAPED_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    : json;
}

/** The first `max` characters of an untrusted text on one line, for "it answered …" messages. */
export function snippet(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return sanitizeLine(flat.length > max ? `${flat.slice(0, max)}…` : flat);
}
