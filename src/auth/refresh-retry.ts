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
import { decideRetry, parseRetryAfter } from '../api/retry.js';
import { UnexpectedAnswerError } from '../api/limits.js';
import { OAuthStepError } from './http.js';

const TRANSIENT = new Set([429, 502, 503, 504]);

export async function withRefreshRetries<T>(
  ctx: { clock: Clock; random: Random; signal: AbortSignal },
  profile: string,
  refresh: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await refresh();
    } catch (error) {
      if (ctx.signal.aborted || !(error instanceof OAuthStepError)) throw error;
      const status = error.details.status;
      const transient = error.kind === 'network' || (status !== undefined && TRANSIENT.has(status));
      if (!transient) {
        // Not the protocol at all (an HTML page, a 500): say what answered; the sign-in is kept.
        if (error.kind === 'invalid_response') {
          throw new UnexpectedAnswerError(`refreshing the sign-in of profile "${profile}" failed: ${error.message}`);
        }
        throw error;
      }
      const [a = 0, b = 0] = ctx.random.bytes(2);
      const outcome = error.kind === 'network' ? ({ networkError: true } as const) : { status: status!, retryAfter: error.details.retryAfter ?? null };
      // 'POST' would forbid repeating after a dropped connection; see above for why it is repeated.
      const decision = decideRetry('GET', attempt, outcome, ctx.clock.now(), (a * 256 + b) / 65_536);
      if (decision.retry) {
        await ctx.clock.sleep(decision.waitMs, ctx.signal);
        continue;
      }
      const tries = decision.reason === 'retry-after-too-long' ? 'it asks to wait longer than svc waits' : `${attempt} attempts`;
      const kept = 'the stored sign-in is kept: run the command again later';
      if (error.kind === 'network')
        throw new NetworkError(
          `refreshing the sign-in of profile "${profile}" failed: ${error.message} (${tries})`,
          `${kept}; check the network and the base URL`,
        );
      if (status === 429) {
        const wait = parseRetryAfter(error.details.retryAfter, ctx.clock.now());
        throw new CliError(
          `the token endpoint is rate limiting the refresh of profile "${profile}"${wait !== undefined ? ` and asks to wait ${Math.ceil(wait / 1000)} s` : ''} (${tries})`,
          EXIT.rateLimited,
          kept,
        );
      }
      throw new CliError(`the token endpoint failed (${status}) refreshing the sign-in of profile "${profile}" (${tries})`, EXIT.upstream, kept);
    }
  }
}
