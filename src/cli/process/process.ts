// The real runtime: the process's streams, clock, randomness and browser.
import type { Input, Output } from '../../context.js';
import type { Runtime } from '../context.js';
import { fstatSync, writeSync } from 'node:fs';
import { lazyRequire } from '../../node-require.js';
import type { Prompter } from '../../io/interactive.js';
import { pipeReaderCheck } from './pipe-reader.js';
import { whileAwaited } from './stranded.js';
import { endingSignals, interruptionShield, keepEnding, signalAtStep, stepLog } from './signals.js';

// node:crypto (with webcrypto), readline and timers/promises load on first use: `--help`
// and most commands never need them, and loading them costs start-up time.

/**
 * Whether fd is a terminal. node:tty loads node:net, so it is asked only about a character
 * device: a pipe or a file is no terminal.
 */
function isTerminal(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice() && lazyRequire('node:tty').isatty(fd);
  } catch {
    return false; // a closed descriptor
  }
}

/** isTerminal(fd), asked once: a descriptor does not change what it is during a run. */
function terminalAnswer(fd: number): () => boolean {
  let answer: boolean | undefined;
  return () => (answer ??= isTerminal(fd));
}

/**
 * fd 1 or 2 as an Output. Writes go straight to the descriptor with a synchronous write
 * while they can: creating process.stdout/stderr loads Node's stream, net and fs-stream
 * modules, and on Linux a write to a pipe, file or
 * terminal is synchronous anyway. Only when the descriptor would block (a non-blocking
 * pipe that is full: EAGAIN) does the rest go through the Node stream, which queues it,
 * and so does everything written while it still holds some, so the order holds. A reader that closed the pipe
 * (EPIPE: `svc calls list | head -1`) silences the output and calls onBrokenPipe.
 */
function descriptorOutput(fd: 1 | 2, onBrokenPipe: () => void): Output {
  const terminal = terminalAnswer(fd);
  let broken = false;
  let stream: NodeJS.WriteStream | null = null;
  const nodeStream = (): NodeJS.WriteStream => {
    if (stream) return stream;
    stream = fd === 1 ? process.stdout : process.stderr;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      broken = true;
      onBrokenPipe();
    });
    return stream;
  };
  return {
    write(chunk) {
      if (broken) return;
      // Behind what the stream still queues, in order; otherwise straight to the descriptor.
      if (stream && stream.writableLength > 0) {
        stream.write(chunk);
        return;
      }
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      let offset = 0;
      try {
        while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EPIPE') {
          broken = true;
          onBrokenPipe();
        } else if (code === 'EAGAIN') nodeStream().write(bytes.subarray(offset));
        else throw error;
      }
    },
    get isTTY() {
      return terminal();
    },
    get columns() {
      return terminal() ? nodeStream().columns : undefined;
    },
    // Node's stream for the descriptor puts a pipe in non-blocking mode: a full pipe is then
    // EAGAIN, and the rest goes through the stream's queue (above).
    queueWhenFull: () => void nodeStream(),
    // Asked twice a second while a stream waits: its reader's going ends it as a failed write would.
    ...(fd === 1
      ? {
          onReaderGone(gone: () => void, signal: AbortSignal) {
            const check = pipeReaderCheck(fd);
            if (!check) return;
            const timer = setInterval(() => {
              if (broken || !check()) return;
              clearInterval(timer);
              broken = true;
              onBrokenPipe();
              gone();
            }, READER_CHECK_MS);
            timer.unref();
            signal.addEventListener('abort', () => clearInterval(timer), { once: true });
          },
        }
      : {}),
  };
}

/** How often a waiting stream asks whether its pipe still has a reader. */
const READER_CHECK_MS = 500;

/** The most text `chunks()` holds that its reader has not taken yet. */
const STDIN_QUEUE_CHARS = 1 << 20;

function stdinInput(): Input {
  const terminal = terminalAnswer(0);
  return {
    get isTTY() {
      return terminal();
    },
    async readAll(maxBytes) {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of process.stdin) {
        chunks.push(chunk as Buffer);
        size += (chunk as Buffer).length;
        // Leaving the loop destroys stdin: the writer gets EPIPE, and nothing more is read.
        if (maxBytes !== undefined && size > maxBytes) break;
      }
      const all = Buffer.concat(chunks);
      return (maxBytes !== undefined ? all.subarray(0, maxBytes + 1) : all).toString('utf8');
    },
    async readAllBytes() {
      const chunks: Buffer[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      return new Uint8Array(Buffer.concat(chunks));
    },
    async *chunks(signal) {
      const stdin = process.stdin;
      stdin.setEncoding('utf8');
      const queue: string[] = [];
      let queued = 0;
      let ended = false;
      let wake: (() => void) | null = null;
      // A reader slower than its writer (translate --lines, paced by the service) holds at most
      // this much: stdin is paused until it has taken some.
      const onData = (chunk: string) => {
        queue.push(chunk);
        queued += chunk.length;
        if (queued >= STDIN_QUEUE_CHARS) stdin.pause();
        wake?.();
      };
      const onEnd = () => {
        ended = true;
        wake?.();
      };
      stdin.on('data', onData);
      stdin.once('end', onEnd);
      stdin.once('error', onEnd);
      signal?.addEventListener('abort', onEnd, { once: true });
      try {
        for (;;) {
          if (queue.length > 0) {
            const chunk = queue.shift()!;
            queued -= chunk.length;
            if (!ended && stdin.isPaused() && queued < STDIN_QUEUE_CHARS) stdin.resume();
            yield chunk;
          } else if (ended) return;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      } finally {
        stdin.off('data', onData);
        stdin.off('end', onEnd);
        stdin.off('error', onEnd);
        signal?.removeEventListener('abort', onEnd);
        // Released, so the process can exit.
        stdin.pause();
      }
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
 * The prompts and spinners (src/io/interactive.ts), evaluated on first use (their libraries
 * load from dist/lib/ only then).
 */
const interactive = () => import('../../io/interactive.js');

/** Whether the terminal's locale is not UTF-8: prompts and spinners then draw in ASCII (src/io/charset.ts). */
const asciiTerminal = async () => (await import('../../io/charset.js')).asciiLocale(process.env);

/** Prompts on the terminal; process.stdin and stderr are touched only when one is asked. */
function lazyTerminalPrompter(): Prompter {
  const terminal = () => ({ input: process.stdin, output: process.stderr });
  return {
    password: async (message, signal) => (await interactive()).terminalPrompter(terminal(), await asciiTerminal()).password(message, signal),
    confirm: async (message, signal) => (await interactive()).terminalPrompter(terminal(), await asciiTerminal()).confirm(message, signal),
  };
}

export function createProcessRuntime(controller: AbortController): Runtime {
  return {
    env: process.env,
    stdout: descriptorOutput(1, () => {
      // The reader has gone: stop the command quietly, success. The reason tells runAsProcess()
      // this abort is a closed pipe (exit 0), not a Ctrl-C (exit 130).
      controller.abort(Object.assign(new Error('stdout was closed by its reader'), { code: 'EPIPE' }));
      process.exitCode = 0;
    }),
    stderr: descriptorOutput(2, () => {}),
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
    prompter: lazyTerminalPrompter(),
    spinner: async (text, color) => (await interactive()).oraSpinners(process.stderr, await asciiTerminal())(text, color),
  };
}

/**
 * One command line as this process: `work` runs with the real runtime, and its exit code
 * becomes the process's (process.exitCode, never process.exit, so pending output drains).
 */
export async function runAsProcess(work: (runtime: Runtime) => Promise<number>): Promise<void> {
  const controller = new AbortController();
  const runtime = createProcessRuntime(controller);
  const shield = interruptionShield(runtime.stderr);
  runtime.uninterruptible = shield.uninterruptible;
  runtime.keepEnding = keepEnding(runtime.stderr);
  const stopAt = signalAtStep(process.env.SVC_TEST_SIGNAL_AT, controller.signal, shield);
  const logged = stepLog(process.env.SVC_TEST_STEP_LOG);
  if (stopAt || logged)
    runtime.transactionSteps = async (at, profile) => {
      logged?.(at);
      await stopAt?.(at, profile);
    };
  // First Ctrl-C: the command stops through ctx.signal (execute() makes that exit 130), once
  // a new token pair being stored is. Registered `once`, so a second Ctrl-C gets Node's
  // default: the process ends (unless a pair is being stored: then it waits too).
  const onSigint = () => {
    if (!shield.hold(() => controller.abort())) controller.abort();
  };
  process.once('SIGINT', onSigint);
  const ending = endingSignals(controller, shield);
  try {
    const code = await whileAwaited(work(runtime), () => {
      runtime.stderr.write('error: svc stopped before the command finished: nothing was left to wait for (a bug in svc; please report it)\n');
      process.exitCode = 1;
    });
    // A reader that closed stdout (`svc … | head`) is not a failure: the abort carries EPIPE.
    const readerClosedStdout = (controller.signal.reason as { code?: unknown } | undefined)?.code === 'EPIPE';
    process.exitCode = readerClosedStdout ? 0 : code;
  } finally {
    process.off('SIGINT', onSigint);
    ending.done();
  }
}
