// `svc events …`: one line per leaf (its declaration and the module that runs it).
import { defineGroup, leaf } from '../../cli/define.js';
import * as tail from './tail.js';

export default defineGroup({
  name: 'events',
  summary: "the organization's live event stream",
  examples: ['svc events tail', 'svc events tail --type call. --json'],
  commands: [leaf(tail.command, () => import('./tail.js'))],
});
