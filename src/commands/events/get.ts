// `svc events get ID`: one retained event. The API has no GET /v1/events/{id}
// (docs/contract.md), so this reads the retained history (GET /v1/events, 100 a page,
// newest first) until it finds the id: at most 100 requests for the 10,000 retained.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import type { ListPage } from '../../contract/endpoints.js';
import { LIST_LIMIT_MAX } from '../../contract/endpoints.js';
import { CliError, EXIT } from '../../errors.js';
import { displayJson } from '../../io/sanitize.js';

import { timeFormat } from '../../kit/views.js';
import { type ApiEvent, summarize } from '../../events/format.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

export interface EventsGetOptions {
  id: string;
}

export const command = defineCommand({
  mcp: 'read',
  tool: { title: 'Get an event', does: 'One retained event by its id.', returns: { id: 'evt_' } },
  summary: 'show one retained event',
  args: [{ name: 'id', help: 'event id (evt_…)', required: true, kind: { type: 'id', prefix: 'evt_' } }],
  examples: ['svc events get evt_123', 'svc events get evt_123 --json'],
  scopes: ['events:read'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): EventsGetOptions {
  return { id: args[0] };
}

export async function findEvent(ctx: Context, id: string): Promise<ApiEvent | undefined> {
  const api = await ctx.api();
  let cursor: string | null = null;
  do {
    const query: Record<string, string> = { limit: String(LIST_LIMIT_MAX) };
    if (cursor !== null) query.cursor = cursor;
    const page: ListPage<ApiEvent> = await api.request<ListPage<ApiEvent>>({ endpoint: 'events.list', query, signal: ctx.signal });
    const found = page.data.find((e) => e.id === id);
    if (found) return found;
    cursor = page.has_more ? page.next_cursor : null;
  } while (cursor !== null);
  return undefined;
}

export async function run(opts: EventsGetOptions, ctx: Context): Promise<CommandResult> {
  const event = await findEvent(ctx, opts.id);
  if (!event) {
    throw new CliError(
      `no event ${opts.id} among the events the service retains (the last 10,000 of this organization and mode)`,
      EXIT.notFound,
      'svc events list shows the retained ones; an event of the other mode needs --test or --live',
    );
  }
  const time = timeFormat(ctx);
  return objectResult(event, [
    ['id', event.id],
    ['type', event.type],
    ['created', time(event.created_at)],
    ['mode', event.livemode ? 'live' : 'test'],
    ['summary', summarize(event)],
    ['data', displayJson(event.data ?? null)],
  ]);
}

export default commandModule({ command, parse, run });
