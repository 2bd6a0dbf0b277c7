// `svc account balance`: the prepaid balance of the organization.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { money } from '../../io/money.js';
import { printObject } from '../../io/output.js';
import type { Balance } from '../../kit/account-types.js';

export type AccountBalanceOptions = Record<string, never>;

export const command = defineCommand({
  name: 'balance',
  mcp: 'read',
  tool: { title: 'Get the balance', does: "The organization's prepaid balance, in dollars.", returns: {} },
  summary: 'the prepaid balance',
  examples: ['svc account balance', 'svc --live account balance --json'],
  scopes: ['account:read'],
});

export function parse(_args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): AccountBalanceOptions {
  return {};
}

export async function run(_opts: AccountBalanceOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const balance = await api.request<Balance>({ endpoint: 'balance.get' });
  if (!ctx.globals.json && !ctx.io.stdout.isTTY) {
    // Piped: the figure alone, in dollars as everywhere else (--json keeps the API's cents).
    ctx.io.stdout.write(`${money(balance.available, balance.currency)}\n`);
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

export default commandModule({ command, parse, run });
