// `svc translate`: its behaviour against the emulator, then its parse rules (apart from running).
// `svc translate` in-process against the emulator: text from arguments or stdin, plain
// text for pipes, JSON with --json, and --lines keeping input order while several
// requests are in flight and some are refused with 429 (waited out via Retry-After).
import { describe, expect, it } from 'vitest';
import { READ_AHEAD } from '../../src/commands/translate.js';
import { useEmulator } from '../resources/harness.js';
import { parsing } from '../helpers/parse.js';

const h = useEmulator();

describe('translate', () => {
  it.each(['test', 'live'] as const)('prints only the translated text (%s mode)', async (mode) => {
    const result = await h.svc(['translate', 'Good', 'morning', '--to', 'es'], { mode });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toBe('[es] Good morning\n'); // the emulator's stand-in in both modes
  });

  it('reads stdin when no text is given, and --json gives the API object', async () => {
    const result = await h.svc(['translate', '--to', 'de', '--from', 'en', '--json'], { stdin: 'Hello\nworld\n' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      object: 'translation',
      text: '[de] Hello\nworld',
      to: 'de',
      from: 'en',
      characters: 11,
      livemode: false,
    });
  });

  it('--lines: one output line per input line, in input order, blank lines kept, through injected 429s', async () => {
    const input = Array.from({ length: 25 }, (_, i) => (i === 7 ? '' : `line ${i + 1}`));
    // The first requests are refused with 429 (Retry-After: 1): they finish after later
    // ones, and the output must still follow the input.
    await h.plane.fault('/v1/translate', 429, 3);
    let result: Awaited<ReturnType<typeof h.svc>> | undefined;
    const requests = await h.requestsDuring(async () => {
      result = await h.svc(['translate', '--lines', '--to', 'fr'], { stdin: input.join('\n') + '\n' });
    });
    expect(result!.exitCode, result!.stderr).toBe(0);
    expect(result!.stdout.split('\n').slice(0, -1)).toEqual(input.map((line) => (line === '' ? '' : `[fr] ${line}`)));
    // 24 non-blank lines, plus the three refused attempts that were retried.
    expect(requests).toBe(24 + 3);
  });

  it('--lines paces its requests on the context clock: past the burst of 10, about 10 a second (600/min)', async () => {
    let now = Date.now();
    const sleeps: number[] = [];
    const clock = {
      now: () => now,
      sleep: async (ms: number) => {
        sleeps.push(ms);
        now += ms; // virtual time: the pacer's waits cost nothing real
      },
    };
    const input = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
    const started = now;
    const result = await h.svc(['translate', '--lines', '--to', 'it'], { stdin: input.join('\n') + '\n', extra: { clock } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.split('\n').slice(0, -1)).toEqual(input.map((line) => `[it] ${line}`));
    // 30 lines past the burst at 590 per 60 s (the burst included, 600 in any minute).
    expect(now - started).toBeGreaterThanOrEqual((30 / 590) * 60_000 - 1);
    expect(now - started).toBeLessThan((30 / 590) * 60_000 + 200);
    expect(sleeps.length).toBeGreaterThanOrEqual(30);
  });

  it('--lines on a terminal: six requests refused together print one "rate limited: waiting" notice', async () => {
    const input = Array.from({ length: 8 }, (_, i) => `w${i}`);
    await h.plane.fault('/v1/translate', 429, 6);
    const result = await h.svc(['translate', '--lines', '--to', 'fr'], { stdin: input.join('\n') + '\n', tty: true });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.split('\n').slice(0, -1)).toEqual(input.map((line) => `[fr] ${line}`));
    expect(result.stderr.match(/rate limited: waiting/g)).toHaveLength(1);
  });

  it('--lines --json: NDJSON, one translation object per input line, in order', async () => {
    const input = ['un', 'deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit'];
    await h.plane.fault('/v1/translate', 429, 2);
    const result = await h.svc(['translate', '--lines', '--to', 'en', '--json'], { stdin: input.join('\n') });
    expect(result.exitCode, result.stderr).toBe(0);
    const objects = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(objects.map((o) => o.text)).toEqual(input.map((word) => `[en] ${word}`));
    expect(objects.every((o) => o.object === 'translation' && o.to === 'en')).toBe(true);
  });

  it('--lines prints the characters whole-text mode prints: a tab stays a tab; what a terminal obeys is inert in both', async () => {
    const line = 'a\tb \u001b[31mred\u202e';
    const [lines, whole] = await Promise.all([
      h.svc(['translate', '--to', 'de', '--lines'], { stdin: `${line}\n` }),
      h.svc(['translate', '--to', 'de'], { stdin: line }),
    ]);
    expect(lines.exitCode, lines.stderr).toBe(0);
    expect(lines.stdout).toBe('[de] a\tb ^[[31mred<U+202E>\n');
    expect(lines.stdout).toBe(whole.stdout);
  });

  it('a text over the limit says the way forward: --lines when its lines fit, else split it (issue 44)', async () => {
    const paragraphs = Array.from({ length: 5 }, (_, i) => `${'word '.repeat(599)}end${i}`).join('\n');
    expect(paragraphs.length).toBeGreaterThan(14_000);
    const fits = await h.svc(['translate', '--to', 'de'], { stdin: paragraphs });
    expect(fits.exitCode).toBe(2);
    expect(fits.stderr).toContain('the limit is 5,000');
    expect(fits.stderr).toContain('svc translate --lines --to de');
    const oneLine = await h.svc(['translate', '--to', 'de'], { stdin: 'x'.repeat(15_000) });
    expect(oneLine.exitCode).toBe(2);
    expect(oneLine.stderr).toMatch(/split it into parts of at most 5,000 characters/);
  });

  it('--lines at a terminal says how long it will take and how far it is, on stderr; in a script it says nothing', async () => {
    const virtualClock = () => {
      let now = Date.now();
      return { now: () => now, sleep: async (ms: number) => void (now += ms) };
    };
    // (Few lines, as the emulator's own limit counts these requests in real time: 130 in all.)
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
    const atTerminal = await h.svc(['translate', '--lines', '--to', 'it'], { stdin: lines(110), tty: true, extra: { clock: virtualClock() } });
    expect(atTerminal.exitCode, atTerminal.stderr).toBe(0);
    expect(atTerminal.stdout.split('\n')).toHaveLength(111);
    expect(atTerminal.stderr).toMatch(/^110 lines to translate: about \d\.\d s \(the service takes 600 requests a minute\)$/m);
    expect(atTerminal.stderr).toMatch(/^translated \d+ of 110 lines, (about .* s|under a second) left$/m);

    const script = await h.svc(['translate', '--lines', '--to', 'it'], { stdin: lines(20), extra: { clock: virtualClock() } });
    expect(script.exitCode, script.stderr).toBe(0);
    expect(script.stderr).toBe('');
  });

  it('--lines at a terminal, fed an endless stdin, reads ahead no further than READ_AHEAD and says no total', async () => {
    const chunkLines = 1_000;
    let pulled = 0;
    async function* endless(signal?: AbortSignal): AsyncGenerator<string> {
      while (!signal?.aborted) {
        pulled += chunkLines;
        yield 'hello there\n'.repeat(chunkLines);
        await new Promise((resolve) => setImmediate(resolve)); // a pipe's pace: the rest of the process runs between chunks
      }
    }
    // The pacer's first wait (past the burst of 10) is the moment to look: the reader has had
    // every chance to read on by then, and is given more; then the run is stopped, as by Ctrl-C.
    const stop = new AbortController();
    let now = Date.now();
    const clock = {
      now: () => now,
      sleep: async (ms: number) => {
        for (let turn = 0; turn < 200 && pulled < 3 * READ_AHEAD.lines; turn += 1) await new Promise((resolve) => setImmediate(resolve));
        now += ms;
        stop.abort();
      },
    };
    const result = await h.svc(['translate', '--lines', '--to', 'de'], { tty: true, extra: { clock, signal: stop.signal, stdinChunks: endless } });
    expect(result.exitCode, result.stderr).toBe(130);
    expect(pulled).toBeLessThanOrEqual(READ_AHEAD.lines + 2 * chunkLines);
    expect(result.stdout.split('\n').slice(0, 10)).toEqual(Array.from({ length: 10 }, () => '[de] hello there'));
    expect(result.stderr).not.toContain('lines to translate');
  });

  it('a line over 5,000 characters stops --lines with exit 2 after the lines before it', async () => {
    const result = await h.svc(['translate', '--lines', '--to', 'es'], { stdin: `ok\n${'x'.repeat(5001)}\nnever\n` });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('[es] ok\n');
    expect(result.stderr).toContain('line 2');
  });

  it('an upstream failure (502) is tried again with the same Idempotency-Key, so the service translates and bills once', async () => {
    await h.plane.fault('/v1/translate', 502, 1);
    const requests = await h.requestsDuring(async () => {
      const result = await h.svc(['translate', 'hello', '--to', 'es']);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stdout).toBe('[es] hello\n');
    });
    expect(requests).toBe(2);
  });

  it('502s past the tries are exit 9, and say the request may be retried', async () => {
    await h.plane.fault('/v1/translate', 502, 5);
    const result = await h.svc(['translate', 'hello', '--to', 'es']);
    expect(result.exitCode).toBe(9);
    expect(result.stderr).toContain('may be retried');
    expect(result.stdout).toBe('');
  });

  it('--lines stops at the first failure, after printing the lines before it in order', async () => {
    // Enough 502s that a line fails past its tries (each try of a create carries the same key).
    await h.plane.fault('/v1/translate', 502, 9);
    const result = await h.svc(['translate', '--lines', '--to', 'es'], { stdin: 'one\ntwo\nthree\n' });
    expect(result.exitCode).toBe(9);
    // Whichever line failed, what was printed is an in-order prefix that stops before it.
    const printed = result.stdout.split('\n').slice(0, -1);
    expect(printed.length).toBeLessThan(3);
    expect(printed).toEqual(['[es] one', '[es] two', '[es] three'].slice(0, printed.length));
  });

  it('an empty balance in live mode is exit 8 and, with SVC_API_KEY, suggests a test key in it', async () => {
    await h.plane.setBalance(h.emulator.seed.org_id, 0);
    try {
      const result = await h.svc(['translate', 'hello', '--to', 'es'], { mode: 'live' });
      expect(result.exitCode).toBe(8);
      expect(result.stderr).toContain('set SVC_API_KEY to a test key (svc_test_');
    } finally {
      await h.plane.setBalance(h.emulator.seed.org_id, 10_000);
    }
  });

  it('a credential without the translate scope is exit 4 naming the scope', async () => {
    const { key } = await h.plane.createKey(h.emulator.seed.org_id, 'test', ['calls:read']);
    const result = await h.svc(['translate', 'hello', '--to', 'es'], { env: { SVC_API_KEY: key } });
    expect(result.exitCode).toBe(4);
    expect(result.stderr).toContain('translate');
  });

  it('bad input is exit 2 with no request: missing --to, a bad tag, --lines with arguments, empty stdin', async () => {
    const requests = await h.requestsDuring(async () => {
      for (const [argv, message, stdin] of [
        [['translate', 'hi', '--to', 'spanish'], 'BCP 47'],
        [['translate', 'hi', '--to', 'es', '--from', 'en_GB'], 'did you mean en-GB'],
        [['translate', 'hi', '--to', 'es', '--lines'], 'stdin'],
        [['translate', '--to', 'es'], 'empty', '\n'],
        [['translate', 'x'.repeat(5001), '--to', 'es'], '5,000'],
      ] as Array<[string[], string, string?]>) {
        const result = await h.svc(argv, stdin === undefined ? {} : { stdin });
        expect(result.exitCode, argv.join(' ')).toBe(2);
        expect(result.stderr, argv.join(' ')).toContain(message);
      }
      const noTo = await h.svc(['translate', 'hi']);
      expect(noTo.exitCode).toBe(2);
      expect(noTo.stderr).toContain('--to');
    });
    expect(requests).toBe(0);
  });
});

const { ok, refused } = parsing('translate');

describe('svc translate: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('translate', 'Good', 'morning', '--to', 'ES', '--from', 'en')).toEqual({ to: 'es', from: 'en', text: 'Good morning', lines: false });
    expect(await ok('translate', '--to', 'de', '--lines')).toEqual({ to: 'de', lines: true });
    expect(await refused('translate', 'hi')).toContain("required option '--to <lang>' not specified");
    expect(await ok('translate', 'hi', '--to', 'es', '--dry-run')).toMatchObject({ to: 'es', dryRun: true });
    expect(await refused('translate', 'hi', '--to', 'es', '--lines')).toContain('stdin');
  });
});
