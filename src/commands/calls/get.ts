// `svc calls get ID`
import type { Context } from '../../context.js';
import { parseId } from '../../validate/index.js';
import { type Flags, requiredArg, validated } from './shared.js';
import { call } from '../shared/resources.js';
import { printObject } from '../../io/output.js';
import { type Call, callFields, timeFormat } from './views.js';

export interface CallsGetOptions {
  id: string;
}

export function parse(args: string[], _flags: Flags): CallsGetOptions {
  const id = requiredArg(args, 0, 'call ID', 'svc calls get call_8f2a1c');
  return { id: validated(() => parseId(id, 'call')) };
}

export async function run(opts: CallsGetOptions, ctx: Context): Promise<void> {
  const found = await call<Call>(ctx, 'calls.get', { params: { id: opts.id } });
  await printObject(ctx, callFields(found, timeFormat(ctx)), found);
}
