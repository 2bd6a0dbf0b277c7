// What the audit log keeps of a call's arguments and result: secrets redacted at every depth,
// long texts cut with their size said, bounded in depth, members and size, and the ids it touched.
import { redactText } from '../io/redact.js';
import { ID_PREFIX, LIMITS } from '../contract/constants.js';
import { characterCount } from '../contract/rules.js';

/** Bearer tokens and JWT-shaped strings: secrets whatever issued them. */
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g;
/**
 * An argument's text longer than this many characters (code points, as the contract counts a
 * title's) is cut in the log, with its size said. A title or subject within the contract's limit
 * is kept whole: a create whose answer was lost is sent again from its logged arguments.
 */
const MAX_LOGGED_STRING = LIMITS.labelCharacters;
/**
 * A call's logged arguments are no longer than this as JSON, so no line comes near MAX_BYTES
 * and no call can rotate the log's history away on its own.
 */
const MAX_LOGGED_ARGS = 4096;
/** A logged value nests no deeper, and a list or object keeps no more members. */
const MAX_DEPTH = 4;
const MAX_MEMBERS = 20;

function redacted(text: string): string {
  return redactText(text).replace(BEARER, '$1…').replace(JWT, 'eyJ…(a JWT)');
}

/** A value as it may be kept: secrets redacted at every depth, long texts cut with their size, bounded in depth and members. */
export function loggedValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    const cut = value.length > MAX_LOGGED_STRING * 4 ? value.slice(0, MAX_LOGGED_STRING * 4) : value;
    const clean = redacted(cut);
    const characters = characterCount(value);
    return characters > MAX_LOGGED_STRING ? `${Array.from(clean).slice(0, MAX_LOGGED_STRING).join('')}… (${characters} characters)` : clean;
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) return `(${Array.isArray(value) ? 'a list' : 'an object'}, not kept)`;
  if (Array.isArray(value)) {
    const kept = value.slice(0, MAX_MEMBERS).map((v) => loggedValue(v, depth + 1));
    return value.length > MAX_MEMBERS ? [...kept, `… (${value.length} items)`] : kept;
  }
  const entries = Object.entries(value);
  const kept = entries.slice(0, MAX_MEMBERS).map(([k, v]) => [redacted(k).slice(0, 100), loggedValue(v, depth + 1)]);
  if (entries.length > MAX_MEMBERS) kept.push(['…', `${entries.length} properties`]);
  return Object.fromEntries(kept);
}

export function loggedArgs(args: unknown): Record<string, unknown> {
  if (args === null || typeof args !== 'object' || Array.isArray(args)) return args === undefined ? {} : withinSize({ value: loggedValue(args) });
  return withinSize(loggedValue(args) as Record<string, unknown>);
}

/** The first properties that fit in MAX_LOGGED_ARGS, and the size of the whole. */
function withinSize(logged: Record<string, unknown>): Record<string, unknown> {
  const size = JSON.stringify(logged).length;
  if (size <= MAX_LOGGED_ARGS) return logged;
  const note = `the arguments were ${size} characters as logged; the rest is not kept`;
  const kept: Record<string, unknown> = {};
  let used = JSON.stringify({ '…': note }).length;
  for (const [key, value] of Object.entries(logged)) {
    const entry = JSON.stringify({ [key]: value }).length - 1;
    if (used + entry > MAX_LOGGED_ARGS) break;
    kept[key] = value;
    used += entry;
  }
  kept['…'] = note;
  return kept;
}

/** A whole value that is an object id of the API (docs/contract.md "Conventions"). */
const WHOLE_ID = new RegExp(`^(?:${Object.values(ID_PREFIX).join('|')})[A-Za-z0-9]{4,}$`);
/** No call keeps more ids than this; nor is a value searched past this many fields. */
const MAX_IDS = 50;
const MAX_FIELDS_SEARCHED = 10_000;

/** Whether a field names ids: `id`, `call_id`, `ids`, `participant_ids`. */
const idField = (key: string) => key === 'id' || key === 'ids' || key.endsWith('_id') || key.endsWith('_ids');

/**
 * The ids a call touched: the values of id fields (`id`, `…_id`, `ids`, `…_ids`) in its
 * arguments and its result, the outermost first (an object's own id before its children's),
 * never ids written inside a text (a translation, a message), which anyone could have written.
 */
export function idsIn(...values: unknown[]): string[] {
  const ids = new Set<string>();
  const queue: unknown[] = [...values];
  let searched = 0;
  const take = (value: unknown) => {
    if (typeof value === 'string' && WHOLE_ID.test(value) && ids.size < MAX_IDS) ids.add(value);
  };
  for (let at = 0; at < queue.length && searched < MAX_FIELDS_SEARCHED && ids.size < MAX_IDS; at++) {
    const value = queue[at];
    if (value === null || typeof value !== 'object') continue;
    for (const [key, field] of Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value)) {
      searched += 1;
      if (idField(key)) {
        if (Array.isArray(field)) field.forEach(take);
        else take(field);
      }
      if (field !== null && typeof field === 'object') queue.push(field);
    }
  }
  return [...ids];
}
