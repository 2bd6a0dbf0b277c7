// A terminal whose locale is not UTF-8 (LANG=C, a bare container) shows svc's few symbols as
// mojibake: there, at a terminal, they are written in ASCII. Piped output keeps every byte:
// a script under cron (LANG unset) gets the same text as anywhere else.
import type { Output } from './io.js';

/**
 * Whether the environment names a locale that is not UTF-8 (the first of LC_ALL, LC_CTYPE,
 * LANG that is set decides: LANG=C, POSIX, a Latin-1 locale). None set says nothing of the
 * terminal (a container's shell on a UTF-8 terminal): the output stays as it is.
 */
export function asciiLocale(env: Readonly<Record<string, string | undefined>>, platform: string = process.platform): boolean {
  if (platform === 'win32') return false;
  const locale = env.LC_ALL || env.LC_CTYPE || env.LANG;
  return locale !== undefined && locale !== '' && !/utf-?8/i.test(locale);
}

/** svc's own symbols and their ASCII stand-ins. */
const FALLBACKS: Record<string, string> = { '…': '...', '✔': 'v', '✖': 'x', '→': '->', '—': '-', '·': '-' };
const SYMBOLS = new RegExp(`[${Object.keys(FALLBACKS).join('')}]`, 'g');

export function toAscii(text: string): string {
  return text.replace(SYMBOLS, (symbol) => FALLBACKS[symbol]!);
}

/** `output` writing svc's symbols in ASCII when it is a terminal of an ASCII locale; otherwise `output` itself. */
export function asciiWhereNeeded(output: Output, env: Readonly<Record<string, string | undefined>>): Output {
  if (!output.isTTY || !asciiLocale(env)) return output;
  return {
    // A JSON document (--json) is the API's, byte for byte: only svc's own words change.
    write: (chunk) => output.write(/^\s*[{[]/.test(chunk) ? chunk : toAscii(chunk)),
    ascii: true,
    get isTTY() {
      return output.isTTY;
    },
    get columns() {
      return output.columns;
    },
  };
}
