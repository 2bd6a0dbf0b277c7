// Overview page action: an organization's new balance, typed in dollars as the page shows it.
import { centsOf, money, subcentsOf } from '../../../contract/money.js';
import { setOrgBalance } from '../../routes/control.js';
import { InvalidField, text } from './action.js';
import type { Action, Form } from './action.js';

/**
 * `12.34` or `$1,000.5` as cents (1234, 100050), read by the contract's one dollar rule, and
 * refused when finer than the emulator keeps (1/10,000 cent, docs/contract.md "Billing"): a
 * value that would be stored as something else is never taken.
 */
export function dollarsToCents(form: Form, name: string, label: string): number {
  const typed = text(form, name);
  const cents = /^\$?\d{1,3}(,\d{3})+(\.\d*)?$/.test(typed.trim()) ? centsOf(typed.trim().replace(/,/g, '')) : centsOf(typed.trim());
  if (cents === undefined) throw new InvalidField(name, `${label}: an amount in dollars such as 12.34${typed ? `, not ${typed}` : ''}`);
  if (Number.isNaN(subcentsOf(cents))) {
    throw new InvalidField(name, `${label}: at most 6 decimal places ($0.000001 is 1/10,000 of a cent, the smallest amount kept)`);
  }
  return cents;
}

export const balanceAction: Action = {
  path: '/orgs/:org/balance',
  back: '/',
  handle: ({ state, form, param }) => {
    const balance = setOrgBalance(state, param('org'), dollarsToCents(form, 'available', 'Balance'));
    return {
      notice: `The balance of ${state.orgs.get(param('org'))?.name ?? 'the organization'} is now ${money(balance.available, balance.currency)}.`,
    };
  },
};
