// `svc auth …`: one line per leaf (its declaration and the module that runs it).
import { defineGroup, leaf } from '../../kit/define.js';
import * as status from './status.js';
import * as token from './token.js';
import * as switchProfile from './switch.js';

export default defineGroup({
  name: 'auth',
  summary: 'show and manage the stored credentials',
  examples: ['svc auth status', 'svc auth switch work'],
  commands: [
    leaf(status.command, () => import('./status.js')),
    leaf(token.command, () => import('./token.js')),
    leaf(switchProfile.command, () => import('./switch.js')),
  ],
});
