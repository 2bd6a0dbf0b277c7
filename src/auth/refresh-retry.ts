// A refresh (RFC 6749 §6) that meets a 429, a 502/503/504 or a dropped connection is tried
// again like any idempotent request (src/api/retry.ts: backoff with jitter, Retry-After
// honoured), and when it keeps failing the exit code says what failed (7 rate limited,
// 9 upstream or network), not "run svc login": the sign-in itself is intact. Only the
// token endpoint's refusal (invalid_grant, invalid_client) ends a connection, and that
// verdict stays with src/auth/session.ts.
//
// Why repeating is safe enough: a refresh token is single use, so if the first attempt
// was processed and only its answer was lost, the retry presents a used token and is
// refused; but the pair it was rotated to never reached us, so the connection was lost
// either way. A 429 or 502 answered before processing, the common case, is recovered.
import type { Clock, Random } from '../shared/runtime.js';
import { CliError, EXIT, NetworkError } from '../errors.js';
import { isTransientStatus, withRetries, type Outcome } from '../api/retry.js';
import { UnexpectedAnswerError } from '../api/limits.js';
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
      // Repeated even when it may have reached the service: see above for why.
      if (error instanceof ConnectionError) return { value: { failed: error }, outcome: { networkError: true, reached: false, retryable: error.retryable } };
      if (!(error instanceof OAuthStepError)) throw error;
      const status = error.details.status;
      if (status !== undefined && isTransientStatus(status))
        return { value: { failed: error }, outcome: { status, retryAfter: error.details.retryAfter ?? null } };
      // Not the protocol at all (an HTML page, a 500): say what answered; the sign-in is kept.
      if (error.kind === 'invalid_response') throw new UnexpectedAnswerError(`refreshing the sign-in of profile "${profile}" failed: ${error.message}`);
      throw error;
    }
  };
  // The one retry loop of every request (src/api/retry.ts); 'GET' as the refresh is repeated like an idempotent request.
  const { value, retry } = await withRetries('GET', tryOnce, ctx);
  if ('tokens' in value) return value.tokens;
  const error = value.failed;
  const tries =
    retry.stopped === 'retry-after-too-long' || retry.stopped === 'deadline' ? 'it asks to wait longer than svc waits' : `${retry.attempts} attempts`;
  const kept = 'the stored sign-in is kept: run the command again later';
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
