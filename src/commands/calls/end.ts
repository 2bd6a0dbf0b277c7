// `svc calls end ID`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';

import { call } from '../../kit/resources.js';
import { type Call, callFields, timeFormat } from '../../kit/views.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

export interface CallsEndOptions {
  id: string;
}

export const command = defineCommand({
  mcp: 'write',
  tool: { title: 'End a call', does: 'Ends a running call for everyone in it.', destructive: true, idempotent: true, returns: { id: 'call_' } },
  summary: 'end a call',
  args: [{ name: 'id', help: 'call id', required: true, kind: { type: 'id', prefix: 'call_' } }],
  examples: ['svc calls end call_123'],
  scopes: ['calls:write'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): CallsEndOptions {
  return { id: args[0] };
}

export async function run(opts: CallsEndOptions, ctx: Context): Promise<CommandResult> {
  const ended = await call<Call>(ctx, 'calls.end', { params: { id: opts.id } });
  return objectResult(ended, callFields(ended, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
