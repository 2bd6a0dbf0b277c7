// `svc account balance`: the prepaid balance of the organization.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { money } from '../../io/money.js';
import type { Balance } from '../../kit/account-types.js';
import { objectResult, textResult, type CommandResult } from '../../kit/result.js';

export type AccountBalanceOptions = Record<string, never>;

export const command = defineCommand({
  mcp: 'read',
  tool: { title: 'Get the balance', does: "The organization's prepaid balance, in dollars.", returns: {} },
  summary: 'the prepaid balance',
  examples: ['svc account balance', 'svc --live account balance --json'],
  scopes: ['account:read'],
});

export function parse(_args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): AccountBalanceOptions {
  return {};
}

export async function run(_opts: AccountBalanceOptions, ctx: Context): Promise<CommandResult> {
  const api = await ctx.api();
  const balance = await api.request<Balance>({ endpoint: 'balance.get' });
  if (!ctx.globals.json && !ctx.io.stdout.isTTY) {
    // Piped: the figure alone, in dollars as everywhere else (--json keeps the API's cents).
    return textResult(balance, money(balance.available, balance.currency));
  }
  return objectResult(
    balance,
    [
      ['available', money(balance.available, balance.currency)],
      ['mode', balance.livemode ? 'live' : 'test'],
    ],
    { after: !ctx.globals.json && !balance.livemode ? '(test mode is never billed)' : undefined },
  );
}

export default commandModule({ command, parse, run });
