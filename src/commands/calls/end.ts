// `svc calls end ID`
import { defineCommand, type ArgsOf, type FlagsOf } from '../define.js';
import type { Context } from '../../context.js';
import { parseId } from '../../validate/index.js';
import { type Flags, requiredArg, validated } from './shared.js';
import { call } from '../shared/resources.js';
import { printObject } from '../../io/output.js';
import { type Call, callFields, timeFormat } from './views.js';

export interface CallsEndOptions {
  id: string;
}

export const command = defineCommand({
  name: 'end',
  summary: 'end a call',
  args: [{ name: 'id', help: 'call id', required: true }],
  examples: ['svc calls end call_123'],
  scopes: ['calls:write'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): CallsEndOptions {
  const id = requiredArg(args, 0, 'call ID', 'svc calls end call_8f2a1c');
  return { id: validated(() => parseId(id, 'call')) };
}

export async function run(opts: CallsEndOptions, ctx: Context): Promise<void> {
  const ended = await call<Call>(ctx, 'calls.end', { params: { id: opts.id } });
  await printObject(ctx, callFields(ended, timeFormat(ctx)), ended);
}
