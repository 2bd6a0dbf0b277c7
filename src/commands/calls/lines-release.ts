// `svc calls lines release ID`
import type { Context } from '../../context.js';
import { parseId } from '../../validate/index.js';
import { type Flags, requiredArg, validated } from './shared.js';
import { call } from '../shared/resources.js';
import { printObject } from '../../io/output.js';
import { type Line, lineFields, timeFormat } from './views.js';

export interface LinesReleaseOptions {
  id: string;
}

export function parse(args: string[], _flags: Flags): LinesReleaseOptions {
  const id = requiredArg(args, 0, 'phone line ID', 'svc calls lines release line_8f2a1c');
  return { id: validated(() => parseId(id, 'line')) };
}

export async function run(opts: LinesReleaseOptions, ctx: Context): Promise<void> {
  const line = await call<Line>(ctx, 'lines.release', { params: { id: opts.id } });
  await printObject(ctx, lineFields(line, timeFormat(ctx)), line);
}
