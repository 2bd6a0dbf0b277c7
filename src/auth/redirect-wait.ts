// The authorization step's wait (RFC 8252 §7.3, the loopback redirect): the browser opened on
// the authorization address, or the address given to open elsewhere, then the first of the
// redirect on the loopback listener, the redirect pasted on stdin, the timeout and Ctrl-C.
import type { Io } from '../io/io.js';
import type { Browser, Clock } from '../shared/runtime.js';
import { AuthError, InterruptedError, UsageError } from '../errors.js';
import { note, warn } from '../io/output.js';
import { parsePastedRedirect, type CallbackOutcome, type ExpectedIssuer } from './callback.js';
import type { LoopbackServer } from './loopback.js';

/** What the wait reaches: the terminal, the clock, the browser opener, and the run's Ctrl-C. */
export interface WaitDeps {
  io: Io;
  clock: Clock;
  browser: Browser;
  signal: AbortSignal;
}

export interface RedirectWait {
  /** The authorization address (RFC 6749 §4.1.1), opened in the browser or shown. */
  url: string;
  loopback: LoopbackServer;
  state: string;
  issuer: ExpectedIssuer;
  /** Why no browser can be opened here, or null when one can. */
  noBrowser: string | null;
  timeoutSeconds: number;
  /** Said with the address: what to do when the browser shows an error svc cannot see. */
  browserErrorNote: string;
}

/** The first of: the loopback callback, a pasted redirect (no browser), the timeout, Ctrl-C. */
export async function waitForRedirect(ctx: WaitDeps, wait: RedirectWait): Promise<CallbackOutcome> {
  const { url, loopback, state, issuer, browserErrorNote } = wait;
  const done = new AbortController();
  const stop = AbortSignal.any([done.signal, ctx.signal]);
  try {
    let reason = wait.noBrowser;
    // Printed once: a browser that failed to open points back to the address above.
    const urlShown = reason === null;
    if (reason === null) {
      note(ctx, `Opening your browser to sign in. If it does not open, visit:\n  ${url}\n${browserErrorNote}`);
      try {
        await ctx.browser.open(url);
      } catch (error) {
        reason = `the browser could not be opened (${(error as Error).message})`;
      }
    }
    const waits: Promise<CallbackOutcome>[] = [loopback.outcome, timeout(ctx, wait.timeoutSeconds, stop, reason !== null), interrupted(ctx.signal)];
    if (reason !== null) {
      note(
        ctx,
        (urlShown
          ? `No browser here (${reason}). Open the address above in a browser to sign in.\n`
          : `No browser here (${reason}). Open this address in a browser to sign in:\n  ${url}\n`) +
          `After you approve, the browser goes to ${loopback.redirectUri}?…; if that page does not load ` +
          `(the browser is on another machine), copy the whole address from its address bar and paste it here. ${browserErrorNote}`,
      );
      // Without a browser, stdin is the only way left: its end without the redirect ends the wait.
      const noBrowser = reason;
      waits.push(pastedRedirect(ctx, state, issuer, stop, () => cannotComplete(noBrowser)));
    } else if (ctx.io.stdin.isTTY) {
      // The opener may "succeed" while no browser ever comes (xdg-open failing later, a browser
      // on another display): on a terminal, a pasted redirect is accepted too, whichever comes first.
      note(ctx, `If no browser appears, open the address above elsewhere and paste the address it ends on (${loopback.redirectUri}?…) here.`);
      waits.push(pastedRedirect(ctx, state, issuer, stop));
    }
    return await Promise.race(waits);
  } finally {
    done.abort();
  }
}

/**
 * No browser here and stdin ended without the redirect (a script's /dev/null, CI): nothing
 * can finish the sign-in. The ways that
 * need no sign-in. (A pipe still open may yet carry the redirect: that is waited for.)
 */
function cannotComplete(noBrowser: string): UsageError {
  return new UsageError(
    `svc login cannot complete here: no browser can be opened (${noBrowser}) and stdin ended without the sign-in's redirect`,
    'in a script, set SVC_API_KEY to an API key, or store one with `svc keys add --stdin < key.txt`; to sign in, run svc login at a terminal (or set BROWSER)',
  );
}

/** `addressShown`: the address was already given to open elsewhere (no browser here), so --no-browser would add nothing. */
function timeout(ctx: Pick<WaitDeps, 'clock'>, seconds: number, stop: AbortSignal, addressShown: boolean): Promise<never> {
  return ctx.clock.sleep(seconds * 1000, stop).then(
    () => {
      throw new AuthError(
        `no sign-in arrived within ${formatSeconds(seconds)}; gave up`,
        addressShown
          ? 'run `svc login` again (use --timeout to wait longer), and open the address it shows in a browser'
          : 'run `svc login` again (use --timeout to wait longer; if no browser opened, use --no-browser to get an address to open elsewhere and paste the result back)',
      );
    },
    () => new Promise<never>(() => {}), // stopped: another wait won
  );
}

function interrupted(signal: AbortSignal): Promise<never> {
  return new Promise<never>((_, reject) => {
    if (signal.aborted) reject(new InterruptedError());
    signal.addEventListener('abort', () => reject(new InterruptedError()), { once: true });
  });
}

/** Lines pasted on stdin until one is this login's redirect; at end of input, keeps waiting for the loopback, or fails with `atEnd`. */
async function pastedRedirect(
  ctx: Pick<WaitDeps, 'io'>,
  state: string,
  issuer: ExpectedIssuer,
  stop: AbortSignal,
  atEnd?: () => Error,
): Promise<CallbackOutcome> {
  // Ended through `stop`, not return(): return() would wait for the pending read, i.e. the next
  // Enter, and the open read keeps the process alive after the login has already ended.
  const lines = ctx.io.stdin.lines(stop)[Symbol.asyncIterator]();
  for (;;) {
    const next = await lines.next().catch((error: unknown) => {
      if (stop.aborted) return { done: true as const, value: undefined };
      throw error;
    });
    if (stop.aborted) return new Promise<never>(() => {});
    if (next.done) {
      // At a terminal, the end of input (Ctrl-D) leaves the loopback to wait on; elsewhere, `atEnd` says what is left.
      if (atEnd && !ctx.io.stdin.isTTY) throw atEnd();
      return new Promise<never>(() => {});
    }
    const line = next.value.trim();
    if (line === '') continue;
    const outcome = parsePastedRedirect(line, state, issuer);
    if (outcome.kind !== 'foreign') return outcome;
    warn(ctx, `that is not the redirect of this sign-in (${outcome.reason}); paste the whole address from the browser's address bar`);
  }
}

function formatSeconds(seconds: number): string {
  // The unit relativeTime (src/io/output.ts) would give: a day is "1 d", never "24 h".
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}
