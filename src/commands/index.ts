// The command tree: svc's global flags (src/shared/globals.ts) and its top-level commands, in
// help order. A new top-level command or group is a line here and its place in ROOT.commands;
// a group's leaves are listed in its own index.ts. The build makes the manifest from this tree
// (src/kit/manifest.ts, dist/manifest.json): a command line reads that, never this
// module, and loads one command's module; `leaf(…, () => import(…))` checks its types.
import { declaredLeaf, leaf, type FlagSpecs, type RootSpec } from '../kit/define.js';
import { GLOBAL_FLAGS } from '../shared/globals.js';
import * as loginModule from './login.js';
import * as logoutModule from './logout.js';
import * as modeModule from './mode.js';
import * as translateModule from './translate.js';
import * as apiModule from './api.js';
import * as completionModule from './completion.js';
import * as completeModule from './__complete.js';
import * as emulatorModule from './emulator.js';
import * as doctorModule from './doctor.js';
import * as versionModule from './version.js';
import * as helpModule from './help.js';
import auth from './auth/index.js';
import keys from './keys/index.js';
import account from './account/index.js';
import calls from './calls/index.js';
import chats from './chats/index.js';
import events from './events/index.js';
import profiles from './profiles/index.js';
import mcp from './mcp/index.js';

export { GLOBAL_FLAGS };

const login = leaf(loginModule.command, () => import('./login.js'));
const logout = leaf(logoutModule.command, () => import('./logout.js'));
const mode = leaf(modeModule.command, () => import('./mode.js'));
const translate = leaf(translateModule.command, () => import('./translate.js'));
const api = leaf(apiModule.command, () => import('./api.js'));
const completion = leaf(completionModule.command, () => import('./completion.js'));
const __complete = leaf(completeModule.command, () => import('./__complete.js'));
const doctor = leaf(doctorModule.command, () => import('./doctor.js'));
const version = leaf(versionModule.command, () => import('./version.js'));
const help = declaredLeaf(helpModule.command);
const emulator = leaf(emulatorModule.command, () => import('./emulator.js'));

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
  globals: GLOBAL_FLAGS satisfies FlagSpecs,
  commands: [
    login,
    logout,
    auth,
    keys,
    mode,
    account,
    calls,
    chats,
    translate,
    events,
    api,
    mcp,
    completion,
    __complete,
    profiles,
    doctor,
    version,
    help,
    emulator,
  ],
};
