// `svc account`'s subcommands (`svc account` itself is account.ts): the group's help; its commands are this folder's files, listed alphabetically.
import { defineGroup } from '../../kit/define.js';

export const group = defineGroup({
  summary: 'the organization, mode, credential, scopes and balance',
  examples: ['svc account', 'svc account balance', 'svc account prices --json'],
});
