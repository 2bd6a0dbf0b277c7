// `svc events …`: one line per leaf (its declaration and the module that runs it).
import { defineGroup, leaf } from '../../kit/define.js';
import * as tail from './tail.js';
import * as list from './list.js';
import * as get from './get.js';
import * as trigger from './trigger.js';
import * as replay from './replay.js';

export default defineGroup({
  name: 'events',
  summary: "the organization's live event stream",
  examples: ['svc events tail', 'svc events tail --type call. --json'],
  commands: [
    leaf(tail.command, () => import('./tail.js')),
    leaf(list.command, () => import('./list.js')),
    leaf(get.command, () => import('./get.js')),
    leaf(trigger.command, () => import('./trigger.js')),
    leaf(replay.command, () => import('./replay.js')),
  ],
});
