// `--type` patterns of `events tail`: an exact event type (`chat.message.created`) or a
// family prefix (`call.*`, also written `call.` or `call`). The server filters too (`?type=`), but the client filters
// again so that what is printed never depends on how the server reads a pattern.
import { EVENT_TYPES } from '../contract/constants.js';

export type TypePattern = { kind: 'exact'; type: string } | { kind: 'prefix'; prefix: string };

const EXACT = /^[a-z]+(?:\.[a-z_]+)+$/;
const PREFIX = /^(?:[a-z]+(?:\.[a-z_]+)*\.)?\*$|^[a-z]+(?:\.[a-z_]+)*\.$/;

/** Reads one `--type` value; returns an error message instead of throwing, so parse() owns the error type. */
export function parseTypePattern(raw: string): TypePattern | { error: string } {
  const value = raw.trim();
  const known = EVENT_TYPES as readonly string[];
  // A bare family name (`call`) that is no type of its own means the whole family.
  const asPrefix = /^[a-z]+$/.test(value) && !known.includes(value) && known.some((t) => t.startsWith(`${value}.`)) ? `${value}.` : value;
  if (PREFIX.test(asPrefix)) {
    const prefix = asPrefix.endsWith('*') ? asPrefix.slice(0, -1) : asPrefix;
    if (!EVENT_TYPES.some((t) => t.startsWith(prefix))) {
      return { error: `--type ${value}: no event type starts with "${prefix}" (known types: ${EVENT_TYPES.join(', ')})` };
    }
    return { kind: 'prefix', prefix };
  }
  if (EXACT.test(value) && known.includes(value)) return { kind: 'exact', type: value };
  const family = value.split('.')[0] ?? value;
  const hint = EVENT_TYPES.some((t) => t.startsWith(`${family}.`)) ? ` (did you mean ${family}.*?)` : '';
  return { error: `--type ${JSON.stringify(raw)} is not an event type or a family like call.*${hint}; known types: ${EVENT_TYPES.join(', ')}` };
}

export function matchesType(type: string, patterns: readonly TypePattern[]): boolean {
  if (patterns.length === 0) return true;
  for (const p of patterns) {
    if (p.kind === 'exact' ? type === p.type : type.startsWith(p.prefix)) return true;
  }
  return false;
}

/** The `?type=` values to send: the pattern as the user wrote it (`call.*` or an exact type); none for `*`. */
export function serverTypeParams(patterns: readonly TypePattern[]): string[] {
  if (patterns.some((p) => p.kind === 'prefix' && p.prefix === '')) return [];
  return patterns.map((p) => (p.kind === 'exact' ? p.type : `${p.prefix}*`));
}
