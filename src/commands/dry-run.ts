// `--dry-run` on billable live commands: print the request that would be sent and the
// unit price it would draw (from GET /v1/prices), send nothing, exit 0. Test mode is
// never billed, and says so.
import type { Context } from '../context.js';
import type { EndpointName, ListPage } from '../api/endpoints.js';
import { ENDPOINTS, fillPath } from '../api/endpoints.js';
import { orgLabel } from '../credentials/confirmed.js';
import { money } from '../io/money.js';
import { printJson } from '../io/output.js';
import type { Price } from './account/types.js';

export interface PlannedRequest {
  endpoint: EndpointName;
  params?: Record<string, string>;
  body?: Record<string, unknown>;
  /** The /v1/prices item this operation draws. */
  item: 'call_minute' | 'dial_minute' | 'translation_character' | 'line_month';
}

const UNIT: Record<PlannedRequest['item'], string> = {
  call_minute: 'per call minute',
  dial_minute: 'per dialled minute',
  translation_character: 'per translated character',
  line_month: 'per line per month',
};

export async function printDryRun(ctx: Context, plan: PlannedRequest): Promise<void> {
  const api = await ctx.api();
  const { method, path } = ENDPOINTS[plan.endpoint];
  const request = { method, path: fillPath(path, plan.params), body: plan.body ?? null };
  const billed = api.credential.mode === 'live';
  let price: Price | null = null;
  let priceError: string | undefined;
  if (billed) {
    try {
      const prices = await api.request<ListPage<Price>>({ endpoint: 'prices.list' });
      price = prices.data.find((p) => p.item === plan.item) ?? null;
      if (!price) priceError = `the service lists no price for ${plan.item}`;
    } catch (error) {
      // A least-privilege key may not read prices (account:read): still show the request.
      priceError = `the price could not be read: ${(error as Error).message}`;
    }
  }
  if (ctx.globals.json) {
    printJson(ctx, {
      dry_run: true,
      mode: api.credential.mode,
      request,
      billed,
      price: price ? { item: price.item, unit_amount: price.unit_amount, currency: price.currency } : null,
    });
    return;
  }
  const org = orgLabel(api.credential);
  const lines = [`${request.method} ${request.path}`, ...(plan.body ? [JSON.stringify(plan.body, null, 2)] : [])];
  lines.push(
    !billed
      ? 'price: free (test mode is never billed)'
      : price
        ? `price: ${money(price.unit_amount, price.currency)} ${UNIT[plan.item]}, billed to ${org} (live mode)`
        : `price: unknown (${priceError})`,
  );
  ctx.io.stdout.write(lines.join('\n') + '\n');
  ctx.io.stderr.write('dry run: nothing was sent\n');
}
