// Facts of service-spec.md and api-contract.md that both the CLI and the emulator rely on.
// The emulator imports nothing from the CLI but this folder.

/** service-spec.md §2, "Scopes (exact values)". */
export const SCOPES = [
  'calls:read',
  'calls:write',
  'sessions:read',
  'sessions:write',
  'translate',
  'events:read',
  'account:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export type Mode = 'test' | 'live';

/** service-spec.md §2: credential prefixes. */
export const PREFIX = {
  liveKey: 'svc_live_',
  testKey: 'svc_test_',
  clientId: 'svc_app_',
  clientSecret: 'svc_cs_',
  accessToken: 'svc_oat_',
  refreshToken: 'svc_ort_',
} as const;

/** api-contract.md "Conventions": object id prefixes. */
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

/** api-contract.md "Events". */
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

/** The CLI's own public OAuth app, seeded in the emulator (api-contract.md "Seed"). */
export const CLI_CLIENT_ID = 'svc_app_cli';
export const CLI_REDIRECT_PATH = '/callback';

/** service-spec.md §8. */
export const LIMITS = {
  requestsPerMinute: 600,
  authorizationCodeSeconds: 600,
  accessTokenSeconds: 3600,
} as const;

export const DEFAULT_EMULATOR_PORT = 4010;

/** The mode an API key works in, from its prefix; null when it is not a key. */
export function modeOfKey(key: string): Mode | null {
  if (key.startsWith(PREFIX.liveKey)) return 'live';
  if (key.startsWith(PREFIX.testKey)) return 'test';
  return null;
}
