// A flag's or argument's kind (src/kit/define.ts `kind`): the one rule that turns the
// text of a command line into the typed value parse() receives, and refuses a bad value
// with the wording of that refusal. The runner applies it once (src/cli/run.ts); the
// declarations are also what `svc mcp` builds its tool schemas from.
import { centsOf } from '../contract/money.js';
import { checkInteger } from '../contract/rules.js';
import { invalid } from './invalid.js';
import { parseDurationMs } from './duration.js';
import { parseIdWithPrefix } from './id.js';
import { parseLanguageTag } from './language.js';
import { lazyRequire } from '../node-require.js';

/**
 * What a value is. integer → a number within the bounds; duration (`90s`, `1h30m`) → its
 * milliseconds; money (`1.50`, `$0.015`) → its cents, exactly; id → the id, checked against
 * its prefix; language → a BCP 47 tag in canonical case; file → the path of a readable
 * regular file (`-` for stdin).
 */
export type FlagKind =
  | { type: 'integer'; min?: number; max?: number }
  /** `none`: 0 turns the limit off (read as 0); otherwise 0 is refused with what is allowed. */
  | { type: 'duration'; min?: string; max?: string; zero?: 'none' }
  | { type: 'money' }
  | { type: 'id'; prefix: string }
  | { type: 'language' }
  | { type: 'file' };

/** What a declared flag or argument says of its value (src/kit/define.ts FlagSpec, ArgSpec). */
export interface ValueRule {
  choices?: readonly string[];
  kind?: FlagKind;
}

/**
 * The value a command line's word gives a declared flag or argument (`what`: `--status`,
 * `MODE`): one of its choices, or its kind's typed value, or the word itself. The parser
 * (src/cli/tree.ts) calls it for every word, and the runner for an env fallback.
 */
export function readValue(rule: ValueRule, text: string, what: string): string | number {
  if (rule.choices && !rule.choices.includes(text)) {
    invalid(`${what} must be one of ${rule.choices.join(', ')}, not ${JSON.stringify(text)}`);
  }
  return rule.kind ? readKind(rule.kind, text, what) : text;
}

/** The typed value of `text` (the word given for `what`: `--limit`, `ID`), or a usage error (exit 2). */
export function readKind(kind: FlagKind, text: string, what: string): string | number {
  switch (kind.type) {
    case 'integer':
      return readInteger(text, what, kind.min, kind.max);
    case 'duration':
      return readDuration(text, what, kind);
    case 'money': {
      const cents = centsOf(text.trim());
      if (cents === undefined) invalid(`${what} "${text}" is not an amount of dollars: give e.g. 5 or 0.50`);
      return cents;
    }
    case 'id':
      return parseIdWithPrefix(text, kind.prefix, what.startsWith('--') ? what : undefined);
    case 'language':
      return parseLanguageTag(text, what);
    case 'file':
      return readableFile(text, what);
  }
}

function readInteger(text: string, what: string, min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  const trimmed = text.trim();
  const n = /^-?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN;
  // The bounds are the contract's integer rule (checkInteger), the one the emulator answers 422 with.
  if (!Number.isSafeInteger(n) || !checkInteger(n, min, max).ok) {
    const range =
      min > Number.MIN_SAFE_INTEGER && max < Number.MAX_SAFE_INTEGER ? ` from ${min} to ${max}` : min > Number.MIN_SAFE_INTEGER ? ` of at least ${min}` : '';
    invalid(`${what} "${text}" must be a whole number${range}`);
  }
  return n;
}

function readDuration(text: string, what: string, { min, max, zero }: Extract<FlagKind, { type: 'duration' }>): number {
  const limits = [min && `at least ${min}`, max && `at most ${max}`].filter(Boolean).join(' and ');
  if (/^\s*0+[smhd]?\s*$/i.test(text)) {
    if (zero === 'none') return 0;
    invalid(`${what} "${text}" must be longer than zero: give ${limits || 'a duration such as 90s or 5m'}`);
  }
  const ms = parseDurationMs(text, what);
  if (min !== undefined && ms < parseDurationMs(min)) invalid(`${what} "${text}" is shorter than ${min}: give ${limits}`);
  if (max !== undefined && ms > parseDurationMs(max)) invalid(`${what} "${text}" is longer than ${max}: give ${limits}`);
  return ms;
}

/** A file the command will read: it exists and is a regular file svc may read; `-` is stdin. */
function readableFile(text: string, what: string): string {
  if (text === '-') return text;
  if (text.trim() === '') invalid(`${what} needs a file name`);
  const { accessSync, statSync, constants } = lazyRequire('node:fs');
  let isFile: boolean;
  try {
    isFile = statSync(text).isFile();
    if (isFile) accessSync(text, constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') invalid(`${text} does not exist: give the path of a file for ${what}`);
    invalid(`cannot read ${text}: ${code ?? (error as Error).message}`);
  }
  if (!isFile) invalid(`${text} is not a file: give the path of a file for ${what}`);
  return text;
}
