// `svc calls get ID`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';

import { call } from '../../kit/resources.js';
import { type Call, callFields, timeFormat } from '../../kit/views.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

export interface CallsGetOptions {
  id: string;
}

export const command = defineCommand({
  mcp: 'read',
  tool: { title: 'Get a call', does: 'One call by its id: status, languages, participants.', returns: { id: 'call_' } },
  summary: 'show one call',
  args: [{ name: 'id', help: 'call id (call_…)', required: true, kind: { type: 'id', prefix: 'call_' } }],
  examples: ['svc calls get call_123'],
  scopes: ['calls:read'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): CallsGetOptions {
  return { id: args[0] };
}

export async function run(opts: CallsGetOptions, ctx: Context): Promise<CommandResult> {
  const found = await call<Call>(ctx, 'calls.get', { params: { id: opts.id } });
  return objectResult(found, callFields(found, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
