// Overview page action: an organization's new balance.
import { money } from '../../../contract/money.js';
import { setOrgBalance } from '../../routes/control.js';
import { integer } from './action.js';
import type { Action } from './action.js';

export const balanceAction: Action = {
  path: '/orgs/:org/balance',
  back: '/',
  handle: ({ state, form, param }) => {
    const balance = setOrgBalance(state, param('org'), integer(form, 'available'));
    return {
      notice: `The balance of ${state.orgs.get(param('org'))?.name ?? 'the organization'} is now ${money(balance.available, balance.currency)}.`,
    };
  },
};
