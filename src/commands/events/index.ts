// `svc events …`: the group's help, and its commands (this folder's files) in help order.
import { defineGroup } from '../../kit/define.js';

export const group = defineGroup({
  summary: "the organization's live event stream",
  examples: ['svc events tail', 'svc events tail --type call. --json'],
  order: ['tail', 'list', 'get', 'trigger', 'replay'],
});
