// `svc calls lines …`: the group's help, and its commands (this folder's files) in help order.
import { defineGroup } from '../../../kit/define.js';

export const group = defineGroup({
  summary: 'phone lines',
  examples: ['svc calls lines list', 'svc calls lines add --country US --area-code 415'],
  order: ['list', 'add', 'release'],
});
