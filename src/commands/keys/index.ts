// `svc keys …`: one line per leaf (its declaration and the module that runs it).
import { defineGroup, leaf } from '../../kit/define.js';
import * as add from './add.js';
import * as list from './list.js';
import * as remove from './remove.js';

export default defineGroup({
  name: 'keys',
  summary: 'API keys stored for the profile',
  examples: ['svc keys add', 'svc keys list', 'svc keys remove ci'],
  commands: [leaf(add.command, () => import('./add.js')), leaf(list.command, () => import('./list.js')), leaf(remove.command, () => import('./remove.js'))],
});
