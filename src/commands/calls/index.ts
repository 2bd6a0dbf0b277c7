// `svc calls …`: the group's help, and its commands and subgroups (this folder's files and folders) in help order.
import { defineGroup } from '../../kit/define.js';

export const group = defineGroup({
  summary: 'interpreted calls, links and phone lines',
  examples: ['svc calls list --status active', 'svc calls start --languages en,es', 'svc calls links create --call call_123'],
  order: ['list', 'get', 'start', 'end', 'dial', 'links', 'lines'],
});
