// The command tree: svc's global flags and its top-level commands, in help order.
// A new top-level command or group is one line here; a group's leaves are listed in its
// own index.ts. Everything imported here is declaration data (the `command` export of
// each module); a command's code loads only through its `leaf(…, () => import(…))`.
import { leaf, type FlagSpecs, type RootSpec } from '../cli/define.js';
import * as login from './login.js';
import * as logout from './logout.js';
import * as mode from './mode/mode.js';
import * as translate from './translate.js';
import * as api from './api/request.js';
import * as completion from './completion/print.js';
import * as complete from './completion/complete.js';
import * as emulator from './emulator/start.js';
import * as doctor from './doctor/doctor.js';
import * as version from './version.js';
import * as help from './help.js';
import auth from './auth/index.js';
import keys from './keys/index.js';
import account from './account/index.js';
import calls from './calls/index.js';
import chats from './chats/index.js';
import events from './events/index.js';
import profiles from './profiles/index.js';

/** The flags every command takes (commander also recognises them after subcommands). */
export const GLOBAL_FLAGS = {
  profile: { value: '<name>', help: 'profile to use (env SVC_PROFILE; default: the default profile)' },
  test: { help: 'use test mode (the test key; free of charge)', conflicts: 'live' },
  live: { help: 'use live mode (OAuth sign-in, else the live key; billed)', conflicts: 'test' },
  json: { help: "print the API's JSON (NDJSON for streams)" },
  baseUrl: { value: '<url>', help: 'service address (env SVC_BASE_URL; default http://127.0.0.1:4010)' },
  debug: { help: 'print each request and response on stderr, credentials redacted' },
  color: { negate: true, help: 'no colour (also env NO_COLOR)' },
  yes: { short: '-y', help: 'skip the confirmation a billable live action asks on a terminal (without a terminal nothing is asked)' },
} as const satisfies FlagSpecs;

export const ROOT: RootSpec = {
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
  globals: GLOBAL_FLAGS,
  commands: [
    leaf(login.command, () => import('./login.js')),
    leaf(logout.command, () => import('./logout.js')),
    auth,
    keys,
    leaf(mode.command, () => import('./mode/mode.js')),
    account,
    calls,
    chats,
    leaf(translate.command, () => import('./translate.js')),
    events,
    leaf(api.command, () => import('./api/request.js')),
    leaf(completion.command, () => import('./completion/print.js')),
    leaf(complete.command, () => import('./completion/complete.js')),
    profiles,
    leaf(doctor.command, () => import('./doctor/doctor.js')),
    leaf(version.command, () => import('./version.js')),
    leaf(help.command, () => import('./help.js')),
    leaf(emulator.command, () => import('./emulator/start.js')),
  ],
};
