// `svc account prices`: what each billable operation costs.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import type { ListPage } from '../../contract/endpoints.js';
import { money } from '../../io/money.js';
import type { Price } from '../../kit/account-types.js';
import { listResult, type CommandResult } from '../../kit/result.js';

export type AccountPricesOptions = Record<string, never>;

export const command = defineCommand({
  mcp: 'read',
  tool: { title: 'List prices', does: 'The price of each billable operation, in dollars.', idempotent: true, returns: { list: true } },
  summary: 'prices of billable operations',
  examples: ['svc account prices'],
  scopes: ['account:read'],
});

export function parse(_args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): AccountPricesOptions {
  return {};
}

const UNITS: Record<string, string> = {
  call_minute: 'per call minute',
  dial_minute: 'per dialled minute',
  translation_character: 'per translated character',
  line_month: 'per line per month',
};

export async function run(_opts: AccountPricesOptions, ctx: Context): Promise<CommandResult> {
  const api = await ctx.api();
  const page = await api.request<ListPage<Price>>({ endpoint: 'prices.list' });
  // An array, like every list's --json.
  return listResult(page.data, [
    { header: 'ITEM', value: (p) => p.item },
    // In dollars, exactly, on a terminal and piped alike; --json keeps the API's cents.
    { header: 'PRICE', value: (p) => money(p.unit_amount, p.currency) },
    { header: 'UNIT', value: (p) => UNITS[p.item] ?? '' },
  ]);
}

export default commandModule({ command, parse, run });
