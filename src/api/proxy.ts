// Which proxy a request goes through: the one rule, undici's EnvHttpProxyAgent's
// (node_modules/undici/lib/dispatcher/env-http-proxy-agent.js), which sends the requests. The
// variables are read once, when the context is made (src/cli/context.ts), into the settings
// undici is given (src/api/http.ts) and every choice is made from; the choice for a URL is made
// as it makes it: HTTPS_PROXY for https (else the http one),
// HTTP_PROXY for http, none for a host NO_PROXY names (by suffix; an entry with a port only
// for that port; `*` alone for every host). Errors and `svc doctor` name the proxy with it;
// its password is never shown. test/core/proxy-rule.test.ts holds it to undici's own answers.
import { UsageError } from '../errors.js';

export type Env = Readonly<Record<string, string | undefined>>;

export interface ProxyChoice {
  /** The proxy URL, its password masked; undefined when none applies. */
  proxy?: string;
  /** Set when a proxy is configured but NO_PROXY exempts this host. */
  bypassedBy?: string;
}

/** What EnvHttpProxyAgent is given: '' rather than undefined, so it never reads process.env (the context's env is the whole truth). */
export interface ProxySettings {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
  /** The variable each proxy came from, to name it. */
  httpFrom: string;
  httpsFrom: string;
}

const first = (env: Env, upper: string, lower: string): [string, string] =>
  env[upper] !== undefined ? [env[upper], upper] : env[lower] !== undefined ? [env[lower], lower] : ['', upper];

export function proxySettings(env: Env): ProxySettings {
  const [httpProxy, httpFrom] = first(env, 'HTTP_PROXY', 'http_proxy');
  const [httpsProxy, httpsFrom] = first(env, 'HTTPS_PROXY', 'https_proxy');
  return { httpProxy, httpsProxy, noProxy: env.NO_PROXY ?? env.no_proxy ?? '', httpFrom, httpsFrom };
}

/** Whether any request may go through a proxy (else the plain transport, without undici). */
export function anyProxy(s: ProxySettings): boolean {
  return Boolean(s.httpProxy || s.httpsProxy);
}

const PROXY_PROTOCOLS = new Set(['http:', 'https:', 'socks:', 'socks5:']);

/** A proxy variable that is not a proxy's address: a usage error naming it (exit 2), before anything is sent. */
export function proxyVariableError(s: ProxySettings): UsageError | undefined {
  for (const [value, name] of [
    [s.httpsProxy, s.httpsFrom],
    [s.httpProxy, s.httpFrom],
  ] as const) {
    if (!value) continue;
    const parsed = URL.canParse(value) ? new URL(value) : undefined;
    if (parsed && PROXY_PROTOCOLS.has(parsed.protocol)) continue;
    return new UsageError(
      `${name} is not a proxy's address (${JSON.stringify(maskProxy(value).slice(0, 60))})`,
      `set ${name} to the proxy's URL, e.g. http://proxy.example:3128, or unset it`,
    );
  }
  return undefined;
}

export function maskProxy(proxy: string): string {
  try {
    const parsed = new URL(proxy);
    if (parsed.password) parsed.password = '***';
    return parsed.href;
  } catch {
    return proxy.replace(/\/\/[^@/]*@/, '//***@');
  }
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** NO_PROXY's entries as undici reads them: host (a leading `.` or `*.` dropped), and a port or 0. */
function noProxyEntries(noProxy: string): { hostname: string; port: number }[] {
  return noProxy
    .split(/[,\s]/)
    .filter(Boolean)
    .map((entry) => {
      const parsed = /^(.+):(\d+)$/.exec(entry);
      return { hostname: (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase(), port: parsed ? Number.parseInt(parsed[2]!, 10) : 0 };
    });
}

/** undici's #shouldProxy: the host as URL.host without its port (IPv6 brackets kept), lower case. */
function shouldProxy(noProxy: string, url: URL): boolean {
  const entries = noProxyEntries(noProxy);
  if (entries.length === 0) return true;
  if (noProxy === '*') return false;
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  return !entries.some((entry) => (!entry.port || entry.port === port) && (hostname === entry.hostname || hostname.endsWith(`.${entry.hostname}`)));
}

export function proxyFor(s: ProxySettings, url: URL): ProxyChoice {
  const proxy = url.protocol === 'https:' ? s.httpsProxy || s.httpProxy : s.httpProxy;
  if (!proxy) return {};
  return shouldProxy(s.noProxy, url) ? { proxy: maskProxy(proxy) } : { bypassedBy: s.noProxy };
}
