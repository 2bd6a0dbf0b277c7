// Sign-ins cut short by a kill. `svc login` records itself in config.json before it exchanges
// the code (the profile, the server, the client id, the time: no secret), so tokens it stored
// and never recorded are never without a name: the next command finds the entry of a login
// that no longer runs, and settles it. Tokens issued to a profile that already held this
// organization's sign-in at this address are kept (that sign-in's own pair was replaced by
// them); any other's are revoked at the service and deleted, so no connection stays open that
// nothing here holds. What was done is returned in words for the command to say.
import type { ConfigData, SignInInFlight } from '../config/config.js';
import { OAUTH_SECRET_NAME } from '../config/config.js';
import { processRuns } from '../files/process.js';
import { lazyRequire } from '../node-require.js';
import { ENDPOINTS, joinUrl } from '../contract/endpoints.js';
import { profileAddress, sameOrigin } from '../credentials/origin.js';
import { withCredentialTransaction, type ProfileTransaction, type TransactionDeps } from '../credentials/transaction.js';
import type { HttpTransport } from '../api/http.js';
import { clientOf, fetchOf, parseStored, type StoredOAuth } from './stored.js';
import { revokeToken } from './tokens.js';

/** An entry of another machine (a shared config dir) is settled once this old. */
const FOREIGN_ENTRY_MS = 10 * 60_000;

export function signInEntry(profile: string, baseUrl: string, clientId: string, now: number): SignInInFlight {
  return {
    profile,
    base_url: baseUrl,
    client_id: clientId,
    pid: process.pid,
    host: lazyRequire('node:os').hostname(),
    started_at: new Date(now).toISOString(),
  };
}

function same(a: SignInInFlight, b: SignInInFlight): boolean {
  return a.profile === b.profile && a.pid === b.pid && a.started_at === b.started_at;
}

export function addSignIn(config: ConfigData, entry: SignInInFlight): void {
  (config.sign_ins_in_flight ??= []).push(entry);
}

export function dropSignIn(config: ConfigData, entry: SignInInFlight): void {
  config.sign_ins_in_flight = (config.sign_ins_in_flight ?? []).filter((e) => !same(e, entry));
  if (config.sign_ins_in_flight.length === 0) delete config.sign_ins_in_flight;
}

/** The login of this entry no longer runs. */
export function abandonedSignIn(entry: SignInInFlight, now: number): boolean {
  if (entry.host === lazyRequire('node:os').hostname()) return entry.pid !== process.pid && !processRuns(entry.pid);
  return now - Date.parse(entry.started_at) > FOREIGN_ENTRY_MS;
}

/** A login of this profile still running (another command waits for it: it holds the profile's lock). */
export function signInRunning(config: ConfigData, profile: string, now: number): boolean {
  return (config.sign_ins_in_flight ?? []).some((entry) => entry.profile === profile && !abandonedSignIn(entry, now));
}

export interface SettleDeps extends TransactionDeps {
  http: HttpTransport;
  signal: AbortSignal;
  clock: { now(): number };
}

/** Settles the entries of logins that no longer run; what was done, one sentence each. Cheap when config.json has none. */
export async function settleSignIns(deps: SettleDeps, config: ConfigData): Promise<string[]> {
  const said: string[] = [];
  const now = deps.clock.now();
  for (const entry of config.sign_ins_in_flight ?? []) {
    if (!abandonedSignIn(entry, now)) continue;
    const line = await withCredentialTransaction(deps, entry.profile, (tx) => settleOne(deps, tx, entry));
    if (line) said.push(line);
  }
  return said;
}

async function settleOne(deps: SettleDeps, tx: ProfileTransaction, entry: SignInInFlight): Promise<string | null> {
  const config = await tx.config();
  // Settled meanwhile by another command.
  if (!(config.sign_ins_in_flight ?? []).some((e) => same(e, entry))) return null;
  const name = `profile "${entry.profile}"`;
  const profile = config.profiles[entry.profile];
  const where = profile?.oauth?.storage;
  let stored: StoredOAuth | null = null;
  try {
    const text = await tx.getSecret(OAUTH_SECRET_NAME, where);
    stored = text === null ? null : parseStored(text, entry.profile);
  } catch {
    // Unreadable (a keychain that did not answer): left for a later command, entry and all.
    return `a sign-in of ${name} cut short at ${entry.started_at} could not be checked (its stored tokens could not be read); the next command tries again`;
  }
  const recorded = stored !== null && profile?.oauth?.expires_at === stored.expires_at && profile.oauth.client_id === stored.client_id;
  if (stored === null || recorded) {
    await tx.updateConfig((data) => dropSignIn(data, entry));
    return (
      `a sign-in of ${name} started at ${entry.started_at} was cut short before it stored anything` +
      (recorded ? '; the profile keeps its earlier sign-in' : "; had it been approved, an admin can disconnect the app in the organization's connected apps")
    );
  }
  // The profile already held this organization's sign-in here: the new pair replaced it, and is kept.
  if (profile?.oauth && profile.org_id === stored.org_id && sameOrigin(profileAddress(profile), entry.base_url)) {
    const kept = stored;
    await tx.updateConfig((data) => {
      const meta = data.profiles[entry.profile]?.oauth;
      if (meta) {
        Object.assign(meta, { client_id: kept.client_id, scopes: kept.scope.split(' ').filter(Boolean), expires_at: kept.expires_at });
        delete meta.ended_at;
        delete meta.ended_reason;
        delete meta.refresh_started_at;
      }
      dropSignIn(data, entry);
    });
    return `a sign-in of ${name} started at ${entry.started_at} was cut short after it stored its tokens: they are kept, and the profile uses them`;
  }
  const failure = await revokeStored(deps, stored, entry.base_url);
  if (failure)
    return `a sign-in of ${name} cut short at ${entry.started_at} left tokens that could not be revoked (${failure}); they stay stored, and the next command tries again`;
  await tx.deleteSecret(OAUTH_SECRET_NAME, where);
  await tx.updateConfig((data) => {
    // A profile whose sign-in of another organization (or address) the new pair replaced: that sign-in is gone.
    const meta = data.profiles[entry.profile];
    if (meta?.oauth) delete meta.oauth;
    dropSignIn(data, entry);
  });
  return `a sign-in of ${name} started at ${entry.started_at} was cut short before it was recorded: its tokens were revoked at the service and deleted here${profile?.oauth ? ' (with them, the sign-in they had replaced)' : ''}; run svc login${entry.profile === 'default' ? '' : ` --profile ${entry.profile}`} to sign in`;
}

/** RFC 7009 at the login's own address; the failure in words, or null. */
async function revokeStored(deps: SettleDeps, stored: StoredOAuth, baseUrl: string): Promise<string | null> {
  const endpoint = stored.revocation_endpoint ?? joinUrl(baseUrl, ENDPOINTS['oauth.revoke'].path).href;
  if (!sameOrigin(endpoint, baseUrl)) return `its revocation endpoint is not on ${baseUrl}`;
  try {
    await revokeToken(fetchOf(deps), endpoint, clientOf(stored), { value: stored.refresh_token, hint: 'refresh_token' }, deps.signal);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
