// `svc calls start --languages en,es [--title T]` — billed in live mode.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { parseLanguageList } from '../../validate/index.js';

import { call, confirmBilled } from '../../kit/resources.js';
import { type Call, callFields, timeFormat } from '../../kit/views.js';
import { dryRun } from '../../kit/dry-run.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

export interface CallsStartOptions {
  /** The call's two languages (docs/contract.md: exactly 2 BCP 47 tags). */
  languages: [string, string];
  title?: string;
  /** Print the request and its price; send nothing. */
  dryRun?: boolean;
}

export const command = defineCommand({
  mcp: { billable: 'write' },
  tool: {
    bills: 'calls.create',
    title: 'Start a call',
    does: 'Starts an interpreted call between two languages; it runs, and is billed by the minute in live mode, until ended.',
    endedBy: 'calls_end',
    returns: { id: 'call_' },
  },
  summary: 'start an interpreted call between two languages',
  flags: {
    languages: { value: '<a,b>', required: true, help: 'the two BCP 47 languages, e.g. en,es' },
    title: { value: '<title>', help: 'a title' },
    dryRun: { help: 'print the request and the price it would draw; send nothing' },
  },
  examples: ['svc calls start --languages en,es', 'svc calls start --languages en,ja --title "Support"'],
  scopes: ['calls:write'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): CallsStartOptions {
  const languages = parseLanguageList(flags.languages, '--languages');
  if (languages.length !== 2) {
    throw new UsageError(`--languages needs exactly two language tags, one per side of the call, e.g. --languages en,es (got ${languages.length})`);
  }
  const opts: CallsStartOptions = { languages: [languages[0]!, languages[1]!] };
  if (flags.dryRun === true) opts.dryRun = true;
  const title = flags.title;
  if (title !== undefined) {
    if (title.trim() === '') throw new UsageError('--title is empty: give a title, e.g. --title "Intake"');
    opts.title = title;
  }
  return opts;
}

export async function run(opts: CallsStartOptions, ctx: Context): Promise<CommandResult> {
  const body: Record<string, unknown> = { languages: opts.languages };
  if (opts.title !== undefined) body.title = opts.title;
  if (opts.dryRun) return dryRun(ctx, { endpoint: 'calls.create', body });
  await confirmBilled(ctx, 'calls.create', 'Starting a call');
  const started = await call<Call>(ctx, 'calls.create', { body });
  return objectResult(started, callFields(started, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
