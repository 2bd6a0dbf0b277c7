// Overview page action: an organization's new balance, typed in dollars as the page shows it.
import { money } from '../../../contract/money.js';
import { setOrgBalance } from '../../routes/control.js';
import { InvalidField, text } from './action.js';
import type { Action, Form } from './action.js';

/** Dollar digits the emulator keeps: cents exact to 1/10,000 cent (api-contract.md "Billing") is six places of a dollar. */
const DOLLAR_PLACES = 6;

/**
 * `12.34` or `$1,000.5` as cents (1234, 100050), refused when it has more places than the
 * emulator keeps: a value that would be stored as something else is never taken.
 */
export function dollarsToCents(form: Form, name: string, label: string): number {
  const typed = text(form, name);
  const match = /^\$?(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d*))?$/.exec(typed.replace(/\s/g, ''));
  if (!match) throw new InvalidField(name, `${label}: an amount in dollars such as 12.34${typed ? `, not ${typed}` : ''}`);
  const whole = match[1]!.replace(/,/g, '');
  const places = match[2] ?? '';
  if (places.length > DOLLAR_PLACES) {
    throw new InvalidField(name, `${label}: at most ${DOLLAR_PLACES} decimal places ($0.000001 is 1/10,000 of a cent, the smallest amount kept)`);
  }
  // In millionths of a dollar (1/10,000 cent), then cents: the number the control plane takes.
  const millionths = BigInt(whole) * 10n ** BigInt(DOLLAR_PLACES) + BigInt(places.padEnd(DOLLAR_PLACES, '0') || '0');
  if (millionths > BigInt(Number.MAX_SAFE_INTEGER)) throw new InvalidField(name, `${label}: too large`);
  return Number(millionths) / 10_000;
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
