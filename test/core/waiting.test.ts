// Waiting is said (issue 49), the rule alone (src/io/waiting.ts): the spinner only at a
// terminal and never with --json; what Ctrl-C says for a read and for a write. The real
// terminal is test/real/terminal-waiting.test.ts.
import { describe, expect, it } from 'vitest';
import { interruptedWords, watchRequest, type WaitWatch } from '../../src/io/waiting.js';

/** A watch whose clock's 2 s pass at once, recording what it shows and writes. */
function watchOf(opts: { tty: boolean; json: boolean; signal?: AbortSignal }) {
  const shown: string[] = [];
  let stopped = 0;
  let stderr = '';
  const watch: WaitWatch = {
    io: {
      stderr: { isTTY: opts.tty, write: (text: string) => void (stderr += text) },
      spinner: async (text: string) => {
        shown.push(text);
        return { stop: () => void (stopped += 1) };
      },
    },
    clock: { now: () => 0, sleep: async () => {} },
    signal: opts.signal ?? new AbortController().signal,
    json: opts.json,
  };
  return { watch, shown, stopped: () => stopped, stderr: () => stderr };
}

/** An answer that comes after the watch has had its turn. */
const lateAnswer = () => new Promise<string>((resolve) => setTimeout(() => resolve('answer'), 20));
const url = new URL('http://127.0.0.1:4010/v1/calls');

describe('a request slow to answer', () => {
  it('at a terminal: one spinner naming the host and the request, stopped when the answer comes', async () => {
    const w = watchOf({ tty: true, json: false });
    expect(await watchRequest(w.watch, 'POST', url, lateAnswer())).toBe('answer');
    expect(w.shown).toEqual(['waiting for 127.0.0.1:4010 to answer POST /v1/calls']);
    expect(w.stopped()).toBe(1);
  });

  it('on a pipe, or with --json: none', async () => {
    for (const opts of [
      { tty: false, json: false },
      { tty: true, json: true },
    ]) {
      const w = watchOf(opts);
      await watchRequest(w.watch, 'GET', url, lateAnswer());
      expect(w.shown, JSON.stringify(opts)).toEqual([]);
    }
  });

  it('Ctrl-C says what was stopped: a read changed nothing, a write may have been acted on, with the command that checks', async () => {
    expect(interruptedWords('GET', url)).toBe('svc: stopped GET /v1/calls to 127.0.0.1:4010 before its answer came; nothing was changed');
    expect(interruptedWords('POST', url)).toContain('it was sent, so the service may have acted on it: check with `svc calls list`');
    expect(interruptedWords('POST', new URL('http://h/v1/chats/chat_1/messages'))).toContain('`svc chats messages chat_1`');
    const controller = new AbortController();
    const w = watchOf({ tty: false, json: false, signal: controller.signal });
    const pending = watchRequest(
      w.watch,
      'POST',
      url,
      new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(new Error('aborted')))),
    );
    controller.abort();
    await expect(pending).rejects.toThrow('aborted');
    expect(w.stderr()).toContain('check with `svc calls list`');
  });
});
