// Redirect URI rules: https only, http only for localhost (docs/contract.md "Credentials and scopes"), and
// loopback URIs match with ANY port and ANY loopback host (RFC 8252 §7.3, docs/contract.md "Authorization server").

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

export function isLoopback(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/**
 * A URI no redirect may go to: a fragment (RFC 6749 §3.1.2; an empty `#` too) or userinfo
 * (`user:pass@`, which a browser may send on or show as the address).
 */
function unusable(uri: string, url: URL): boolean {
  return uri.includes('#') || url.username !== '' || url.password !== '';
}

/** May an app register this redirect URI? */
export function isAllowedRedirectUri(uri: string): boolean {
  const url = parse(uri);
  if (!url || unusable(uri, url)) return false;
  return url.protocol === 'https:' || isLoopback(url);
}

/** Does the presented redirect URI match one registered for the app? */
export function redirectMatches(registered: string[], presented: string): boolean {
  const url = parse(presented);
  if (!url || unusable(presented, url)) return false;
  return registered.some((candidate) => {
    if (candidate === presented) return true;
    const reg = parse(candidate);
    if (!reg || !isLoopback(reg) || !isLoopback(url)) return false;
    // RFC 8252 §7.3: the port is chosen by the native app at request time, and the contract lets any
    // loopback host (127.0.0.1, [::1], localhost) stand for a registered loopback URI; path and query must match.
    return reg.pathname === url.pathname && reg.search === url.search;
  });
}
