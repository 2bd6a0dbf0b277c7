import { ID_PREFIX } from '../contract/constants.js';
import { checkId, type IdKind } from '../contract/rules.js';
import { invalid } from './invalid.js';

/** The tail of the id in examples: as real ids are, 20 letters and digits after the prefix. */
export const EXAMPLE_ID_TAIL = 'Q3vX8kTz1mLp9RbW2cYd';

export type { IdKind };

const NOUN: Record<IdKind, string> = {
  call: 'call',
  link: 'link',
  line: 'phone line',
  participant: 'participant',
  chat: 'chat',
  message: 'message',
  event: 'event',
  org: 'organization',
  key: 'key',
};

/**
 * An object id of the given kind: its prefix (docs/contract.md "Conventions") and then
 * letters, digits, `_` or `-`. Checked locally so that a call id passed where a chat id
 * belongs fails with exit 2 and a clear hint, instead of a 404 from the service.
 */
export function parseId(value: string, kind: IdKind): string {
  return parseIdWithPrefix(value, ID_PREFIX[kind]);
}

/** An id that must start with `prefix` (one of ID_PREFIX's: a declaration's `kind: { type: 'id', prefix }`). */
export function parseIdWithPrefix(value: string, prefix: string, flag?: string): string {
  const kind = (Object.keys(ID_PREFIX) as IdKind[]).find((k) => ID_PREFIX[k] === prefix);
  if (kind === undefined) throw new Error(`no id has the prefix ${prefix}`);
  const trimmed = value.trim();
  // The syntax is the contract's (checkId); what is said, and the hint, are the CLI's.
  if (!checkId(trimmed, kind).ok) {
    const other = (Object.keys(ID_PREFIX) as IdKind[]).find((k) => trimmed.startsWith(ID_PREFIX[k]) && k !== kind);
    const hint = other ? ` (that is ${article(NOUN[other])} ${NOUN[other]} id)` : '';
    invalid(
      `${flag ? `${flag} ` : ''}"${value}" is not ${article(NOUN[kind])} ${NOUN[kind]} id${hint}: ${NOUN[kind]} ids look like ${prefix}${EXAMPLE_ID_TAIL}`,
    );
  }
  return trimmed;
}

/** "an" before the nouns above that start with a vowel sound (event, organization), else "a". */
function article(noun: string): 'a' | 'an' {
  return /^[aeio]/i.test(noun) ? 'an' : 'a';
}
