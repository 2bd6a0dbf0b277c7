// `svc auth …`: the group's help, and its commands (this folder's files) in help order.
import { defineGroup } from '../../kit/define.js';

export const group = defineGroup({
  summary: 'show and manage the stored credentials',
  examples: ['svc auth status', 'svc auth switch work'],
  order: ['status', 'token', 'switch'],
});
