// `--jq EXPR` (src/shared/globals.ts), as src/cli/run.ts starts it: the filter is checked before
// anything is sent, then filters each JSON text the command writes on stdout.
// A filter that is a plain path to strings (`.id`, `.data[0].name`, `.data[].id`: the most
// common in scripts) is answered here when the answer allows it, without starting jq, whose
// WebAssembly start is most of the cost of --jq (bench/). Whenever the answer holds anything
// else (a number, whose digits jq keeps as written, an object, an error, a parse jq would refuse),
// jq (src/io/jq.ts) answers instead, so the output is always jq's: test/core/jq-path.test.ts
// compares the two.
import { JqFailedError } from '../errors.js';
import type { Output } from './io.js';

type Step = { key: string } | { index: number } | 'each';

const STEP = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(0|[1-9][0-9]{0,8})\]|\[\]/y;

/** The steps of a filter that is a plain path (`.a.b`, `.a[0]`, `.a[]`, `.[].b`); undefined for any other filter. */
export function plainPath(filter: string): Step[] | undefined {
  if (!filter.startsWith('.')) return undefined;
  const steps: Step[] = [];
  // A leading `.` before `[` is the path's start (`.[0]`), not a key.
  let at = filter.startsWith('.[') ? 1 : 0;
  while (at < filter.length) {
    STEP.lastIndex = at;
    const match = STEP.exec(filter);
    if (!match) return undefined;
    steps.push(match[1] !== undefined ? { key: match[1] } : match[2] !== undefined ? { index: Number(match[2]) } : 'each');
    at = STEP.lastIndex;
  }
  return steps.length > 0 ? steps : undefined;
}

/** Deeper than this, jq's parser may refuse the text (its limit counts an object twice): jq is asked. */
const NESTING_ANSWERED_HERE = 64;
/** A \u escape of a UTF-16 surrogate, or an unpaired one: jq refuses it, JSON.parse does not; jq is asked. */
const SURROGATE = /\\u[dD][89a-fA-F]|\p{Cs}/u;

function nestingWithin(json: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return false;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return true;
}

/** Pushes what jq prints for each result; false where jq's answer could differ or jq would fail (jq then answers). */
function follow(value: unknown, steps: readonly Step[], from: number, out: string[]): boolean {
  if (from === steps.length) {
    if (typeof value === 'string') out.push(value);
    else if (value === null || value === true || value === false) out.push(String(value));
    else return false;
    return true;
  }
  const step = steps[from]!;
  if (step === 'each') {
    // (An object's values come in its keys' order, which JSON.parse does not keep for numeric keys.)
    if (!Array.isArray(value)) return false;
    return value.every((item) => follow(item, steps, from + 1, out));
  }
  if (value === null) return follow(null, steps, from + 1, out);
  if ('key' in step) {
    if (typeof value !== 'object' || Array.isArray(value)) return false;
    return follow(Object.hasOwn(value, step.key) ? (value as Record<string, unknown>)[step.key] : null, steps, from + 1, out);
  }
  if (!Array.isArray(value)) return false;
  return follow(step.index < value.length ? value[step.index] : null, steps, from + 1, out);
}

/** What `jq -r` prints for `steps` over one JSON text, or undefined when jq must answer. */
export function followPath(json: string, steps: readonly Step[]): string | undefined {
  if (SURROGATE.test(json) || !nestingWithin(json, NESTING_ANSWERED_HERE)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return undefined;
  }
  const results: string[] = [];
  if (!follow(value, steps, 0, results)) return undefined;
  // As `jq -r` prints: each result as it is, then a newline (an empty string is an empty line).
  return results.map((result) => `${result}\n`).join('');
}

/** A surrogate that is not half of a pair (in the `u` mode a pair is one code point). */
const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATE_ALL = /\p{Cs}/gu;
/** A `\uD8xx` escape of a high surrogate with no low one after it (after an even run of backslashes: not itself escaped). */
const LONE_HIGH_ESCAPE = /(?<!\\)((?:\\\\)*)\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})/g;

/**
 * The JSON text as jq can read it: a lone surrogate (one message's broken emoji, say) becomes
 * U+FFFD, as jq itself makes a lone low one or a byte that is not UTF-8; jq refuses a lone high
 * one's escape, and with it the whole answer.
 */
function surrogatesReplaced(json: string): string {
  const text = LONE_SURROGATE.test(json) ? json.replace(LONE_SURROGATE_ALL, '\ufffd') : json;
  return text.includes('\\u') ? text.replace(LONE_HIGH_ESCAPE, '$1\\ufffd') : text;
}

/** stdout with `--jq`: each JSON text written is filtered, in order; `settled()` waits for the last and reports the first failure. */
export interface FilteredOutput extends Output {
  settled(): Promise<void>;
}

/** A checked filter: `output()` wraps stdout with it (jq's own words go to `stderr`). */
export interface CheckedFilter {
  output(out: Output, err: Output, onFailure?: (error: unknown) => void): FilteredOutput;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Checks `filter` (a usage error if it does not compile); jq starts now only for a filter that
 * is not a plain path, with `env` as its environment (`$ENV`, `env`).
 */
export async function checkFilter(filter: string, env: Env): Promise<CheckedFilter> {
  const path = plainPath(filter);
  if (!path) {
    const jq = await import('./jq.js');
    await jq.checkJq(filter, env);
  }
  return { output: (out, err, onFailure) => filteredOutput(out, err, filter, env, path, onFailure) };
}

/**
 * `onFailure`: told of the first failure when it happens, so that a stream stops there. A run
 * of jq that fails prints what jq printed before failing, then jq's words on stderr, and fails
 * with jq's exit status; a run that succeeds passes on what jq wrote on stderr (`debug`).
 */
function filteredOutput(
  out: Output,
  err: Output,
  filter: string,
  env: Env,
  path: Step[] | undefined,
  onFailure: (error: unknown) => void = () => {},
): FilteredOutput {
  let queue = Promise.resolve();
  let failure: unknown;
  const apply = async (text: string) => {
    const chunk = surrogatesReplaced(text);
    const answered = path && followPath(chunk, path);
    if (answered !== undefined) return { status: 0, stdout: answered, stderr: '' };
    return (await import('./jq.js')).runJq(chunk, filter, env);
  };
  const filterOne = (chunk: string): Promise<boolean> => {
    const done = queue.then(async () => {
      // After a failure nothing more is printed: what follows would read as the whole answer.
      if (failure !== undefined) return false;
      try {
        const ran = await apply(chunk);
        if (ran.stdout) out.write(ran.stdout);
        if (ran.stderr) err.write(ran.stderr);
        if (ran.status !== 0) throw new JqFailedError(ran.status);
        return ran.stdout !== '';
      } catch (error) {
        failure = error;
        onFailure(error);
        return false;
      }
    });
    queue = done.then(() => {});
    return done;
  };
  return {
    // The filter's output is for scripts: never a table, whatever stdout is.
    isTTY: false,
    write(chunk: string) {
      void filterOne(chunk);
    },
    writeFiltered: filterOne,
    ...(out.onReaderGone ? { onReaderGone: (gone: () => void, signal: AbortSignal) => out.onReaderGone!(gone, signal) } : {}),
    async settled() {
      await queue;
      if (failure !== undefined) throw failure;
    },
  };
}
