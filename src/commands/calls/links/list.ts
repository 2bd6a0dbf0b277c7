// `svc calls links list [--limit N] [--all]`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../../kit/define.js';
import type { Context } from '../../../context.js';
import { type ListFlags, parseListFlags } from '../../../kit/list-flags.js';
import { fetchList } from '../../../kit/resources.js';
import { type Link, linkColumns, timeFormat } from '../../../kit/views.js';
import { listResult, type CommandResult } from '../../../kit/result.js';

export type LinksListOptions = ListFlags;

export const command = defineCommand({
  mcp: 'read',
  tool: { title: 'List join links', does: 'Lists join links, newest first.', returns: { list: true, id: 'link_' } },
  summary: 'list links',
  flags: {
    limit: { value: '<n>', kind: { type: 'integer', min: 1, max: 100 }, help: 'at most N links' },
    all: { help: 'every link' },
    cursor: { value: '<cursor>', help: 'the next page: the cursor a page with more ended with', conflicts: 'all' },
  },
  examples: ['svc calls links list'],
  scopes: ['calls:read'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): LinksListOptions {
  return parseListFlags(flags);
}

export async function run(opts: LinksListOptions, ctx: Context): Promise<CommandResult> {
  const links = await fetchList<Link>(ctx, 'links.list', opts);
  return listResult(links, linkColumns(timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
