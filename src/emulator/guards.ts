// Cross-site safety. The control plane needs no credential and the emulator listens on
// loopback, so two things must hold for a web page in the user's browser not to reach it:
// - DNS rebinding: a page on evil.example whose name later resolves to 127.0.0.1 sends
//   `Host: evil.example`. Only Host names that name the bound address are answered (421 otherwise,
//   RFC 9110 §15.5.20 "Misdirected Request").
// - Cross-site requests: a form POST from any page reaches 127.0.0.1 with `Origin` and
//   `Sec-Fetch-Site` saying where it came from; the control plane refuses them (403).
import { networkInterfaces, hostname as machineName } from 'node:os';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from './errors.js';
import type { EmulatorEnv } from './http.js';
import type { BoundAddress } from './address.js';

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

export function isLoopbackAddress(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The names that reach an emulator bound to `bindHost`, plus those allowed with `--allow-host`. */
export function boundHostnames(bindHost: string, allowHosts: string[] = []): Set<string> {
  const bare = bindHost.replace(/^\[|\]$/g, '').toLowerCase();
  const names = new Set<string>([bare, ...allowHosts.map((name) => name.toLowerCase())]);
  const wildcard = bare === '' || bare === '0.0.0.0' || bare === '::';
  if (wildcard || isLoopbackAddress(bare)) for (const name of LOOPBACK_NAMES) names.add(name);
  if (wildcard) {
    // Every address of this machine reaches a wildcard bind, and so does its own name.
    for (const list of Object.values(networkInterfaces())) for (const address of list ?? []) names.add(address.address.toLowerCase());
    names.add(machineName().toLowerCase());
  }
  return names;
}

/** The host name of a `Host` header (`[::1]:4010` → `::1`, `Localhost:4010` → `localhost`), or null. */
export function hostnameOf(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d+)?$/.exec(value);
  if (bracketed) return bracketed[1]!;
  const plain = /^([a-z0-9.-]+)(?::\d+)?$/.exec(value);
  return plain ? plain[1]! : null;
}

/** Answers only requests whose Host names this emulator: 421 otherwise. */
export function hostGuard(address: () => BoundAddress | null): MiddlewareHandler<EmulatorEnv> {
  return async (_c, next) => {
    const bound = address();
    if (bound) {
      const header = _c.req.header('host');
      const name = hostnameOf(header);
      if (name === null || !bound.hostnames.has(name)) {
        throw new HttpError(
          421,
          `this emulator does not answer for the host ${JSON.stringify(header ?? '')}; use ${bound.url}, or start it with --allow-host NAME`,
        );
      }
    }
    await next();
  };
}

/** Refuses a control-plane request that another site's page made (Origin or Sec-Fetch-Site): 403. */
export function sameSiteGuard(address: () => BoundAddress | null): MiddlewareHandler<EmulatorEnv> {
  return async (c, next) => {
    const bound = address();
    const site = c.req.header('sec-fetch-site')?.trim().toLowerCase();
    if (site !== undefined && site !== 'same-origin' && site !== 'none') {
      throw new HttpError(403, `the control plane refuses requests from other sites (Sec-Fetch-Site: ${site})`);
    }
    const origin = c.req.header('origin');
    if (origin !== undefined && !(bound ? isOwnOrigin(origin, bound) : false)) {
      throw new HttpError(403, `the control plane refuses requests from other sites (Origin: ${origin})`);
    }
    await next();
  };
}

function isOwnOrigin(origin: string, bound: BoundAddress): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false; // "null" (sandboxed pages, file:) and anything unparsable
  }
  // The emulator's own scheme: a page served over https posts with an https Origin.
  const protocol = new URL(bound.url).protocol;
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return url.protocol === protocol && port === bound.port && bound.hostnames.has(url.hostname.replace(/^\[|\]$/g, '').toLowerCase());
}
