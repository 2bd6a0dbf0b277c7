// `--jq` with a plain path (`.id`, `.data[].id`) is answered by svc without starting jq when the
// answer allows (src/io/jq-filter.ts). Every filter over every document here is run through jq
// too (the bundle's jq-wasm, as users run it): where svc answers, its output must be jq's, byte
// for byte; where jq's would differ or jq fails, svc must leave the answer to jq.
import { describe, expect, it } from 'vitest';
import { followPath, plainPath } from '../../src/io/jq-filter.js';

const jq = await (
  (await import('jq-wasm')) as unknown as {
    start(env: object): Promise<{ run(input: string, args: string[]): Promise<{ status: number; stdout: string; stderr: string }> }>;
  }
).start({});

/** What `jq -r` prints, or jq's failure. */
async function throughJq(json: string, filter: string): Promise<string> {
  const ran = await jq.run(json, ['-r', filter]);
  return ran.status === 0 ? ran.stdout : `jq failed (${ran.status}): ${ran.stderr}`;
}

const KEYWORDS = [
  'and',
  'or',
  'not',
  'if',
  'then',
  'elif',
  'else',
  'end',
  'as',
  'def',
  'reduce',
  'foreach',
  'try',
  'catch',
  'label',
  'import',
  'include',
  '__loc__',
];
const PATHS = [
  '.id',
  '.a',
  '.a.b',
  '.a.b.c',
  '.a[0]',
  '.a[1]',
  '.a[5]',
  '.a[]',
  '.[]',
  '.[0]',
  '.[1].id',
  '.[].id',
  '.data[].id',
  '.data[0].name',
  '.a[][]',
  '.__proto__',
  '.constructor',
  '._x9',
  ...KEYWORDS.map((word) => `.${word}`),
];
const NOT_PATHS = [
  '.',
  '..',
  '.a.',
  '.a..b',
  '.a | .b',
  '.a?',
  '.a[-1]',
  '.a[01]',
  '.a[0:1]',
  ' .a',
  '.a ',
  '.["a"]',
  '."a"',
  '.1a',
  '.a,.b',
  '$__loc__',
  '.a[1e3]',
  'a',
  '.a[ ]',
  '.é',
];

const deep = (depth: number, open: string, close: string) => `${open.repeat(depth)}"s"${close.repeat(depth)}`;
const DOCUMENTS = [
  '{"id":"evt_1"}',
  '{"id":"  padded  "}',
  '{"id":""}',
  '{"id":"tab\\there\\nand a line"}',
  '{"id":"\\u0000\\u007f\\u2028 é 😀 \\ud83d\\ude00"}',
  '{"id":"\\ud800"}',
  '{"id":"x\uD800"}',
  '{"id":null}',
  '{"id":true}',
  '{"id":false}',
  '{"id":1}',
  '{"id":1.0}',
  '{"id":100000000000000000001}',
  '{"id":{"b":"c"}}',
  '{"id":"x","id":"y"}',
  '{"__proto__":"p","constructor":"c"}',
  '{"a":{"b":{"c":"deep"}}}',
  '{"a":{"b":null}}',
  '{"a":["", "x", " y", "z "]}',
  '{"a":["x", 2]}',
  '{"a":[]}',
  '{"a":[["p"],["q","r"]]}',
  '{"a":"s"}',
  '{"a":null}',
  '[]',
  '[{"id":"a"},{"id":"b"}]',
  '[{"id":"a"},{}]',
  '[{"id":"a"},"b"]',
  '{"data":[{"id":"c_1","name":"one"},{"id":"c_2"}]}',
  '{"data":{"1":{"id":"x"},"0":{"id":"y"}}}',
  '{"1":"x","0":"y"}',
  '"a string"',
  '42',
  'null',
  '{"id":"x"} {"id":"y"}',
  '{"id":"x"}\n',
  ' {"id":"x"}',
  '\ufeff{"id":"x"}',
  '{"id":NaN}',
  '{"id":"x"',
  deep(60, '[', ']'),
  deep(200, '[', ']'),
  deep(257, '[', ']'),
  deep(129, '{"id":', '}'),
  ...KEYWORDS.map((word) => `{"${word}":"${word}-value"}`),
];

describe('--jq with a plain path, answered without jq', () => {
  it('knows a plain path from any other filter', () => {
    for (const filter of PATHS) expect(plainPath(filter), filter).toBeDefined();
    for (const filter of NOT_PATHS) expect(plainPath(filter), filter).toBeUndefined();
    expect(plainPath('.data[].id')).toEqual([{ key: 'data' }, 'each', { key: 'id' }]);
    expect(plainPath('.[2].a')).toEqual([{ index: 2 }, { key: 'a' }]);
  });

  it('every plain path is a filter jq compiles', async () => {
    for (const filter of PATHS) expect(await throughJq('null', filter), filter).not.toMatch(/compile error/);
  });

  it('prints what jq prints, byte for byte, or leaves the answer to jq', async () => {
    let answered = 0;
    for (const filter of PATHS) {
      const steps = plainPath(filter)!;
      for (const json of DOCUMENTS) {
        const mine = followPath(json, steps);
        if (mine === undefined) continue;
        answered++;
        expect(mine, `${filter} over ${json.slice(0, 80)}`).toBe(await throughJq(json, filter));
      }
    }
    // (Most of the pairs are answered here: the comparison is not empty.)
    expect(answered).toBeGreaterThan(300);
  });

  it('answers the common cases itself, and leaves numbers, objects, errors and texts jq would refuse to jq', () => {
    const answer = (filter: string, json: string) => followPath(json, plainPath(filter)!);
    expect(answer('.id', '{"id":"evt_1"}')).toBe('evt_1\n');
    expect(answer('.data[].id', '{"data":[{"id":"c_1"},{"id":"c_2"}]}')).toBe('c_1\nc_2\n');
    expect(answer('.missing', '{"id":"x"}')).toBe('null\n');
    expect(answer('.a[]', '{"a":[]}')).toBe('');
    // Nothing trimmed: an empty string is an empty line, spaces are kept.
    expect(answer('.id', '{"id":"  padded  "}')).toBe('  padded  \n');
    expect(answer('.a[]', '{"a":["", "", " y"]}')).toBe('\n\n y\n');
    for (const [filter, json] of [
      ['.id', '{"id":1.0}'],
      ['.id', '{"id":{"b":"c"}}'],
      ['.a', '"s"'],
      ['.[]', '{"1":"x","0":"y"}'],
      ['.id', '{"id":"\\ud800"}'],
      ['.[0]', deep(257, '[', ']')],
      ['.id', '{"id":"x"} {"id":"y"}'],
    ] as const)
      expect(answer(filter, json), `${filter} over ${json.slice(0, 40)}`).toBeUndefined();
  });
});
