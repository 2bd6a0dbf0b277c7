// The command tree: svc's global flags and its top-level commands, in help order.
// A new top-level command or group is an export under its name here and its place in
// ROOT.commands; a group's leaves are listed in its own index.ts. Everything imported here is declaration data (the `command` export of
// each module); a command's code loads only through its `leaf(…, () => import(…))`.
import { leaf, type FlagSpecs, type RootSpec } from '../cli/define.js';
import * as loginModule from './login.js';
import * as logoutModule from './logout.js';
import * as modeModule from './mode/mode.js';
import * as translateModule from './translate.js';
import * as apiModule from './api/request.js';
import * as completionModule from './completion/print.js';
import * as completeModule from './completion/complete.js';
import * as emulatorModule from './emulator/start.js';
import * as doctorModule from './doctor/doctor.js';
import * as versionModule from './version.js';
import * as helpModule from './help.js';
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

// Each top-level command, exported under its own name: a command's start file imports its
// own alone, and the others drop out of it (scripts/bundle.mjs), these `leaf` calls as
// marked pure, the groups' index files as data.
export const login = /* @__PURE__ */ leaf(loginModule.command, () => import('./login.js'));
export const logout = /* @__PURE__ */ leaf(logoutModule.command, () => import('./logout.js'));
export const mode = /* @__PURE__ */ leaf(modeModule.command, () => import('./mode/mode.js'));
export const translate = /* @__PURE__ */ leaf(translateModule.command, () => import('./translate.js'));
export const api = /* @__PURE__ */ leaf(apiModule.command, () => import('./api/request.js'));
export const completion = /* @__PURE__ */ leaf(completionModule.command, () => import('./completion/print.js'));
export const __complete = /* @__PURE__ */ leaf(completeModule.command, () => import('./completion/complete.js'));
export const doctor = /* @__PURE__ */ leaf(doctorModule.command, () => import('./doctor/doctor.js'));
export const version = /* @__PURE__ */ leaf(versionModule.command, () => import('./version.js'));
export const help = /* @__PURE__ */ leaf(helpModule.command, () => import('./help.js'));
export const emulator = /* @__PURE__ */ leaf(emulatorModule.command, () => import('./emulator/start.js'));
export { auth, keys, account, calls, chats, events, profiles };

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
  commands: [login, logout, auth, keys, mode, account, calls, chats, translate, events, api, completion, __complete, profiles, doctor, version, help, emulator],
};
