// `svc calls lines release ID`
import { defineCommand, type ArgsOf, type FlagsOf } from '../define.js';
import type { Context } from '../../context.js';
import { parseId } from '../../validate/index.js';
import { type Flags, requiredArg, validated } from './shared.js';
import { call } from '../shared/resources.js';
import { printObject } from '../../io/output.js';
import { type Line, lineFields, timeFormat } from './views.js';

export interface LinesReleaseOptions {
  id: string;
}

export const command = defineCommand({
  name: 'release',
  summary: 'release a phone line',
  args: [{ name: 'id', help: 'line id (line_…)', required: true }],
  examples: ['svc calls lines release line_123'],
  scopes: ['calls:write'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): LinesReleaseOptions {
  const id = requiredArg(args, 0, 'phone line ID', 'svc calls lines release line_8f2a1c');
  return { id: validated(() => parseId(id, 'line')) };
}

export async function run(opts: LinesReleaseOptions, ctx: Context): Promise<void> {
  const line = await call<Line>(ctx, 'lines.release', { params: { id: opts.id } });
  await printObject(ctx, lineFields(line, timeFormat(ctx)), line);
}
