// A profile's mode (svc help modes): stored when the profile gets its first
// credential (that credential's mode), and changed only by `svc mode`; --test/--live and
// SVC_MODE override it for one command. A credential added or removed never switches it
// (else removing a test key would silently turn a script's free calls into billed ones).
import type { Profile } from '../config/config.js';
import type { Mode } from '../contract/constants.js';

/** Whether the profile holds a credential usable in `mode` (live: the OAuth connection or a live key). */
export function hasCredentialFor(profile: Profile | undefined, mode: Mode): boolean {
  if (mode === 'live' && profile?.oauth) return true;
  return Object.values(profile?.keys ?? {}).some((key) => key.mode === mode);
}

/**
 * The mode of a profile that has none stored (a config.json from before the rule): the one it
 * ran in then, implied by its credentials, test first.
 */
export function impliedMode(profile: Profile | undefined): Mode {
  return !hasCredentialFor(profile, 'test') && hasCredentialFor(profile, 'live') ? 'live' : 'test';
}

/**
 * Called on a profile (inside a config.json update) about to gain or lose a credential: its
 * mode is fixed before the change, so the change never switches it. A profile with no
 * credential yet takes the mode of the one it gets (`added`); one from before the rule keeps
 * the mode it ran in. Either is stored as implied: only `svc mode` makes it a choice.
 */
export function keepModeThroughChange(profile: Profile, added?: Mode): void {
  if (profile.mode) return;
  const hasAny = profile.oauth !== undefined || Object.keys(profile.keys ?? {}).length > 0;
  const mode = hasAny ? impliedMode(profile) : added;
  if (!mode) return;
  profile.mode = mode;
  profile.mode_implied = true;
}
