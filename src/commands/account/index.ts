// `svc account` (itself a command) and its subcommands.
import { defineGroup, leaf } from '../../kit/define.js';
import * as show from '../account.js';
import * as balance from './balance.js';
import * as prices from './prices.js';

export default defineGroup({
  name: 'account',
  summary: 'the organization, mode, credential, scopes and balance',
  examples: ['svc account', 'svc account balance', 'svc account prices --json'],
  self: leaf(show.command, () => import('../account.js')),
  commands: [leaf(balance.command, () => import('./balance.js')), leaf(prices.command, () => import('./prices.js'))],
});
