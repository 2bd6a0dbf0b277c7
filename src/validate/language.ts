import { checkLanguageTag } from '../contract/index.js';
import { invalid } from './invalid.js';

const EXAMPLES = 'a BCP 47 language tag such as en, es, pt-BR or zh-Hant';

/** A BCP 47 language tag in canonical case (`en-us` → `en-US`), by the contract's rule. */
export function parseLanguageTag(value: string, what = 'language'): string {
  const trimmed = value.trim();
  if (trimmed === '') invalid(`${what} is empty: give ${EXAMPLES}`);
  const result = checkLanguageTag(trimmed);
  if (!result.ok) {
    const suggestion = trimmed.includes('_') ? ` (did you mean ${trimmed.replaceAll('_', '-')}?)` : '';
    invalid(`${what} "${value}" is not valid${suggestion}: give ${EXAMPLES}`);
  }
  return result.value;
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
