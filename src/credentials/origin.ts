// Origin binding (docs/design.md "Credentials"): a stored credential is sent only to the origin
// it was issued for, the profile's base URL, as gh binds a token to its host. Origins are
// compared as browsers do (RFC 6454 §4): scheme, host and port, after the URL parser has
// lower-cased the host and dropped a default port; a trailing slash or a path never
// matters. `localhost` and `127.0.0.1` are different origins: a name may resolve
// elsewhere (hosts file, ::1) than the address the credential was issued for.
import type { Profile } from '../config/config.js';
import { DEFAULT_EMULATOR_PORT } from '../contract/constants.js';
import { UsageError } from '../errors.js';

/** The base URL in one spelling (lower-case host, no default port, no trailing slash); UsageError when it is not an http(s) URL. */
export function canonicalBaseUrl(url: string, from = 'the base URL'): string {
  checkBaseUrl(url, from);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`${from} ${JSON.stringify(url)} is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`${from} ${JSON.stringify(url)} must be an http:// or https:// address`);
  if (parsed.username || parsed.password) throw new UsageError(`${from} must not carry a user name or password`);
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

/** scheme://host[:port], or null when `url` is not a URL. */
export function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

export function sameOrigin(a: string, b: string): boolean {
  const left = originOf(a);
  return left !== null && left === originOf(b);
}

/** The service publishes its address only as {base_url}: without one, svc talks to the local emulator. */
export const DEFAULT_BASE_URL = `http://127.0.0.1:${DEFAULT_EMULATOR_PORT}`;

/**
 * The address a profile's credentials are bound to, as stored: the base URL it was created with
 * (older profiles without one: the default). The one place that says so; compared by origin.
 */
export function profileAddress(profile: Pick<Profile, 'base_url'> | undefined): string {
  return profile?.base_url || DEFAULT_BASE_URL;
}

/** profileAddress in its one spelling, path included (a UsageError when the stored value is not an http(s) URL). */
export function profileBaseUrl(profile: Pick<Profile, 'base_url'> | undefined): string {
  return canonicalBaseUrl(profileAddress(profile), "the profile's base_url");
}

/** The profiles bound to the origin of `address`. */
export function profilesAt(profiles: Record<string, Profile>, address: string): string[] {
  return Object.keys(profiles).filter((name) => sameOrigin(profileAddress(profiles[name]), address));
}

/**
 * The refusal when the chosen address is not the profile's: it names both addresses and the
 * three ways forward. Exit 2 (usage): nothing was sent.
 */
export function addressMismatch(profileName: string, profile: Profile, address: string, source: string, atAddress: string[]): UsageError {
  const bound = profileAddress(profile);
  const others = atAddress.filter((name) => name !== profileName);
  const choose = others.length
    ? `choose one of the profiles of ${address} with --profile (${others.join(', ')})`
    : `sign in there under a profile of its own: \`svc login --base-url ${address} --profile NAME\``;
  return new UsageError(
    `profile "${profileName}" is bound to ${bound}, but ${source} names ${address}: its credentials are never sent to another address`,
    `${choose}; or move this profile with \`svc login --base-url ${address} --profile ${profileName}\`; or pass a key for that service in SVC_API_KEY`,
  );
}

/** An http(s) URL, or a usage error that says how to write one (`127.0.0.1:4510` → `http://127.0.0.1:4510`). */
export function checkBaseUrl(url: string, from: string): void {
  let protocol: string | undefined;
  try {
    protocol = new URL(url).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol === 'http:' || protocol === 'https:') return;
  // `localhost:4510` parses as the scheme "localhost:": a host and port without a scheme all the same.
  const hostPort = /^(\[[0-9a-f:.]+\]|[\w.-]+):\d+(\/.*)?$/i.test(url);
  if (hostPort || protocol === undefined) {
    const loopback = /^(127\.|localhost|\[::1\])/i.test(url);
    throw new UsageError(`${from} ${JSON.stringify(url)} has no http:// or https://`, `use ${loopback ? 'http' : 'https'}://${url}`);
  }
  throw new UsageError(
    `${from} ${JSON.stringify(url)} must be an http:// or https:// address, not ${protocol}`,
    'e.g. https://api.example.com, or http://127.0.0.1:4010 for the local emulator',
  );
}
