// A refresh (RFC 6749 §6) that meets a 429, or a connection never made, is tried again like
// any request (src/api/retry.ts: backoff with jitter, Retry-After honoured): the service has
// not processed it. A refresh is a POST of a single-use token, so one that may have been
// processed (a 502/503/504 from a gateway, a connection dropped after sending) is not
// repeated: the service may have rotated the pair and only its answer was lost, and sending
// the spent token again would read, at a server with reuse detection, as a stolen copy and
// end the sign-in. The exit code says what failed (7 rate limited, 9 upstream or network),
// and the message says the answer may have been lost. Only the token endpoint's refusal
// (invalid_grant, invalid_client) ends a connection, and that verdict stays with
// src/auth/session.ts.
import type { Clock, Random } from '../shared/runtime.js';
import { CliError, EXIT, NetworkError } from '../errors.js';
import { isTransientStatus, withRetries, type Outcome } from '../api/retry.js';
import { DeadlineError, UnexpectedAnswerError } from '../api/limits.js';
import { ConnectionError } from '../api/network.js';
import { OAuthStepError } from './http.js';

type Refreshed<T> = { tokens: T } | { failed: ConnectionError | OAuthStepError };

export async function withRefreshRetries<T>(
  ctx: { clock: Clock; random: Random; signal: AbortSignal },
  profile: string,
  refresh: () => Promise<T>,
): Promise<T> {
  const tryOnce = async (): Promise<{ value: Refreshed<T>; outcome?: Outcome }> => {
    try {
      return { value: { tokens: await refresh() } };
    } catch (error) {
      if (ctx.signal.aborted) throw error;
      if (error instanceof DeadlineError && error.reach === 'may-be-processed') throw lostAnswer(profile, error.message);
      if (error instanceof ConnectionError)
        return { value: { failed: error }, outcome: { networkError: true, reached: error.facts.reached, retryable: error.retryable } };
      if (!(error instanceof OAuthStepError)) throw error;
      const status = error.details.status;
      if (status !== undefined && isTransientStatus(status))
        return { value: { failed: error }, outcome: { status, retryAfter: error.details.retryAfter ?? null } };
      // A pair issued but refused: the caller revokes it (src/auth/session.ts).
      if (error.details.issued) throw error;
      // Not the protocol at all (an HTML page, a 500): say what answered; the sign-in is kept.
      if (error.kind === 'invalid_response') throw new UnexpectedAnswerError(`refreshing the sign-in of profile "${profile}" failed: ${error.message}`);
      throw error;
    }
  };
  // The one retry loop of every request (src/api/retry.ts), as the POST it is.
  const { value, retry } = await withRetries('POST', tryOnce, ctx);
  if ('tokens' in value) return value.tokens;
  const error = value.failed;
  const tries =
    retry.stopped === 'retry-after-too-long' || retry.stopped === 'deadline' ? 'it asks to wait longer than svc waits' : `${retry.attempts} attempts`;
  const kept = 'the stored sign-in is kept: run the command again later';
  if (retry.stopped === 'not-idempotent') {
    throw lostAnswer(profile, error instanceof ConnectionError ? error.message : `the token endpoint answered ${error.details.status}`);
  }
  if (error instanceof ConnectionError) {
    const failure = error.after({ attempts: retry.attempts });
    throw new NetworkError(
      `refreshing the sign-in of profile "${profile}" failed: ${failure.message}`,
      `${kept}; ${failure.hint ?? 'check the network and the base URL'}`,
    );
  }
  const status = error.details.status;
  if (status === 429) {
    const wait = retry.retryAfterMs;
    throw new CliError(
      `the token endpoint is rate limiting the refresh of profile "${profile}"${wait !== undefined ? ` and asks to wait ${Math.ceil(wait / 1000)} s` : ''} (${tries})`,
      EXIT.rateLimited,
      kept,
    );
  }
  throw new CliError(`the token endpoint failed (${status}) refreshing the sign-in of profile "${profile}" (${tries})`, EXIT.upstream, kept);
}

/** A refresh the service may have processed without its answer reaching svc: said, never sent again. */
function lostAnswer(profile: string, what: string): CliError {
  return new CliError(
    `refreshing the sign-in of profile "${profile}" failed: ${what}; the service may have rotated the sign-in and only its answer was lost, so svc did not send the refresh token again (it works once)`,
    EXIT.upstream,
    'run the command again: if the service did not rotate the sign-in, the stored one still works; if it says the connection ended, run `svc login`',
  );
}
