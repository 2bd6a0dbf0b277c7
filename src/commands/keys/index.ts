// `svc keys …`: the group's help; its commands are this folder's files, listed alphabetically.
import { defineGroup } from '../../kit/define.js';

export const group = defineGroup({
  summary: 'API keys stored for the profile',
  examples: ['svc keys add', 'svc keys list', 'svc keys remove ci'],
});
