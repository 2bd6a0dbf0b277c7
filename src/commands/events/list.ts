// `svc events list [--type T]… [--limit N | --all]`: the retained history (GET /v1/events),
// newest first, as the other lists are.
import { commandModule, defineCommand, repeated, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { type ListFlags, parseListFlags } from '../../kit/list-flags.js';
import { fetchList } from '../../kit/resources.js';
import { timeColumn, timeFormat } from '../../kit/views.js';
import { parseTypePattern, serverTypeParams, type TypePattern } from '../../events/filter.js';
import { type ApiEvent, summarize } from '../../events/format.js';
import { listResult, type CommandResult } from '../../kit/result.js';

export interface EventsListOptions extends ListFlags {
  types: TypePattern[];
}

export function parseTypes(value: unknown): TypePattern[] {
  const types: TypePattern[] = [];
  for (const raw of repeated(value).flatMap((t) => t.split(','))) {
    const pattern = parseTypePattern(raw);
    if ('error' in pattern) throw new UsageError(pattern.error);
    types.push(pattern);
  }
  return types;
}

export const command = defineCommand({
  mcp: 'read',
  tool: {
    title: 'List events',
    does: 'The retained events (the newest 10,000), newest first.',
    closed: { type: 'event_pattern' },
    returns: { list: true, id: 'evt_' },
  },
  summary: 'the retained events, newest first',
  flags: {
    type: { value: '<type>', repeatable: true, help: 'only this type or family (repeatable), e.g. call.*' },
    limit: { value: '<n>', kind: { type: 'integer', min: 1, max: 100 }, help: 'at most N events (1–100, default 20)' },
    all: { help: 'every retained event, following pages' },
    cursor: { value: '<cursor>', help: 'the next page: the cursor a page with more ended with', conflicts: 'all' },
  },
  examples: ['svc events list', 'svc events list --type chat.* --limit 50', 'svc events list --all --json'],
  scopes: ['events:read'],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): EventsListOptions {
  if (args.length > 0) throw new UsageError('events list takes no arguments', 'filter with --type, e.g. --type call.*');
  return { ...parseListFlags(flags), types: parseTypes(flags.type) };
}

export async function run(opts: EventsListOptions, ctx: Context): Promise<CommandResult> {
  const type = serverTypeParams(opts.types);
  const events = await fetchList<ApiEvent>(ctx, 'events.list', opts, { query: type.length ? { type } : {} });
  const time = timeFormat(ctx);
  return listResult(events, [
    { header: 'ID', value: (e) => e.id },
    { header: 'TYPE', value: (e) => e.type },
    { header: 'SUMMARY', value: (e) => summarize(e), shrink: 12 },
    timeColumn('CREATED', time, (e) => e.created_at),
  ]);
}

export default commandModule({ command, parse, run });
