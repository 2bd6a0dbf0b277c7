// The emulator's whole world, as plain data. Routes change it only through the small
// operations in this folder; reset() empties it and plants the seed.
import { CLI_CLIENT_ID, CLI_REDIRECT_PATH, ID_PREFIX, PREFIX, SCOPES } from '../contract/constants.js';
import type { Mode, Scope } from '../contract/constants.js';
import type { AdvancingClock } from './clock.js';
import type { BoundAddress } from './address.js';
import { randomBytes } from 'node:crypto';
import { hashPassword, lastSecondRfc3339, newId, randomToken, sha256 } from './ids.js';
import { TrackedMap } from './persistence/tracked.js';
import { subcentsOf } from '../contract/money.js';
import type { ChangeSink } from './persistence/tracked.js';

// The records it holds are records.ts's, named here too for its many readers.
export type * from './records.js';
import type {
  Org,
  User,
  ApiKey,
  App,
  Grant,
  AuthCode,
  AccessToken,
  RefreshToken,
  CallObject,
  ParticipantObject,
  LinkObject,
  LineObject,
  ChatObject,
  MessageObject,
  Stored,
  EmulatorEvent,
  EventLog,
  Subscriber,
  Approval,
  Fault,
  IdempotentEntry,
  Stats,
  Seed,
  Session,
  AuthorizeRequest,
} from './records.js';

/** Where a `--state FILE` emulator writes its changes (persistence/journal.ts); null in memory only. */
export interface StateJournal extends ChangeSink {
  /** The world was emptied (POST /_emulator/reset). */
  reset(): void;
  /** An event was published into the log `org_id:mode`. */
  event(logKey: string, event: EmulatorEvent): void;
  /** Runs one request and writes what it changed before its answer leaves. */
  request(changesState: boolean, handle: () => Promise<void>): Promise<void>;
}

/** The bounds that keep the emulator's memory flat under abuse. */
export interface Limits {
  /** Unsent text a stream may hold for a client that does not read before it is disconnected (sse.ts: ×4 for a slow reader). */
  streamBacklogChars: number;
  /** Authorize-page sessions and pending authorize requests kept at most (oldest dropped first). */
  authorizeSessions: number;
  authorizeRequests: number;
  /**
   * A request's headers must arrive within `headersMs` and the whole request (body too) within
   * `requestMs`, as a real service bounds them (Node's own default waits 300 s for a body that
   * stopped half-way). What the server sends back, a long-lived event stream too, is not bounded.
   */
  headersMs: number;
  requestMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  streamBacklogChars: 8 * 1024 * 1024,
  authorizeSessions: 10_000,
  authorizeRequests: 10_000,
  headersMs: 10_000,
  requestMs: 30_000,
};

export interface State {
  clock: AdvancingClock;
  /** rfc3339 for event times, its last second remembered (ids.ts). */
  eventTime: (ms: number) => string;
  keepaliveMs: number;
  limits: Limits;
  journal: StateJournal | null;
  /** Set once the server listens: the Host names it answers and the base of its metadata (guards.ts). */
  address: BoundAddress | null;
  seq: number;
  orgs: Map<string, Org>;
  users: Map<string, User>;
  keys: Map<string, ApiKey>;
  keysByHash: Map<string, ApiKey>;
  apps: Map<string, App>;
  grants: Map<string, Grant>;
  codes: Map<string, AuthCode>;
  accessTokens: Map<string, AccessToken>;
  refreshTokens: Map<string, RefreshToken>;
  calls: Map<string, Stored<CallObject>>;
  participants: Map<string, Stored<ParticipantObject>>;
  links: Map<string, Stored<LinkObject>>;
  lines: Map<string, Stored<LineObject>>;
  chats: Map<string, Stored<ChatObject>>;
  messages: Map<string, Stored<MessageObject>>;
  eventLogs: Map<string, EventLog>;
  subscribers: Set<Subscriber>;
  approvals: Approval[];
  faults: Fault[];
  /** Creates' Idempotency-Keys, by credential and key (idempotency.ts). */
  idempotency: Map<string, IdempotentEntry>;
  rateWindows: Map<string, { start: number; count: number }>;
  sessions: Map<string, Session>;
  authorizeRequests: Map<string, AuthorizeRequest>;
  stats: Stats;
  /**
   * The dashboard's session secret (its CSRF tokens and signed notices derive from it). A
   * --state file keeps it, so a tab opened before a restart still submits; not part of the
   * world: never exported, kept across a reset.
   */
  sessionSecret: Buffer;
  /** The seed of the latest reset; null when the world was loaded from a state file or a fixture (its keys were shown once, when made). */
  seed: Seed | null;
}

export const EVENT_RETENTION = 10_000;
export const SEED_ADMIN = { email: 'admin@acme.test', password: 'acme-admin' } as const;
export const SEED_BALANCE_CENTS = 10_000;

export function createState(
  clock: AdvancingClock,
  keepaliveMs: number,
  opts: { limits?: Partial<Limits>; journal?: StateJournal | null; seed?: boolean } = {},
): State {
  const state = {
    clock,
    eventTime: lastSecondRfc3339(),
    keepaliveMs,
    limits: { ...DEFAULT_LIMITS, ...opts.limits },
    journal: opts.journal ?? null,
    address: null,
    subscribers: new Set<Subscriber>(),
    sessionSecret: randomBytes(32),
  } as State;
  if (opts.seed === false) empty(state);
  else reset(state);
  return state;
}

/** The collections a state file keeps, by the name the journal and the export document use. */
export const PERSISTED = {
  orgs: 'orgs',
  users: 'users',
  keys: 'keys',
  apps: 'apps',
  grants: 'grants',
  codes: 'codes',
  accessTokens: 'access_tokens',
  refreshTokens: 'refresh_tokens',
  calls: 'calls',
  participants: 'participants',
  links: 'links',
  lines: 'lines',
  chats: 'chats',
  messages: 'messages',
  idempotency: 'idempotency_keys',
} as const;
export type PersistedCollection = keyof typeof PERSISTED;

/** Empties the world, ending open streams; the seed is planted by reset(), a loaded world by the loader. */
export function empty(state: State): void {
  for (const subscriber of [...state.subscribers]) subscriber.end();
  state.subscribers.clear();
  const journal = state.journal;
  journal?.reset();
  const collection = <V>(name: string): Map<string, V> => (journal ? TrackedMap.create<V>(name, journal) : new Map<string, V>());
  const collections = Object.fromEntries(Object.entries(PERSISTED).map(([field, name]) => [field, collection(name)]));
  Object.assign(state, collections, {
    seq: 0,
    seed: null,
    keysByHash: new Map(),
    eventLogs: new Map(),
    approvals: [],
    faults: [],
    rateWindows: new Map(),
    sessions: new Map(),
    authorizeRequests: new Map(),
    stats: { requests: 0, tokens_issued: 0, refreshes: 0, refresh_reuse: 0, rate_limited: 0 },
  });
}

/** Empties the world (ending open streams) and plants the seed (docs/contract.md "Seed"). */
export function reset(state: State): Seed {
  empty(state);
  const { org } = createOrg(state, 'Acme', SEED_BALANCE_CENTS, { ...SEED_ADMIN });
  const test = createKey(state, org.id, 'test', [...SCOPES]).key;
  const live = createKey(state, org.id, 'live', [...SCOPES]).key;
  state.apps.set(CLI_CLIENT_ID, {
    client_id: CLI_CLIENT_ID,
    name: 'svc CLI',
    redirect_uris: [`http://127.0.0.1${CLI_REDIRECT_PATH}`],
    secret_hash: null,
  });
  const seed: Seed = {
    org_id: org.id,
    org_name: org.name,
    admin: { ...SEED_ADMIN },
    keys: { test, live },
    cli_client_id: CLI_CLIENT_ID,
  };
  state.seed = seed;
  return seed;
}

export function nextSeq(state: State): number {
  return ++state.seq;
}

export function createOrg(
  state: State,
  name: string,
  /** In cents, exact to a subcent (1/10,000 of a cent). */
  balanceCents: number,
  admin?: { email: string; password: string },
): { org: Org; admin: { email: string; password: string | null } } {
  const org: Org = { id: newId(ID_PREFIX.org), name, balance_subcents: subcentsOf(balanceCents) };
  state.orgs.set(org.id, org);
  const account = admin ?? { email: `admin+${org.id.slice(4, 12).toLowerCase()}@${slug(name)}.test`, password: randomToken(9) };
  const user = state.users.get(account.email) ?? {
    email: account.email,
    password_scrypt: hashPassword(account.password),
    password: account.password,
    orgs: new Set<string>(),
  };
  user.orgs.add(org.id);
  state.users.set(user.email, user);
  // An existing admin read from a state file or an import keeps a password this run never saw.
  return { org, admin: { email: user.email, password: user.password ?? null } };
}

function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'org'
  );
}

export function createKey(state: State, orgId: string, mode: Mode, scopes: Scope[], name?: string): { id: string; key: string } {
  const key = (mode === 'live' ? PREFIX.liveKey : PREFIX.testKey) + randomToken(24);
  const record: ApiKey = {
    id: newId(ID_PREFIX.key),
    org_id: orgId,
    mode,
    scopes,
    hash: sha256(key),
    revoked: false,
    ...(name ? { name } : {}),
    last4: key.slice(-4),
    created_at: state.clock.now(),
  };
  state.keys.set(record.id, record);
  state.keysByHash.set(record.hash, record);
  return { id: record.id, key };
}

/** Ends open streams whose credential stopped working (revoked, expired, disconnected). */
export function endUnauthorizedStreams(state: State): void {
  for (const subscriber of [...state.subscribers]) {
    if (!subscriber.authorized()) subscriber.end();
  }
}

/** Disconnects an app from an organization (revoke, org action) or from every org (clientId deleted). */
export function endGrants(state: State, match: (grant: Grant) => boolean): number {
  let ended = 0;
  for (const grant of state.grants.values()) {
    if (grant.active && match(grant)) {
      grant.active = false;
      ended++;
    }
  }
  endUnauthorizedStreams(state);
  return ended;
}
