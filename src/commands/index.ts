// svc itself: its summary, examples, notes and global flags (src/shared/globals.ts), and the
// order help lists the top-level commands in. The commands are the files and folders beside
// this one (src/kit/manifest.ts walks them), each at its command line's path.
import { defineRoot, type FlagSpecs } from '../kit/define.js';
import { GLOBAL_FLAGS } from '../shared/globals.js';

export const root = defineRoot({
  summary: 'Calls, chats and interpretation for your organization, from the command line.',
  examples: [
    'svc login',
    'svc keys add --name ci < key.txt',
    'svc calls start --languages en,es',
    'svc --test translate "hello" --to es',
    'svc events tail --json',
  ],
  notes:
    'Environment: SVC_API_KEY, SVC_PROFILE, SVC_MODE, SVC_BASE_URL, SVC_CONFIG_DIR, SVC_CREDENTIAL_STORE, SVC_CLIENT_ID/SVC_CLIENT_SECRET (svc login with your own OAuth app), NO_COLOR, HTTPS_PROXY/HTTP_PROXY/NO_PROXY, SVC_HTTP_TIMEOUT (seconds a request may take; default 60)',
  globals: GLOBAL_FLAGS satisfies FlagSpecs,
  order: [
    'login',
    'logout',
    'auth',
    'keys',
    'mode',
    'account',
    'calls',
    'chats',
    'translate',
    'events',
    'api',
    'mcp',
    'completion',
    '__complete',
    'profiles',
    'doctor',
    'version',
    'help',
    'emulator',
  ],
});
