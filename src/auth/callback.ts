// What the authorization server sent back to the redirect URI (docs/contract.md "Authorize",
// RFC 6749 §4.1.2), whether it arrived at the loopback server or was pasted by hand.

export type CallbackOutcome =
  | { kind: 'code'; code: string }
  /** RFC 6749 §4.1.2.1 `access_denied`: the admin refused. */
  | { kind: 'denied' }
  /** `scope`: the scope an invalid_scope names, where the server says which. */
  | { kind: 'error'; error: string; description?: string; scope?: string }
  /** RFC 9207 §2.4: the answer names another issuer, or none where one is required: never used. */
  | { kind: 'wrong_issuer'; expected: string; got: string | null };

/** The issuer this login discovered (RFC 9207): what `iss` must be, and whether it must be there. */
export interface ExpectedIssuer {
  issuer: string;
  required: boolean;
}

/** A callback that is not (provably) the answer to this login attempt: keep waiting. */
export interface ForeignCallback {
  kind: 'foreign';
  reason: string;
}

/**
 * RFC 6749 §10.12: only a callback carrying our state is ours; checked before anything
 * else, so that a forged error cannot end the login either.
 */
export function interpretCallback(params: URLSearchParams, expectedState: string, issuer?: ExpectedIssuer): CallbackOutcome | ForeignCallback {
  const state = params.get('state');
  if (state === null) return { kind: 'foreign', reason: 'it carries no state' };
  if (state !== expectedState) return { kind: 'foreign', reason: 'its state does not match this login' };
  // RFC 9207 §2.4: compared as strings, before the code or the error means anything. Our state
  // with another issuer is the mix-up attack itself: the sign-in ends, its code unused.
  const iss = params.get('iss');
  if (issuer && (iss !== null ? iss !== issuer.issuer : issuer.required)) return { kind: 'wrong_issuer', expected: issuer.issuer, got: iss };
  const error = params.get('error');
  if (error !== null) {
    if (error === 'access_denied') return { kind: 'denied' };
    const description = params.get('error_description');
    const scope = params.get('scope');
    return { kind: 'error', error, ...(description !== null ? { description } : {}), ...(scope !== null && error === 'invalid_scope' ? { scope } : {}) };
  }
  const code = params.get('code');
  if (code === null || code === '') return { kind: 'foreign', reason: 'it carries neither a code nor an error' };
  return { kind: 'code', code };
}

/**
 * A redirect address pasted on stdin (no browser on this machine, e.g. over SSH): the
 * whole `http://127.0.0.1:<port>/callback?code=…&state=…` address, or just its query.
 */
export function parsePastedRedirect(text: string, expectedState: string, issuer?: ExpectedIssuer): CallbackOutcome | ForeignCallback {
  const trimmed = text.trim();
  if (trimmed === '') return { kind: 'foreign', reason: 'it is empty' };
  let query: string;
  if (/^https?:\/\//i.test(trimmed)) {
    if (!URL.canParse(trimmed)) return { kind: 'foreign', reason: 'it is not a valid address' };
    query = new URL(trimmed).search;
  } else {
    const at = trimmed.indexOf('?');
    query = at >= 0 ? trimmed.slice(at) : trimmed;
  }
  const params = new URLSearchParams(query);
  if (!params.has('state') && !params.has('code') && !params.has('error')) {
    return { kind: 'foreign', reason: 'it has no code, error or state parameter' };
  }
  return interpretCallback(params, expectedState, issuer);
}
