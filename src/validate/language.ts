import { invalid } from './invalid.js';

const EXAMPLES = 'a BCP 47 language tag such as en, es, pt-BR or zh-Hant';

/**
 * A BCP 47 language tag (RFC 5646), returned in its canonical case (`en-us` → `en-US`).
 * Syntax is checked by `Intl.getCanonicalLocales`; on top of that the primary language
 * subtag must be 2–3 letters, because 5–8 letter primary subtags are syntactically
 * valid but unassigned, and are almost always a language *name* typed by mistake
 * ("english").
 */
export function parseLanguageTag(value: string, what = 'language'): string {
  const trimmed = value.trim();
  if (trimmed === '') invalid(`${what} is empty: give ${EXAMPLES}`);
  let canonical: string | undefined;
  try {
    [canonical] = Intl.getCanonicalLocales(trimmed);
  } catch {
    canonical = undefined;
  }
  const primary = canonical?.split('-')[0] ?? '';
  if (canonical === undefined || !/^[a-z]{2,3}$/.test(primary)) {
    const suggestion = trimmed.includes('_') ? ` (did you mean ${trimmed.replaceAll('_', '-')}?)` : '';
    invalid(`${what} "${value}" is not valid${suggestion}: give ${EXAMPLES}`);
  }
  return canonical;
}

/** A comma-separated list of language tags, e.g. `en,es`; each tag checked, duplicates refused. */
export function parseLanguageList(value: string, what = 'languages'): string[] {
  const tags = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => parseLanguageTag(part, what));
  const seen = new Set<string>();
  for (const tag of tags) {
    if (seen.has(tag)) invalid(`${what} lists ${tag} twice: give distinct tags, e.g. en,es`);
    seen.add(tag);
  }
  return tags;
}
