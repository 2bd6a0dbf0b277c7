// `svc profiles …`: one line per leaf (its declaration and the module that runs it).
import { defineGroup, leaf } from '../../kit/define.js';
import * as list from './list.js';
import * as remove from './remove.js';

export default defineGroup({
  name: 'profiles',
  summary: 'the profiles on this machine: list them, remove one',
  examples: ['svc profiles list', 'svc profiles remove old --revoke'],
  commands: [leaf(list.command, () => import('./list.js')), leaf(remove.command, () => import('./remove.js'))],
});
