// `svc calls dial ID --to +E164 [--line ID] [--language L]` — billed in live mode; refused in test mode.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { CliError, EXIT } from '../../errors.js';
import { parseE164 } from '../../validate/index.js';

import { call, confirmBilled } from '../../kit/resources.js';
import { type Participant, participantFields, timeFormat } from '../../kit/views.js';
import { dryRun } from '../../kit/dry-run.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

export interface CallsDialOptions {
  callId: string;
  to: string;
  lineId?: string;
  language?: string;
  dryRun?: boolean;
}

export const command = defineCommand({
  mcp: { billable: 'write' },
  tool: {
    bills: 'calls.dial',
    title: 'Dial a phone into a call',
    does: 'Rings a real phone number and joins whoever answers to a call, interpreted.',
    openWorld: true,
    only: 'live',
    endedBy: 'calls_end',
    returns: { id: 'call_' },
  },
  summary: 'dial a phone into a call (live mode only; billed)',
  args: [{ name: 'id', help: 'call id', required: true, kind: { type: 'id', prefix: 'call_' } }],
  flags: {
    to: { value: '<+E164>', required: true, help: 'the phone number, e.g. +14155550100' },
    line: { value: '<id>', kind: { type: 'id', prefix: 'line_' }, help: 'the line to call from (line_…)' },
    language: { value: '<lang>', kind: { type: 'language' }, help: 'the language the callee speaks' },
    dryRun: { help: 'print the request and the price it would draw; send nothing' },
  },
  examples: ['svc --live calls dial call_123 --to +14155550100 --language es'],
  scopes: ['calls:write'],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): CallsDialOptions {
  const opts: CallsDialOptions = { callId: args[0], to: parseE164(flags.to, '--to') };
  if (flags.line !== undefined) opts.lineId = flags.line;
  if (flags.language !== undefined) opts.language = flags.language;
  if (flags.dryRun === true) opts.dryRun = true;
  return opts;
}

export async function run(opts: CallsDialOptions, ctx: Context): Promise<CommandResult> {
  // Test mode cannot reach real phones (docs/contract.md "Test mode"): say so before
  // a request that can only be refused.
  const { credential } = await ctx.api();
  if (credential.mode === 'test') {
    throw new CliError(
      'phones cannot be dialled in test mode: test calls connect, but never ring a real number',
      EXIT.failure,
      credential.source === 'env'
        ? 'SVC_API_KEY holds a test key: set it to a live key (svc_live_…) to dial; live dialling is billed'
        : 'dial in live mode (--live), which is billed',
    );
  }
  const body: Record<string, unknown> = { to: opts.to };
  if (opts.lineId !== undefined) body.line_id = opts.lineId;
  if (opts.language !== undefined) body.language = opts.language;
  if (opts.dryRun) return dryRun(ctx, { endpoint: 'calls.dial', params: { id: opts.callId }, body });
  await confirmBilled(ctx, 'calls.dial', `Dialling ${opts.to}`, { testModeRefuses: true });
  const participant = await call<Participant>(ctx, 'calls.dial', { params: { id: opts.callId }, body });
  return objectResult(participant, participantFields(participant, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
