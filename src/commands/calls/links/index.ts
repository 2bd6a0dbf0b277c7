// `svc calls links …`: the group's help, and its commands (this folder's files) in help order.
import { defineGroup } from '../../../kit/define.js';

export const group = defineGroup({
  summary: 'join links for calls',
  examples: ['svc calls links list', 'svc calls links create --call call_123'],
  order: ['list', 'create'],
});
