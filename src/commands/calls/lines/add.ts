// `svc calls lines add --country US [--area-code 415]` — billed in live mode.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../../kit/define.js';
import type { Context } from '../../../context.js';

import { parseAreaCode, parseCountryCode } from '../../../validate/index.js';

import { call, confirmBilled } from '../../../kit/resources.js';
import { type Line, lineFields, timeFormat } from '../../../kit/views.js';
import { dryRun } from '../../../kit/dry-run.js';
import { objectResult, type CommandResult } from '../../../kit/result.js';

export interface LinesAddOptions {
  country: string;
  areaCode?: string;
  dryRun?: boolean;
}

export const command = defineCommand({
  mcp: { billable: 'write' },
  tool: {
    bills: 'lines.create',
    title: 'Rent a phone line',
    does: 'Rents a phone number in a country (and area code), billed monthly in live mode.',
    endedBy: 'calls_lines_release',
    returns: { id: 'line_' },
  },
  summary: 'rent a phone line (billed in live mode)',
  flags: {
    country: { value: '<cc>', required: true, help: 'ISO country code, e.g. US' },
    areaCode: { value: '<code>', help: 'area code, e.g. 415' },
    dryRun: { help: 'print the request and the price it would draw; send nothing' },
  },
  examples: ['svc calls lines add --country US --area-code 415'],
  scopes: ['calls:write'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): LinesAddOptions {
  const opts: LinesAddOptions = { country: parseCountryCode(flags.country, '--country') };
  if (flags.areaCode !== undefined) opts.areaCode = parseAreaCode(flags.areaCode, '--area-code');
  if (flags.dryRun === true) opts.dryRun = true;
  return opts;
}

export async function run(opts: LinesAddOptions, ctx: Context): Promise<CommandResult> {
  const body: Record<string, unknown> = { country: opts.country };
  if (opts.areaCode !== undefined) body.area_code = opts.areaCode;
  if (opts.dryRun) return dryRun(ctx, { endpoint: 'lines.create', body });
  await confirmBilled(ctx, 'lines.create', `Adding a phone line in ${opts.country}`);
  const line = await call<Line>(ctx, 'lines.create', { body });
  return objectResult(line, lineFields(line, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
