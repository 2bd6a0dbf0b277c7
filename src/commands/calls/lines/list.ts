// `svc calls lines list [--limit N] [--all]`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../../kit/define.js';
import type { Context } from '../../../context.js';
import { type ListFlags, parseListFlags } from '../../../kit/list-flags.js';
import { fetchList } from '../../../kit/resources.js';
import { type Line, lineColumns, timeFormat } from '../../../kit/views.js';
import { listResult, type CommandResult } from '../../../kit/result.js';

export type LinesListOptions = ListFlags;

export const command = defineCommand({
  mcp: 'read',
  tool: { title: 'List phone lines', does: 'Lists the rented phone lines.', returns: { list: true, id: 'line_' } },
  summary: 'list phone lines',
  flags: {
    limit: { value: '<n>', kind: { type: 'integer', min: 1, max: 100 }, help: 'at most N lines' },
    all: { help: 'every line' },
    cursor: { value: '<cursor>', help: 'the next page: the cursor a page with more ended with', conflicts: 'all' },
  },
  examples: ['svc calls lines list'],
  scopes: ['calls:write'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): LinesListOptions {
  return parseListFlags(flags);
}

export async function run(opts: LinesListOptions, ctx: Context): Promise<CommandResult> {
  const lines = await fetchList<Line>(ctx, 'lines.list', opts);
  return listResult(lines, lineColumns(timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
