// What the emulator's world holds, as plain data: its organizations, users, keys, apps and
// their grants and tokens, the resource objects the API shows, the event logs and streams,
// and the control plane's arrangements. state.ts makes the world of them and changes it.
import type { Mode, Scope } from '../contract/constants.js';

export interface Org {
  id: string;
  name: string;
  /**
   * Prepaid balance in whole subcents, 1/10,000 of a cent (src/contract/money.ts: centsOf gives
   * the cents the API shows), so every price is drawn exactly. Live mode only; test mode is never billed.
   */
  balance_subcents: number;
}

export interface User {
  email: string;
  /** `scrypt:<salt>:<hash>`: what the state, its file and every export keep. */
  password_scrypt: string;
  /** The password itself, in memory only and only in the run that made it (never persisted). */
  password?: string;
  /** Ids of the organizations this user administers. */
  orgs: Set<string>;
}

export interface ApiKey {
  id: string;
  org_id: string;
  mode: Mode;
  scopes: Scope[];
  /** sha256 of the key: the key itself is never kept (docs/contract.md "Authentication" 4). */
  hash: string;
  revoked: boolean;
  /** What the dashboard shows of a key (docs/contract.md: the key itself is shown once, when made). Absent on keys imported without them. */
  name?: string | null;
  last4?: string;
  created_at?: number;
  /** When a request last authenticated with the key (emulator ms), for the API keys page. */
  last_used_at?: number;
}

export interface App {
  client_id: string;
  name: string;
  redirect_uris: string[];
  /** sha256 of the client secret; null for a public client (PKCE only). */
  secret_hash: string | null;
}

/** One connection of an app to an organization, made by one code exchange. */
export interface Grant {
  id: string;
  client_id: string;
  org_id: string;
  scopes: Scope[];
  active: boolean;
  created_at: number;
}

export interface AuthCode {
  client_id: string;
  redirect_uri: string;
  org_id: string;
  scopes: Scope[];
  code_challenge: string;
  issued_at: number;
  used: boolean;
  /** The grant this code's exchange made, so that a replay can revoke it (RFC 6749 §4.1.2). */
  grant_id: string | null;
}

export interface AccessToken {
  grant_id: string;
  /** The grant's scopes, or fewer when a refresh asked for fewer (RFC 6749 §6). */
  scopes: Scope[];
  expires_at: number;
  revoked: boolean;
}

export interface RefreshToken {
  grant_id: string;
  used: boolean;
}

/** Fields every object has (docs/contract.md "Conventions"). */
export interface ObjectBase {
  id: string;
  object: string;
  livemode: boolean;
  created_at: string;
}

export interface CallObject extends ObjectBase {
  status: 'active' | 'ended';
  languages: string[];
  title: string | null;
  ended_at: string | null;
  /** Why it ended (src/emulator/calls.ts ENDED_REASON); null while active. Absent on calls kept before it was recorded. */
  ended_reason?: string | null;
}

export interface ParticipantObject extends ObjectBase {
  call_id: string;
  phone: string;
  language: string;
  line_id: string | null;
  status: 'ringing';
}

export interface LinkObject extends ObjectBase {
  url: string;
  call_id: string | null;
  language: string | null;
  expires_at: string;
}

export interface LineObject extends ObjectBase {
  number: string;
  country: string;
  status: 'active' | 'released';
}

export interface ChatObject extends ObjectBase {
  status: 'open' | 'closed';
  language: string;
  subject: string | null;
}

export interface MessageObject extends ObjectBase {
  chat_id: string;
  kind: 'text' | 'voice';
  text: string;
  language: string;
  translation: { language: string; text: string } | null;
  transcript: string | null;
}

/** A resource object as the API shows it, plus who owns it. */
export interface Stored<T extends { id: string; livemode: boolean }> {
  org_id: string;
  seq: number;
  obj: T;
}

export interface EmulatorEvent {
  readonly seq: number;
  readonly id: string;
  readonly type: string;
  /** The event object serialized once, shared by every list and stream. */
  readonly json: string;
  /** The same event as one SSE frame (docs/contract.md "Events", Stream). */
  readonly frame: string;
  /** The event's `data` object, parsed from json when asked (not kept: a burst retains only its strings). */
  readonly data: unknown;
}

export interface EventLog {
  /** `org_id:mode`, the log's key in eventLogs and in a state file. */
  key: string;
  org_id: string;
  mode: Mode;
  events: EmulatorEvent[];
  /** The seq of the newest event trimmed from `events` (events.ts retain()), if any was. */
  trimmedThrough?: number;
}

export interface Subscriber {
  org_id: string;
  mode: Mode;
  onEvent(event: EmulatorEvent): void;
  /** Whether the credential that opened the stream still works. */
  authorized(): boolean;
  end(): void;
}

export interface Approval {
  email: string;
  org_id: string;
  decision: 'approve' | 'deny';
}

export interface Fault {
  path_prefix: string;
  /** Fails the request with this status… */
  status?: 429 | 502;
  /** …or handles it and holds its answer this long (an answer slow to come back, or lost). */
  delay_ms?: number;
  /** Only requests of this method (default: any). */
  method?: string;
  remaining: number;
}

/** A create's Idempotency-Key as the service remembers it (idempotency.ts). */
export interface IdempotentEntry {
  /** What the request was: its method, path and body's digest. */
  fingerprint: string;
  /** When it was first received (emulator ms). */
  at: number;
  /** Its answer, once given; undefined while it is being handled. */
  answer?: { status: number; body: string; contentType: string };
}

export interface Stats {
  requests: number;
  tokens_issued: number;
  refreshes: number;
  refresh_reuse: number;
  rate_limited: number;
}

export interface Seed {
  org_id: string;
  org_name: string;
  admin: { email: string; password: string };
  keys: { test: string; live: string };
  cli_client_id: string;
}

export interface Session {
  csrf: string;
  email: string | null;
  created_at: number;
}

/** A pending authorize request, referred to by the sign-in and consent forms. */
export interface AuthorizeRequest {
  client_id: string;
  redirect_uri: string;
  scopes: Scope[];
  state: string | null;
  code_challenge: string;
  created_at: number;
}
