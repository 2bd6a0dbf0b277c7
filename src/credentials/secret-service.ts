// A keychain read on Linux, spoken to the Secret Service (org.freedesktop.Secret.Service) from
// svc's own event loop: no second process to boot on the path of every command, and still
// bounded, since a bus that never answers is only a socket with no data, and the caller's
// timer ends it. It reads the items @napi-rs/keyring writes (attributes `service` and
// `username`; the addon writes and deletes, in bin/keychain-child.js). Only the plain case is
// answered here: one unlocked item, or none. A locked item (an unlock prompt), two items for one
// account, an address other than a unix socket, or any failure but the time bound, is left to
// the addon, which answers it as it always has (README "The OS keychain").
import type { Env } from '../shared/runtime.js';
import { DbusConnection, DbusError, unixSocketOf } from './dbus-wire.js';
import type { DbusValue } from './dbus-marshal.js';

const SECRETS = { destination: 'org.freedesktop.secrets', path: '/org/freedesktop/secrets' } as const;

/** The answer of an in-process read: the secret (null: no such item), or `ask-addon`. */
export type SecretServiceRead = { value: string | null } | 'ask-addon';

/** Whether the caller's own bound ended the read (then the addon is not asked: the time is spent). */
function abortedBy(signal: AbortSignal, error: unknown): boolean {
  return signal.aborted && (error === signal.reason || !(error instanceof DbusError));
}

/** Reads the secret of (service, account) as the addon would, or says the addon must. */
export async function readSecretService(env: Env, service: string, account: string, signal: AbortSignal): Promise<SecretServiceRead> {
  const socketPath = unixSocketOf(env.DBUS_SESSION_BUS_ADDRESS ?? '');
  if (!socketPath) return 'ask-addon';
  const bus = DbusConnection.open(socketPath, signal);
  try {
    const secrets = (member: string, signature?: string, body?: DbusValue[]) =>
      bus.call({ ...SECRETS, interface: 'org.freedesktop.Secret.Service', member, signature, body });
    // Sent together: the session and the search do not wait for each other.
    const session = secrets('OpenSession', 'sv', ['plain', ['s', '']]);
    const search = secrets('SearchItems', 'a{ss}', [
      [
        ['service', service],
        ['username', account],
      ],
    ]);
    session.catch(() => {});
    const [unlocked, locked] = (await search) as [string[], string[]];
    if (!Array.isArray(unlocked) || !Array.isArray(locked)) return 'ask-addon';
    if (unlocked.length + locked.length === 0) return { value: null };
    if (locked.length > 0 || unlocked.length > 1) return 'ask-addon';
    const [, sessionPath] = (await session) as [unknown, string];
    const [secret] = (await bus.call({
      destination: SECRETS.destination,
      path: unlocked[0]!,
      interface: 'org.freedesktop.Secret.Item',
      member: 'GetSecret',
      signature: 'o',
      body: [sessionPath],
    })) as [[string, Buffer, Buffer, string]];
    // A reply of another shape than (oayays) is no secret, whatever it holds.
    if (!Array.isArray(secret) || !Buffer.isBuffer(secret[2])) return 'ask-addon';
    return { value: new TextDecoder('utf-8', { fatal: true }).decode(secret[2]) };
  } catch (error) {
    if (abortedBy(signal, error)) throw error;
    return 'ask-addon';
  } finally {
    bus.close();
  }
}
