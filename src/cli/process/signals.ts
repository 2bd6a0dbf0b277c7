// What the process's signals do to a command: Ctrl-C, SIGTERM and SIGHUP stop it through
// ctx.signal; a keep (a new sign-in being stored, svc mcp's live calls being ended) holds them
// back; and the kill tests' aimed signals (SVC_TEST_SIGNAL_AT) land at an exact step.
import type { Output } from '../../context.js';
import { lazyRequire } from '../../node-require.js';
import type { TransactionStep, TransactionSteps } from '../../credentials/transaction.js';
import type { KeepEnding, Uninterruptible } from '../../shared/runtime.js';

/**
 * SVC_TEST_STEP_LOG=<file> (bench/credential-window.mjs): each credential transaction step is
 * appended with the time it was reached (ms, high resolution), to measure the windows between them.
 */
export function stepLog(path: string | undefined): ((step: TransactionStep) => void) | undefined {
  if (!path) return undefined;
  const { appendFileSync } = lazyRequire('node:fs');
  return (step) => appendFileSync(path, `${step} ${performance.now().toFixed(3)}\n`);
}

/** How long Ctrl-C, SIGTERM or SIGHUP waits for a new token pair being stored (a keychain write is bounded at 3 s). */
export const KEEP_BOUND_MS = 5_000;

export interface Shield {
  uninterruptible: Uninterruptible;
  /** Whether a keep is under way. */
  keeping(): boolean;
  /** Holds `stop` back until the keep under way ends (or KEEP_BOUND_MS); false when none is. */
  hold(stop: () => void): boolean;
  /** A stop is held back. */
  held(): boolean;
}

/** The line a Ctrl-C gets while svc finishes `what` first. */
const stillStopping = (what: string) => `svc: still stopping once ${what}; only SIGKILL (kill -KILL ${process.pid}) ends it sooner\n`;

/**
 * A new token pair stored while its old refresh token (or the code) is already spent is the
 * sign-in itself: Ctrl-C, SIGTERM and SIGHUP then wait for it (said, and bounded), and only
 * SIGKILL can cut it short.
 */
export function interruptionShield(stderr: Output): Shield {
  let keeping = 0;
  let held: (() => void) | undefined;
  let bound: NodeJS.Timeout | undefined;
  let saidAgain = false;
  let justHeld = false; // the Ctrl-C being handled is the one hold() just said
  // A Ctrl-C while a keep is under way (the first one's handler is spent) waits as the first.
  const again = () => {
    if (justHeld || saidAgain) return;
    saidAgain = true;
    stderr.write(stillStopping('the new sign-in is stored'));
  };
  const release = () => {
    const stop = held;
    held = undefined;
    clearTimeout(bound);
    process.off('SIGINT', again);
    stop?.();
  };
  return {
    async uninterruptible<T>(keep: () => Promise<T>): Promise<T> {
      if (keeping++ === 0) process.on('SIGINT', again);
      try {
        return await keep();
      } finally {
        if (--keeping === 0) release();
      }
    },
    keeping: () => keeping > 0,
    held: () => held !== undefined,
    hold(stop) {
      if (keeping === 0) return false;
      if (held) {
        const first = held;
        held = () => (first(), stop());
        return true;
      }
      stderr.write(`svc: stopping once the new sign-in is stored (at most ${KEEP_BOUND_MS / 1000} s)\n`);
      held = stop;
      justHeld = true;
      setImmediate(() => (justHeld = false));
      bound = setTimeout(release, KEEP_BOUND_MS);
      return true;
    },
  };
}

/**
 * SVC_TEST_SIGNAL_AT=<step>[@<n>]:<signal> (the kill tests): svc sends itself the signal when a
 * credential transaction reaches the step (its n-th time), and goes on once the signal was acted
 * on, so a kill lands at exactly that step, never at a moment a machine's speed chooses.
 */
export function signalAtStep(spec: string | undefined, stopped: AbortSignal, shield: Shield): TransactionSteps | undefined {
  const match = /^([a-z-]+)(?:@(\d+))?:(SIG[A-Z]+)$/.exec(spec ?? '');
  if (!match) return undefined;
  const step = match[1] as TransactionStep;
  const signal = match[3] as NodeJS.Signals;
  let left = Number(match[2] ?? 1);
  return async (at) => {
    if (at !== step || --left !== 0) return;
    process.kill(process.pid, signal);
    // The signal's handler runs from the event loop: wait for its effect (a stop, or one held back).
    for (let turn = 0; turn < 1000 && !stopped.aborted && !shield.held(); turn++) await new Promise((resolve) => setTimeout(resolve, 1));
  };
}

/** How long a command told to end (SIGTERM, SIGHUP) has to wind down before the signal ends the process anyway. */
export const WIND_DOWN_MS = 10_000;

/**
 * SIGTERM and SIGHUP (a closed terminal) stop the command as Ctrl-C does, through ctx.signal
 * (its reason's code names the signal), so what it started ends with it (svc mcp's live calls, a
 * keychain process); then the signal's own default ends the process, as it would have at once.
 * A second one while the command winds down changes nothing: a supervisor that sends two must
 * not cut the ending short (calls left running, billed). A command that has not wound down
 * within WIND_DOWN_MS is ended by the signal all the same.
 */
export function endingSignals(controller: AbortController, shield: Shield): { done(): void } {
  let received: NodeJS.Signals | undefined;
  let bound: NodeJS.Timeout | undefined;
  const signals = ['SIGTERM', 'SIGHUP'] as const;
  const end = (signal: NodeJS.Signals) => {
    for (const name of signals) process.off(name, onSignal);
    clearTimeout(bound);
    process.kill(process.pid, signal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) return;
    received = signal;
    const stop = () => controller.abort(Object.assign(new Error(`svc was told to end (${signal})`), { code: signal }));
    if (!shield.hold(stop)) stop();
    bound = setTimeout(() => end(signal), WIND_DOWN_MS);
  };
  for (const name of signals) process.on(name, onSignal);
  return {
    done() {
      if (received) end(received);
      else for (const name of signals) process.off(name, onSignal);
    },
  };
}

/**
 * Ctrl-C's default (the process ends at once, once the command's own handler is spent) set
 * aside while a command ends what it started: each Ctrl-C is said, once, and only SIGKILL cuts
 * the end short. (SIGTERM and SIGHUP wait for the end already: endingSignals.)
 */
export function keepEnding(stderr: Output): KeepEnding {
  return (what) => {
    let said = false;
    const again = () => {
      if (said) return;
      said = true;
      stderr.write(stillStopping(what));
    };
    process.on('SIGINT', again);
    return () => process.off('SIGINT', again);
  };
}
