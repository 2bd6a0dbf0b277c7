// What the secret stores say when they fail, and the names they file secrets under: one place
// for the words the keychain, file and fallback stores (and the commands) share.
import { ConfigError } from '../errors.js';

export const KEYCHAIN_SERVICE = 'svc';

/** Storing a secret failed because the disk is full: names the file, so the user knows where to free space. */
export class DiskFullError extends ConfigError {}

/** A keychain entry, or an entry of credentials.json (`file`), that is still there after a delete. */
export interface SecretLeft {
  service: string;
  account: string;
  reason: string;
  /** How to remove it by hand on this platform. */
  remove_with: string;
  /** The credentials file that still holds it; absent: the keychain does. */
  file?: string;
}

/**
 * A delete that threw (credentials.json's lock held past the wait, a write that failed): the
 * secret is still there. `retried`: a delete announced in config.json, which a later command does again.
 */
export function leftByError(profile: string, name: string, error: unknown, retried = false): SecretLeft {
  const account = secretAccount(profile, name);
  const reason = (error as Error).message ?? String(error);
  if (!(error instanceof ConfigError)) return { service: KEYCHAIN_SERVICE, account, reason, remove_with: manualKeychainRemoval(account) };
  const byHand = `delete the "${account}" entry of ${error.path}`;
  return { service: KEYCHAIN_SERVICE, account, reason, file: error.path, remove_with: retried ? `svc tries again at its next command, or ${byHand}` : byHand };
}

export function manualKeychainRemoval(account: string, platform: string = process.platform): string {
  if (platform === 'darwin') return `security delete-generic-password -s ${KEYCHAIN_SERVICE} -a '${account}'`;
  if (platform === 'win32') return `remove the generic credential "${account}.${KEYCHAIN_SERVICE}" in Credential Manager`;
  return `secret-tool clear service ${KEYCHAIN_SERVICE} username '${account}'`;
}

/** The warning for a SecretLeft: the entry, why, and the command that removes it. */
export function describeLeft(left: SecretLeft): string {
  if (left.file) return `the secret ${left.account} in ${left.file} could not be deleted (${left.reason}); it is still there: ${left.remove_with}`;
  return `the keychain entry ${left.account} (service ${left.service}) could not be deleted (${left.reason}); it still holds the secret. Remove it by hand: ${left.remove_with}`;
}

/** What every keychain failure suggests (docs/design.md: errors name the next step). */
export const KEYCHAIN_HINT =
  'unlock or start the OS keychain (on Linux: gnome-keyring or another Secret Service), or set SVC_CREDENTIAL_STORE=file to use credentials.json, or pass a key in SVC_API_KEY';

/** The OS keychain of this platform, as its users know it. */
export function keychainName(platform: string = process.platform): string {
  if (platform === 'darwin') return 'the macOS Keychain';
  if (platform === 'win32') return 'Windows Credential Manager';
  return 'the Secret Service (GNOME Keyring, KWallet)';
}

export function secretAccount(profile: string, name: string): string {
  return `${profile}:${name}`;
}

/** The addon's errors where there is no Secret Service at all: no session bus, or nothing serving the secrets API on it. */
export const NO_SECRET_SERVICE = /DBUS_SESSION_BUS_ADDRESS|autolaunch|org\.freedesktop\.secrets|ServiceUnknown/;

/** A keychain failure that means there is no keychain here at all (explained()'s words, or the addon's). */
export const NO_SECRET_SERVICE_HERE = new RegExp(`there is no Secret Service|${NO_SECRET_SERVICE.source}`);

/**
 * A keychain failure in a few words, and its cause in a line of its own (a cause shown
 * only with --debug would leave nothing to act on); the addon's full words are for --debug.
 */
export function keychainTrouble(reason: string): { short: string; cause: string } {
  const timeout = /did not answer within ([\d.]+ s) \([^;)]*(?:; ([^)]*))?\)/.exec(reason);
  if (timeout) return { short: 'the OS keychain did not answer', cause: `${timeout[2] ?? 'the OS keychain'} did not answer within ${timeout[1]}` };
  if (/no Secret Service|DBUS_SESSION_BUS_ADDRESS|org\.freedesktop\.secrets|ServiceUnknown/.test(reason))
    return {
      short: 'no OS keychain',
      cause: /DBUS_SESSION_BUS_ADDRESS|autolaunch/.test(reason)
        ? 'there is no D-Bus session bus'
        : 'nothing serves the Secret Service on the D-Bus session bus',
    };
  // D-Bus's own reply timeout (a stopped daemon, or one waiting on a prompt nobody sees).
  if (/Did not receive a reply/.test(reason))
    return {
      short: 'the OS keychain did not answer',
      cause: 'the Secret Service did not reply on the D-Bus session bus (a stopped or hung keyring daemon, or a prompt nobody sees)',
    };
  // gnome-keyring with no keyring yet: reads answer, a write finds no default collection to go in.
  if (/Secret Service: no result found/.test(reason))
    return {
      short: 'the OS keychain failed',
      cause: 'the Secret Service has no default keyring to write to (create or unlock one, e.g. in Passwords and Keys)',
    };
  const cause = reason.replace(/^the OS keychain failed \([^)]*\): /, '').split('\n')[0]!;
  return { short: 'the OS keychain failed', cause: cause.length > 160 ? `${cause.slice(0, 159)}…` : cause };
}

/** EACCES/EPERM on a config file: name it and say to fix its permissions. */
export function permissionHint(error: unknown, path: string): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM')
    return `fix the permissions of ${path} (it must be readable and writable by you: chmod 600 ${path}), or point SVC_CONFIG_DIR elsewhere`;
  return undefined;
}
