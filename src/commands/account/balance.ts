// `svc account balance`: the prepaid balance of the organization.
import type { Context } from '../../context.js';
import { money, printObject } from '../../io/output.js';
import type { Balance } from './types.js';

export type AccountBalanceOptions = Record<string, never>;

export function parse(_args: string[], _flags: Record<string, unknown>): AccountBalanceOptions {
  return {};
}

export async function run(_opts: AccountBalanceOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const balance = await api.request<Balance>({ endpoint: 'balance.get' });
  if (!ctx.globals.json && !ctx.io.stdout.isTTY) {
    // Piped: the figure alone, in cents, for scripts.
    ctx.io.stdout.write(`${balance.available}\t${balance.currency}\n`);
    return;
  }
  await printObject(
    ctx,
    [
      ['available', money(balance.available, balance.currency)],
      ['mode', balance.livemode ? 'live' : 'test'],
    ],
    balance,
  );
  if (!ctx.globals.json && !balance.livemode) ctx.io.stderr.write('(test mode is never billed)\n');
}
