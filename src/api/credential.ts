// What the API client knows of a credential: how to send it and how to name it in a
// message. src/credentials/ resolves it (ResolvedCredential extends this); the API layer
// sits below the credentials and imports nothing of them.
import type { Mode } from '../contract/constants.js';

export interface ApiCredential {
  kind: 'api_key' | 'oauth';
  /** `env` for SVC_API_KEY; `profile` for a stored credential. */
  source: 'env' | 'profile';
  mode: Mode;
  profileName: string;
  baseUrl: string;
  /** The key itself (API keys only; an OAuth token is fetched per request through the client's `accessToken`). */
  apiKey?: string;
  /** The key's metadata name (stored keys only). */
  keyName?: string;
  /** The other mode, when the profile also holds a credential for it: a 404 may be an object of that mode. */
  otherMode?: Mode;
}
