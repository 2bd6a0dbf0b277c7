// Facts of docs/contract.md that both the CLI and the emulator rely on:
// credentials, scopes, ids, event types and limits. The emulator imports nothing from the
// CLI but src/contract/.

/** docs/contract.md "Credentials and scopes". */
export const SCOPES = ['calls:read', 'calls:write', 'sessions:read', 'sessions:write', 'translate', 'events:read', 'account:read'] as const;
export type Scope = (typeof SCOPES)[number];

export type Mode = 'test' | 'live';

/** docs/contract.md "Credentials and scopes": credential prefixes. */
export const PREFIX = {
  liveKey: 'svc_live_',
  testKey: 'svc_test_',
  clientId: 'svc_app_',
  clientSecret: 'svc_cs_',
  /** The tokens the emulator issues; the CLI takes any token as opaque (src/auth/tokens.ts). */
  accessToken: 'svc_oat_',
  refreshToken: 'svc_ort_',
} as const;

/** docs/contract.md "Conventions": object id prefixes. */
export const ID_PREFIX = {
  call: 'call_',
  link: 'link_',
  line: 'line_',
  participant: 'part_',
  chat: 'chat_',
  message: 'msg_',
  event: 'evt_',
  org: 'org_',
  key: 'key_',
} as const;

/** docs/contract.md "Events". */
export const EVENT_TYPES = [
  'call.started',
  'call.ended',
  'call.participant.dialed',
  'link.created',
  'line.created',
  'line.released',
  'chat.started',
  'chat.message.created',
  'chat.closed',
  'translation.created',
  'balance.updated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The CLI's own public OAuth app, seeded in the emulator (docs/contract.md "Seed"). */
export const CLI_CLIENT_ID = 'svc_app_cli';
export const CLI_REDIRECT_PATH = '/callback';

/** docs/contract.md "Limits": every number both sides must agree on. */
export const LIMITS = {
  requestsPerMinute: 600,
  authorizationCodeSeconds: 600,
  accessTokenSeconds: 3600,
  /** Lists: `?limit=` 1–100, default 20 (docs/contract.md "Conventions"). */
  listLimitMax: 100,
  listLimitDefault: 20,
  /** Translations and chat messages: at most 5,000 characters (Unicode code points). */
  textCharacters: 5000,
  /** Titles and subjects. */
  labelCharacters: 200,
  /** POST /v1/chats/{id}/voice: at most 10 MiB of audio. */
  voiceBytes: 10 * 1024 * 1024,
  /** JSON request bodies the service reads. */
  jsonBodyBytes: 1024 * 1024,
  /**
   * E.164 (ITU-T): at most 15 digits, country code included. At least 7: the shortest
   * numbers in service (Niue, Tokelau: +683 4002) have 7; fewer is a fragment.
   */
  e164DigitsMin: 7,
  e164DigitsMax: 15,
  /** Phone line area codes: 2–5 digits (e.g. 415; some countries use up to 5). */
  areaCodeDigitsMin: 2,
  areaCodeDigitsMax: 5,
  /** POST /v1/links `expires_in`, seconds: one minute to thirty days. */
  linkExpiresMinSeconds: 60,
  linkExpiresMaxSeconds: 30 * 86400,
  /** Events retained for resume and GET /v1/events, per organization and mode. */
  eventsRetained: 10_000,
  /** POST /_emulator/clock: at most ten years at once. */
  clockAdvanceMaxSeconds: 315_360_000,
} as const;

export const DEFAULT_EMULATOR_PORT = 4010;
/** The address `svc emulator` listens on unless --host says another. */
export const DEFAULT_EMULATOR_HOST = '127.0.0.1';

/** The mode an API key works in, from its prefix; null when it is not a key. */
export function modeOfKey(key: string): Mode | null {
  if (key.startsWith(PREFIX.liveKey)) return 'live';
  if (key.startsWith(PREFIX.testKey)) return 'test';
  return null;
}
