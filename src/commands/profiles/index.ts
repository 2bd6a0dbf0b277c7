// `svc profiles …`: the group's help; its commands are this folder's files, listed alphabetically.
import { defineGroup } from '../../kit/define.js';

export const group = defineGroup({
  summary: 'the profiles on this machine: list them, remove one',
  examples: ['svc profiles list', 'svc profiles remove old --revoke'],
});
