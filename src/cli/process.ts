// The real runtime: the process's streams, clock, randomness and browser.
import type { Input, Output } from '../context.js';
import type { Runtime } from './context.js';
import { lazyRequire } from '../node-require.js';
import type { Prompter } from '../io/interactive.js';

// node:crypto (with webcrypto), readline and timers/promises load on first use: `--help`
// and most commands never need them, and loading them costs start-up time.

/** stdout that goes quiet after EPIPE (`svc calls list | head -1`): exit 0, no stack trace. */
function stdoutOutput(onBrokenPipe: () => void): Output {
  let broken = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      broken = true;
      onBrokenPipe();
    } else throw error;
  });
  return {
    write(chunk) {
      if (!broken) process.stdout.write(chunk);
    },
    get isTTY() {
      return Boolean(process.stdout.isTTY);
    },
    get columns() {
      return process.stdout.columns;
    },
  };
}

function stderrOutput(): Output {
  return {
    write(chunk) {
      process.stderr.write(chunk);
    },
    get isTTY() {
      return Boolean(process.stderr.isTTY);
    },
    get columns() {
      return process.stderr.columns;
    },
  };
}

function stdinInput(): Input {
  return {
    get isTTY() {
      return Boolean(process.stdin.isTTY);
    },
    async readAll() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks).toString('utf8');
    },
    async readAllBytes() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return new Uint8Array(Buffer.concat(chunks));
    },
    async *lines(signal) {
      const { createInterface } = lazyRequire('node:readline');
      // The signal closes the interface (and pauses stdin) at once: an async generator's
      // return() waits for a pending read, which on a terminal is the next Enter.
      const rl = createInterface({ input: process.stdin, crlfDelay: Infinity, ...(signal ? { signal } : {}) });
      try {
        for await (const line of rl) yield line;
      } finally {
        rl.close();
      }
    },
  };
}

/**
 * The prompts and spinners (src/io/interactive.ts), loaded on first use with the code that
 * runs commands: in the bundle that is dist/run.cjs, so an interrupted prompt's
 * InterruptedError is the class the runner recognises (exit 130), and start-up loads none of it.
 */
const interactive = () => import('../io/interactive.js');

function lazyTerminalPrompter(terminal: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream }): Prompter {
  return {
    password: async (message, signal) => (await interactive()).terminalPrompter(terminal).password(message, signal),
    confirm: async (message, signal) => (await interactive()).terminalPrompter(terminal).confirm(message, signal),
  };
}

export function createProcessRuntime(controller: AbortController): Runtime {
  return {
    env: process.env,
    stdout: stdoutOutput(() => {
      // The reader has gone: stop the command quietly, success. The reason tells main()
      // this abort is a closed pipe (exit 0), not a Ctrl-C (exit 130).
      controller.abort(Object.assign(new Error('stdout was closed by its reader'), { code: 'EPIPE' }));
      process.exitCode = 0;
    }),
    stderr: stderrOutput(),
    stdin: stdinInput(),
    clock: {
      now: () => Date.now(),
      sleep: async (ms, signal) => {
        const { setTimeout: delay } = lazyRequire('node:timers/promises');
        await delay(ms, undefined, { signal });
      },
    },
    random: { bytes: (n) => new Uint8Array(lazyRequire('node:crypto').randomBytes(n)) },
    browser: {
      async open(url) {
        const { openBrowser } = await import('./browser.js');
        await openBrowser(url, process.env, process.platform);
      },
    },
    signal: controller.signal,
    // The person at this terminal; what each command opens (the HTTP pool) its context closes.
    prompter: lazyTerminalPrompter({ input: process.stdin, output: process.stderr }),
    spinner: async (text, color) => (await interactive()).oraSpinners(process.stderr)(text, color),
  };
}
