// `svc api` fields, as `gh api` has them: `-f key=value` sends a string, `-F key=value` a
// typed value (true/false/null/numbers as JSON, `@file` a file's contents, `@-` stdin).
// `key[]=v` appends to an array, `key[sub]=v` sets a member of an object; they nest
// (`items[][name]=a -f items[][name]=b` makes two objects).
import { UsageError } from '../../errors.js';

/** One -f/-F flag as given: parsed here, its value read (files, stdin) only when the command runs. */
export interface FieldSpec {
  /** `languages[]`, `meta[source]`, … as typed. */
  key: string;
  /** The path of the key: `meta[source]` → ['meta', 'source']; '' is an array append. */
  path: string[];
  value: string;
  /** `raw` (-f): the text as a string; `typed` (-F): a JSON literal or a file's contents. */
  kind: 'raw' | 'typed';
}

const KEY = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

export function parseField(entry: string, kind: FieldSpec['kind']): FieldSpec {
  const flag = kind === 'raw' ? '-f' : '-F';
  const eq = entry.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} needs key=value, not ${JSON.stringify(entry)}`);
  const key = entry.slice(0, eq);
  const match = KEY.exec(key);
  if (!match) throw new UsageError(`${flag}: the key ${JSON.stringify(key)} is not valid`, 'use name, name[] (an array) or name[member] (an object)');
  const path = [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)];
  path.forEach((segment, i) => {
    if (segment === '' && path[i + 1] === '')
      throw new UsageError(`${flag}: arrays of arrays (${key}) are not supported`, 'send such a body with --input FILE');
  });
  return { key, path, value: entry.slice(eq + 1), kind };
}

/** -F's literals: `true`, `false`, `null` and numbers become JSON values; anything else stays text. */
export function typedValue(text: string): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  // Only numbers that survive the round trip: 0123 or 9007199254740993 stay text.
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text) && String(Number(text)) === text) return Number(text);
  return text;
}

/** The `@file` / `@-` of a -F value, if it is one. */
export function fileOf(spec: FieldSpec): string | undefined {
  return spec.kind === 'typed' && spec.value.startsWith('@') ? spec.value.slice(1) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Builds the JSON body from fields whose values are resolved, in the order given. */
export function buildBody(fields: ReadonlyArray<{ spec: FieldSpec; value: unknown }>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const { spec, value } of fields) assign(body, spec, value);
  return body;
}

function assign(root: Record<string, unknown>, spec: FieldSpec, value: unknown): void {
  const clash = () => new UsageError(`the field ${spec.key} conflicts with an earlier field of another shape`);
  let parent: Record<string, unknown> | unknown[] = root;
  let key: string | number = spec.path[0]!;
  const at = (): unknown => (parent as Record<string | number, unknown>)[key];
  const put = (v: unknown) => void ((parent as Record<string | number, unknown>)[key] = v);
  for (let i = 1; i < spec.path.length; i++) {
    const segment = spec.path[i]!;
    if (segment === '') {
      let array = at();
      if (array === undefined) put((array = []));
      if (!Array.isArray(array)) throw clash();
      if (i === spec.path.length - 1) {
        array.push(value);
        return;
      }
      // `items[][name]`: fill the last object until it already has this member, then start a new one.
      const member = spec.path[i + 1]!;
      const last: unknown = array[array.length - 1];
      if (!isObject(last) || member in last) array.push({});
      parent = array;
      key = array.length - 1;
    } else {
      let object = at();
      if (object === undefined) put((object = {}));
      if (!isObject(object)) throw clash();
      parent = object;
      key = segment;
    }
  }
  // A plain key given twice becomes an array of both (`-F languages=en -F languages=es`).
  const current = at();
  put(current === undefined ? value : Array.isArray(current) ? [...current, value] : [current, value]);
}

/** GET fields become query parameters: `type[]=a` → `type=a` (repeatable), `a[b]=c` stays `a[b]=c`. */
export function queryOf(fields: ReadonlyArray<{ spec: FieldSpec; value: unknown }>): Record<string, string[]> {
  const query: Record<string, string[]> = {};
  for (const { spec, value } of fields) {
    const name = spec.key.replace(/\[\]$/, '');
    (query[name] ??= []).push(value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value));
  }
  return query;
}
