// The emulator's whole world as one JSON document a person can read and edit: what
// `--export` writes, `--import` reads, GET /_emulator/state answers, and what a state file's
// snapshot holds. Keys, client secrets, codes and tokens appear only as sha256 hashes, admin
// passwords only as scrypt hashes; a hand-written fixture (or an older document) may give a
// plaintext `key`, `client_secret` or `password`, hashed on import.
import { z } from 'zod';
import { SCOPES } from '../../contract/constants.js';
import { eventFromJson, eventLogByKey, retain, retained, seqOfEventId } from '../events.js';
import { hashPassword, sha256 } from '../ids.js';
import { PERSISTED } from '../state.js';
import type { IdempotentEntry, Org, PersistedCollection, State, User } from '../state.js';
import { centsAmount } from '../billing.js';
import { centsOfSubcents, subcentsOf } from '../../contract/money.js';
import { formatVersion } from '../../shared/format-version.js';
import { writeFileAtomicSync } from '../../files/atomic.js';

export const DOCUMENT_FORMAT = 'svc-emulator-state';
/** 2: creates' Idempotency-Keys are kept (`idempotency_keys`); a version 1 document is read as having none. */
export const DOCUMENT_VERSION = 2;

const id = z.string().min(1);
const scopes = z.array(z.enum(SCOPES));
const mode = z.enum(['test', 'live']);
const hash = z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex');
const time = z.number().int().min(0);

const rowSchemas = {
  // The balance as people read it, in cents (exact to a subcent); the state keeps subcents.
  orgs: z.strictObject({ id, name: z.string(), balance: centsAmount }),
  // Passwords as scrypt hashes; a document written before that (or by hand) gives `password` in clear, hashed on import.
  users: z
    .strictObject({
      email: id,
      password_scrypt: z
        .string()
        .regex(/^scrypt:[0-9a-f]+:[0-9a-f]{64}$/)
        .optional(),
      password: z.string().optional(),
      orgs: z.array(id),
    })
    .refine(
      (row) => (row.password_scrypt === undefined) !== (row.password === undefined),
      'give either password_scrypt or password (plaintext, hashed on import)',
    ),
  keys: z
    .strictObject({
      id,
      org_id: id,
      mode,
      scopes,
      hash: hash.optional(),
      key: z.string().min(1).optional(),
      revoked: z.boolean().default(false),
      name: z.string().max(200).nullable().optional(),
      last4: z.string().max(8).optional(),
      created_at: time.optional(),
      last_used_at: time.optional(),
    })
    .refine((row) => (row.hash === undefined) !== (row.key === undefined), 'give either hash or key (plaintext, hashed on import)'),
  apps: z
    .strictObject({
      client_id: id,
      name: z.string(),
      redirect_uris: z.array(z.string()).min(1),
      secret_hash: hash.nullable().optional(),
      client_secret: z.string().min(1).nullable().optional(),
    })
    .refine((row) => row.secret_hash === undefined || row.client_secret === undefined, 'give secret_hash or client_secret, not both'),
  grants: z.strictObject({ id, client_id: id, org_id: id, scopes, active: z.boolean(), created_at: time }),
  codes: z.strictObject({
    code_sha256: hash,
    client_id: id,
    redirect_uri: z.string(),
    org_id: id,
    scopes,
    code_challenge: z.string(),
    issued_at: time,
    used: z.boolean(),
    grant_id: id.nullable(),
  }),
  accessTokens: z.strictObject({ token_sha256: hash, grant_id: id, scopes, expires_at: time, revoked: z.boolean() }),
  refreshTokens: z.strictObject({ token_sha256: hash, grant_id: id, used: z.boolean() }),
  // A create's key as the service remembers it for 24 hours, with the answer it gave (src/emulator/idempotency.ts).
  idempotency: z.strictObject({
    id,
    fingerprint: hash,
    at: time,
    answer: z.strictObject({ status: z.number().int().min(200).max(499), body: z.string(), content_type: z.string() }).optional(),
  }),
} as const;

const resourceObject = z.looseObject({ id, object: z.string(), livemode: z.boolean(), created_at: z.string() });
const storedRow = z.strictObject({ org_id: id, seq: time, obj: resourceObject });
const eventObject = z.looseObject({
  object: z.literal('event'),
  id,
  type: z.string().min(1),
  created_at: z.string(),
  livemode: z.boolean(),
  data: z.unknown(),
});

const collectionsShape = Object.fromEntries(
  (Object.keys(PERSISTED) as PersistedCollection[]).map((field) => [
    PERSISTED[field],
    z.array(field in rowSchemas ? rowSchemas[field as keyof typeof rowSchemas] : storedRow).default([]),
  ]),
);

export const documentSchema = z.strictObject({
  format: z.literal(DOCUMENT_FORMAT),
  version: z.union([z.literal(1), z.literal(DOCUMENT_VERSION)]),
  exported_at: z.string().optional(),
  /** How far the emulator clock runs ahead of real time (POST /_emulator/clock). */
  clock_offset_ms: z.number().min(0).default(0),
  /** The last sequence number given out (ids of events, order of lists). */
  seq: time.default(0),
  ...collectionsShape,
  events: z.array(z.strictObject({ org_id: id, mode, events: z.array(eventObject) })).default([]),
});

export type StateDocument = Record<string, unknown> & { format: string; version: number; clock_offset_ms: number; seq: number };

export class InvalidDocumentError extends Error {}

/** A document or state file in a format newer than this svc's: refused by name, never rewritten. */
export class NewerFormatError extends InvalidDocumentError {
  constructor(
    readonly found: number,
    readonly newest: number,
  ) {
    super(`format version ${found}, written by a newer svc; this svc reads format versions up to ${newest}`);
  }
}

/** Throws NewerFormatError when `version` is a format newer than `newest`. */
export function refuseNewer(version: unknown, newest: number): void {
  const format = formatVersion(version, newest, newest);
  if (format.kind === 'newer') throw new NewerFormatError(format.version, newest);
}

/** The key under which each collection stores a row, and the row as the document shows it. */
const HASH_KEYED: Partial<Record<PersistedCollection, string>> = { codes: 'code_sha256', accessTokens: 'token_sha256', refreshTokens: 'token_sha256' };

export function encodeRow(field: PersistedCollection, key: string, value: unknown): unknown {
  const hashField = HASH_KEYED[field];
  if (hashField) return { [hashField]: key, ...(value as object) };
  if (field === 'orgs') {
    const { balance_subcents, ...org } = value as Org;
    return { ...org, balance: centsOfSubcents(balance_subcents) };
  }
  if (field === 'users') {
    const user = value as User;
    return { email: user.email, password_scrypt: user.password_scrypt, orgs: [...user.orgs] };
  }
  if (field === 'idempotency') {
    const { fingerprint, at, answer } = value as IdempotentEntry;
    return { id: key, fingerprint, at, ...(answer ? { answer: { status: answer.status, body: answer.body, content_type: answer.contentType } } : {}) };
  }
  return value;
}

/** A validated document row as the collection's [key, record]. */
export function decodeRow(field: PersistedCollection, row: Record<string, unknown>): [string, unknown] {
  const hashField = HASH_KEYED[field];
  if (hashField) {
    const { [hashField]: key, ...value } = row;
    return [String(key), value];
  }
  switch (field) {
    case 'users': {
      const { password, password_scrypt, orgs, ...rest } = row;
      const stored = typeof password === 'string' ? hashPassword(password) : String(password_scrypt);
      return [String(row.email), { ...rest, password_scrypt: stored, orgs: new Set(orgs as string[]) }];
    }
    case 'keys': {
      const { key, hash: given, ...rest } = row;
      const last4 = rest.last4 ?? (typeof key === 'string' ? key.slice(-4) : undefined);
      return [String(row.id), { ...rest, ...(last4 !== undefined ? { last4 } : {}), hash: typeof key === 'string' ? sha256(key) : given }];
    }
    case 'apps': {
      const { client_secret, secret_hash, ...rest } = row;
      const secretHash = typeof client_secret === 'string' ? sha256(client_secret) : ((secret_hash as string | null | undefined) ?? null);
      return [String(row.client_id), { ...rest, secret_hash: secretHash }];
    }
    case 'orgs': {
      const { balance, ...org } = row;
      return [String(row.id), { ...org, balance_subcents: subcentsOf(balance as number) }];
    }
    case 'grants':
      return [String(row.id), row];
    case 'idempotency': {
      const { id: key, answer, ...entry } = row as { id: string; answer?: { status: number; body: string; content_type: string } };
      return [key, { ...entry, ...(answer ? { answer: { status: answer.status, body: answer.body, contentType: answer.content_type } } : {}) }];
    }
    default:
      return [String((row.obj as { id: string }).id), row];
  }
}

/** Validates one row of a collection (a journal record), throwing InvalidDocumentError. */
export function parseRow(collection: string, row: unknown): [PersistedCollection, string, unknown] {
  const field = fieldOf(collection);
  const schema = field in rowSchemas ? rowSchemas[field as keyof typeof rowSchemas] : storedRow;
  const parsed = schema.safeParse(row);
  if (!parsed.success) throw new InvalidDocumentError(`${collection}: ${describe(parsed.error)}`);
  const [key, value] = decodeRow(field, parsed.data as Record<string, unknown>);
  return [field, key, value];
}

export function fieldOf(collection: string): PersistedCollection {
  const field = (Object.keys(PERSISTED) as PersistedCollection[]).find((f) => PERSISTED[f] === collection);
  if (!field) throw new InvalidDocumentError(`unknown collection ${JSON.stringify(collection)}`);
  return field;
}

function describe(error: z.ZodError): string {
  const issue = error.issues[0]!;
  return `${issue.path.length ? issue.path.join('.') : '(document)'}: ${issue.message}`;
}

/** The world as a document. */
export function exportDocument(state: State): StateDocument {
  const doc: StateDocument = {
    format: DOCUMENT_FORMAT,
    version: DOCUMENT_VERSION,
    exported_at: new Date(state.clock.now()).toISOString(),
    clock_offset_ms: state.clock.offsetMs(),
    seq: state.seq,
  };
  for (const field of Object.keys(PERSISTED) as PersistedCollection[]) {
    const map = state[field] as Map<string, unknown>;
    const rows: unknown[] = [];
    // Map.prototype.entries: reading for an export marks nothing for the journal.
    for (const [key, value] of Map.prototype.entries.call(map) as IterableIterator<[string, unknown]>) rows.push(encodeRow(field, key, value));
    doc[PERSISTED[field]] = rows;
  }
  doc.events = [...state.eventLogs].map(([logKey, log]) => {
    const [org_id, mode] = logKey.split(':');
    return { org_id, mode, events: retained(log).map((event) => JSON.parse(event.json) as unknown) };
  });
  return doc;
}

/** Validates a document (throwing InvalidDocumentError with the first problem's path) and fills an emptied state with it. */
export function importDocument(state: State, input: unknown): { orgs: number; keys: number; apps: number; events: number } {
  if (typeof input === 'object' && input !== null) refuseNewer((input as { version?: unknown }).version, DOCUMENT_VERSION);
  const parsed = documentSchema.safeParse(input);
  if (!parsed.success) throw new InvalidDocumentError(describe(parsed.error));
  const doc = parsed.data as Record<string, unknown> & {
    clock_offset_ms: number;
    seq: number;
    events: { org_id: string; mode: string; events: Record<string, unknown>[] }[];
  };
  let seq = doc.seq;
  for (const field of Object.keys(PERSISTED) as PersistedCollection[]) {
    const map = state[field] as Map<string, unknown>;
    for (const row of doc[PERSISTED[field]] as Record<string, unknown>[]) {
      const [key, value] = decodeRow(field, row);
      map.set(key, value);
      if (typeof row.seq === 'number') seq = Math.max(seq, row.seq);
    }
  }
  let events = 0;
  for (const log of doc.events) {
    const target = eventLogByKey(state, `${log.org_id}:${log.mode}`);
    let last = 0;
    for (const event of log.events) {
      const eventSeq = seqOfEventId(String(event.id));
      if (eventSeq === null || eventSeq <= last)
        throw new InvalidDocumentError(`events of ${log.org_id}:${log.mode}: ${String(event.id)} is not an event id in ascending order`);
      last = eventSeq;
      seq = Math.max(seq, eventSeq);
      retain(target, eventFromJson(eventSeq, String(event.id), String(event.type), JSON.stringify(event)));
      events++;
    }
  }
  state.seq = seq;
  state.clock.restoreOffset(doc.clock_offset_ms);
  rebuildIndexes(state);
  return { orgs: state.orgs.size, keys: state.keys.size, apps: state.apps.size, events };
}

/** keysByHash is derived from keys (the same records). */
export function rebuildIndexes(state: State): void {
  state.keysByHash.clear();
  for (const key of Map.prototype.values.call(state.keys) as IterableIterator<State['keys'] extends Map<string, infer V> ? V : never>) {
    state.keysByHash.set(key.hash, key);
  }
}

/** Writes a document a person can read (two-space JSON), atomically: temp file, fsync, rename (src/files/atomic.ts). */
export function writeDocumentFile(path: string, document: unknown): void {
  writeFileAtomicSync(path, `${JSON.stringify(document, null, 2)}\n`);
}
