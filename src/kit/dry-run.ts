// `--dry-run` on billable live commands: the command's result is the request that would be
// sent and the unit price it would draw (from GET /v1/prices); nothing is sent, exit 0. Test
// mode is never billed, and says so.
import type { Context } from '../context.js';
import type { ApiClient } from '../api/client.js';
import type { EndpointName, ListPage } from '../contract/endpoints.js';
import { ENDPOINTS, fillPath } from '../contract/endpoints.js';
import { orgLabel } from '../credentials/confirmed.js';
import { money } from '../io/money.js';
import type { DryRunResult, DryRunValue } from './result.js';
import type { Price } from './account-types.js';

/** The /v1/prices item each billable operation draws. */
export const PRICE_ITEM = {
  'calls.create': 'call_minute',
  'calls.dial': 'dial_minute',
  'lines.create': 'line_month',
  translate: 'translation_character',
  'chats.messages.create': 'translation_character',
} as const satisfies Partial<Record<EndpointName, string>>;
export type PricedEndpoint = keyof typeof PRICE_ITEM;
type PriceItem = (typeof PRICE_ITEM)[PricedEndpoint];

export interface PlannedRequest {
  endpoint: PricedEndpoint;
  params?: Record<string, string>;
  body?: Record<string, unknown>;
}

/** How a unit is said: in a sentence (dry run) and after a price (`$0.02/min`). */
const UNIT: Record<PriceItem, { words: string; per: string }> = {
  call_minute: { words: 'per call minute', per: '/min' },
  dial_minute: { words: 'per dialled minute', per: '/min' },
  translation_character: { words: 'per translated character', per: '/character' },
  line_month: { words: 'per line per month', per: '/month' },
};

/** The price an operation draws, as the service lists it (GET /v1/prices), or why it is not known. */
export async function priceOf(api: ApiClient, endpoint: PricedEndpoint): Promise<{ price: Price } | { error: string }> {
  const item = PRICE_ITEM[endpoint];
  try {
    const prices = await api.request<ListPage<Price>>({ endpoint: 'prices.list' });
    const price = prices.data.find((p) => p.item === item);
    return price ? { price } : { error: `the service lists no price for ${item}` };
  } catch (error) {
    // A least-privilege key may not read prices (account:read).
    return { error: `the price could not be read: ${(error as Error).message}` };
  }
}

/** `$0.02/min`: the price of an operation as a confirmation names it. */
export function perUnit(price: Price, endpoint: PricedEndpoint): string {
  return `${money(price.unit_amount, price.currency)}${UNIT[PRICE_ITEM[endpoint]].per}`;
}

/** `per translated character`: what one unit of an operation's price buys. */
export function unitWords(endpoint: PricedEndpoint): string {
  return UNIT[PRICE_ITEM[endpoint]].words;
}

/** A dry run's result: the request that would be sent and the price it would draw; nothing is sent. */
export async function dryRun(ctx: Context, plan: PlannedRequest): Promise<DryRunResult> {
  const api = await ctx.api();
  const { method, path } = ENDPOINTS[plan.endpoint];
  const request = { method, path: fillPath(path, plan.params), body: plan.body ?? null };
  const billed = api.credential.mode === 'live';
  // Prices a caller read already (svc mcp's session) are not asked for again: a dry run sends nothing.
  const known = ctx.knownPrices?.find((p) => p.item === PRICE_ITEM[plan.endpoint]);
  const priced = billed ? (known ? { price: known as Price } : await priceOf(api, plan.endpoint)) : undefined;
  const price = priced && 'price' in priced ? priced.price : null;
  const priceError = priced && 'error' in priced ? priced.error : undefined;
  const value: DryRunValue = {
    dry_run: true,
    mode: api.credential.mode,
    request,
    billed,
    price: price ? { item: price.item, unit_amount: price.unit_amount, currency: price.currency } : null,
  };
  const org = orgLabel(api.credential);
  const lines = [`${request.method} ${request.path}`, ...(plan.body ? [JSON.stringify(plan.body, null, 2)] : [])];
  lines.push(
    !billed
      ? 'price: free (test mode is never billed)'
      : price
        ? `price: ${money(price.unit_amount, price.currency)} ${UNIT[PRICE_ITEM[plan.endpoint]].words}, billed to ${org} (live mode)`
        : `price: unknown (${priceError})`,
  );
  return { kind: 'dry-run', value, lines };
}
