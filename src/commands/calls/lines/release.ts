// `svc calls lines release ID`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../../kit/define.js';
import type { Context } from '../../../context.js';

import { call } from '../../../kit/resources.js';
import { type Line, lineFields, timeFormat } from '../../../kit/views.js';
import { objectResult, type CommandResult } from '../../../kit/result.js';

export interface LinesReleaseOptions {
  id: string;
}

export const command = defineCommand({
  mcp: 'write',
  tool: {
    title: 'Release a phone line',
    does: 'Gives up a rented phone line for good: its number is lost.',
    destructive: true,
    idempotent: true,
    returns: { id: 'line_' },
  },
  summary: 'release a phone line',
  args: [{ name: 'id', help: 'line id (line_…)', required: true, kind: { type: 'id', prefix: 'line_' } }],
  examples: ['svc calls lines release line_123'],
  scopes: ['calls:write'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): LinesReleaseOptions {
  return { id: args[0] };
}

export async function run(opts: LinesReleaseOptions, ctx: Context): Promise<CommandResult> {
  const line = await call<Line>(ctx, 'lines.release', { params: { id: opts.id } });
  return objectResult(line, lineFields(line, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
