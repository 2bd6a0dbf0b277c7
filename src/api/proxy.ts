// Which proxy a request goes through, decided from the environment as undici's
// EnvHttpProxyAgent does: HTTPS_PROXY for https (else HTTP_PROXY), HTTP_PROXY for http,
// none for a host NO_PROXY names (by suffix, or `*`). Used to name the proxy in errors
// and in `svc doctor`; its password is never shown.
export type Env = Readonly<Record<string, string | undefined>>;

export interface ProxyChoice {
  /** The proxy URL, its password masked; undefined when none applies. */
  proxy?: string;
  /** Set when a proxy is configured but NO_PROXY exempts this host. */
  bypassedBy?: string;
}

const pick = (env: Env, ...names: string[]) => names.map((n) => env[n]).find((v) => v);

export function maskProxy(proxy: string): string {
  try {
    const parsed = new URL(proxy);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return proxy.replace(/\/\/[^@/]*@/, '//***@');
  }
}

export function proxyFor(env: Env, url: URL): ProxyChoice {
  const proxy = url.protocol === 'https:' ? pick(env, 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy') : pick(env, 'HTTP_PROXY', 'http_proxy');
  if (!proxy) return {};
  const noProxy = pick(env, 'NO_PROXY', 'no_proxy') ?? '';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const bypassed = noProxy
    .split(/[,\s]+/)
    .filter(Boolean)
    .some((entry) => {
      if (entry === '*') return true;
      const bare = entry.replace(/^\*?\./, '').replace(/:\d+$/, '');
      return host === bare || host.endsWith(`.${bare}`);
    });
  return bypassed ? { bypassedBy: noProxy } : { proxy: maskProxy(proxy) };
}
