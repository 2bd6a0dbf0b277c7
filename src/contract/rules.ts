// The value rules of docs/contract.md's request bodies, as pure functions both sides run:
// the emulator answers 422 with them; the CLI tidies what a person typed (trims, removes
// the spaces of a pasted phone number, upper-cases a country) and then checks it with
// the same rule before sending (exit 2 with a hint). One rule, one place: no drift.
// The rules are strict about the wire format; tidying is the CLI's (src/validate/).
import { ID_PREFIX, LIMITS } from './constants.js';

export type IdKind = keyof typeof ID_PREFIX;

/** A rule a body field follows; `check` gives its normal form or what is wrong. */
export type FieldRule =
  | { kind: 'language' }
  | { kind: 'languages'; count: number }
  | { kind: 'e164' }
  | { kind: 'country' }
  | { kind: 'areaCode' }
  | { kind: 'text'; max: number; min?: number }
  | { kind: 'id'; of: IdKind }
  | { kind: 'integer'; min: number; max: number };

/** A normal form, or what is wrong (and, in a list, at which index). */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string; at?: number };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const wrong = (problem: string): Checked<never> => ({ ok: false, problem });

/** Characters as people count them (code points: an emoji is one), which the limits count. */
export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A BCP 47 language tag (RFC 5646) in canonical case (`en-us` → `en-US`). Syntax by
 * `Intl.getCanonicalLocales`; the primary subtag must be 2–3 letters, since 5–8 letter
 * ones are valid syntax but unassigned, and nearly always a language name ("english").
 */
export function checkLanguageTag(value: string): Checked<string> {
  let canonical: string | undefined;
  try {
    [canonical] = Intl.getCanonicalLocales(value);
  } catch {
    canonical = undefined;
  }
  if (canonical === undefined || !/^[a-z]{2,3}$/.test(canonical.split('-')[0] ?? ''))
    return wrong('not a BCP 47 language tag such as en, es, pt-BR or zh-Hant');
  return ok(canonical);
}

/** An E.164 number (ITU-T E.164): "+", a country code not starting with 0, 7 to 15 digits in all. */
export function checkE164(compact: string): Checked<string> {
  if (!compact.startsWith('+')) return wrong('not an E.164 number: it must start with + and the country code');
  const digits = compact.slice(1);
  if (!/^[1-9]\d*$/.test(digits)) return wrong('not an E.164 number: + then digits, the first not 0');
  if (digits.length < LIMITS.e164DigitsMin || digits.length > LIMITS.e164DigitsMax) {
    return wrong(
      `not an E.164 number: it has ${digits.length} digit${digits.length === 1 ? '' : 's'}; E.164 numbers have ${LIMITS.e164DigitsMin} to ${LIMITS.e164DigitsMax}, country code included`,
    );
  }
  return ok(compact);
}

/** An ISO 3166-1 alpha-2 country code, in capitals (US). */
export function checkCountryCode(value: string): Checked<string> {
  return /^[A-Z]{2}$/.test(value) ? ok(value) : wrong('not a two-letter ISO 3166-1 country code in capitals, such as US, GB or DE');
}

export function checkAreaCode(value: string): Checked<string> {
  const { areaCodeDigitsMin: min, areaCodeDigitsMax: max } = LIMITS;
  return /^\d+$/.test(value) && value.length >= min && value.length <= max ? ok(value) : wrong(`not an area code: ${min} to ${max} digits, e.g. 415`);
}

/** Non-empty (when min ≥ 1) text of at most `max` characters. */
export function checkText(value: string, max: number, min = 1): Checked<string> {
  if (min > 0 && value.trim() === '') return wrong('empty');
  // UTF-16 length bounds the code points from above: count them only when it matters.
  if (value.length > max) {
    const characters = characterCount(value);
    if (characters > max) return wrong(`${characters.toLocaleString('en-US')} characters long; the limit is ${max.toLocaleString('en-US')}`);
  }
  return ok(value);
}

/** An object id of the given kind: its prefix (docs/contract.md "Conventions"), then [A-Za-z0-9_-]. */
export function checkId(value: string, of: IdKind): Checked<string> {
  const prefix = ID_PREFIX[of];
  const rest = value.slice(prefix.length);
  return value.startsWith(prefix) && rest !== '' && /^[A-Za-z0-9_-]+$/.test(rest)
    ? ok(value)
    : wrong(`not ${of === 'event' || of === 'org' ? 'an' : 'a'} ${of} id (${prefix}…)`);
}

export function checkInteger(value: number, min: number, max: number): Checked<number> {
  return Number.isInteger(value) && value >= min && value <= max
    ? ok(value)
    : wrong(`must be a whole number from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}`);
}

/** Distinct language tags, exactly `count` of them. */
export function checkLanguages(values: readonly string[], count: number): Checked<string[]> {
  const tags: string[] = [];
  for (const [at, value] of values.entries()) {
    const tag = checkLanguageTag(value);
    if (!tag.ok) return { ok: false, problem: tag.problem, at };
    if (tags.includes(tag.value)) return { ok: false, problem: `${tag.value} is listed twice: give distinct tags`, at };
    tags.push(tag.value);
  }
  return tags.length === count ? ok(tags) : wrong(`exactly ${count} language tags, e.g. en and es`);
}

/** Runs a field's rule on a value already of the rule's JSON type. */
export function checkField(rule: FieldRule, value: string | number | readonly string[]): Checked<unknown> {
  switch (rule.kind) {
    case 'language':
      return checkLanguageTag(value as string);
    case 'languages':
      return checkLanguages(value as readonly string[], rule.count);
    case 'e164':
      return checkE164(value as string);
    case 'country':
      return checkCountryCode(value as string);
    case 'areaCode':
      return checkAreaCode(value as string);
    case 'text':
      return checkText(value as string, rule.max, rule.min ?? 1);
    case 'id':
      return checkId(value as string, rule.of);
    case 'integer':
      return checkInteger(value as number, rule.min, rule.max);
  }
}

/** The JSON type a rule's values have. */
export function jsonTypeOf(rule: FieldRule): 'string' | 'number' | 'string[]' {
  return rule.kind === 'integer' ? 'number' : rule.kind === 'languages' ? 'string[]' : 'string';
}
