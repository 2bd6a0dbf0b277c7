// `svc mcp [--allow-write] [--live --max-spend DOLLARS]`: svc as an MCP server on stdio, for AI
// assistants (Claude Code, Cursor, VS Code). Its tools are the commands whose declarations say
// `mcp` (server.ts, tools.ts); test mode and read-only unless the user says otherwise.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import type { Context } from '../context.js';
import type { RootSpec, RunInProcess } from '../kit/define.js';
import { centsToUnits } from '../mcp/budget.js';
import { keepNurseryAtItsStartingSize } from '../mcp/nursery.js';
import type { ServeOptions } from '../mcp/server.js';

export const command = defineCommand({
  summary: 'serve svc to AI assistants over MCP (stdio): test mode and read-only tools unless told otherwise',
  flags: {
    allowWrite: { help: 'add the tools that change objects (never billed): start/end calls, chats, links' },
    maxSpend: {
      value: '<dollars>',
      kind: { type: 'money' },
      help: 'live sessions (--live): the most the tools may spend, e.g. 5; each call is priced first, 0 refuses all',
    },
    confirmOver: {
      value: '<dollars>',
      kind: { type: 'money' },
      help: 'live sessions: a billed call priced above this is put to you in the assistant (MCP elicitation) first; clients that cannot ask are refused',
    },
  },
  examples: [
    'svc mcp',
    'svc mcp --allow-write',
    'svc mcp --live --max-spend 5',
    'svc mcp --live --max-spend 5 --confirm-over 0.50',
    'claude mcp add svc -- svc mcp',
  ],
  notes:
    'Every tool call is a line of the audit log (svc mcp log). Live billed tools appear only with --live --max-spend; keys, profiles, sign-in and the emulator are never tools.',
  scopes: [],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ServeOptions {
  const opts: ServeOptions = { allowWrite: flags.allowWrite === true };
  if (flags.maxSpend !== undefined) opts.maxSpend = centsToUnits(flags.maxSpend);
  if (flags.confirmOver !== undefined) opts.confirmOver = centsToUnits(flags.confirmOver);
  return opts;
}

export async function run(opts: ServeOptions, ctx: Context, tree: RootSpec, runInProcess: RunInProcess): Promise<void> {
  const { serve } = await import('../mcp/server.js');
  keepNurseryAtItsStartingSize();
  await serve(opts, ctx, tree, runInProcess);
}

/** Stdin closing ends the session; Ctrl-C too, as a success. */
export const stopsOnInterrupt = true;

export default commandModule({ command, parse, run, stopsOnInterrupt });
