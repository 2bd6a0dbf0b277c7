// `svc calls links create [--call ID] [--language L] [--expires-in 1h]`
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../../kit/define.js';
import type { Context } from '../../../context.js';

import { call } from '../../../kit/resources.js';
import { type Link, linkFields, timeFormat } from '../../../kit/views.js';
import { objectResult, type CommandResult } from '../../../kit/result.js';

export interface LinksCreateOptions {
  callId?: string;
  language?: string;
  expiresInSeconds?: number;
}

export const command = defineCommand({
  mcp: 'write',
  tool: { title: 'Create a join link', does: 'Makes a link a person opens to join a call in their language.', returns: { id: 'link_' } },
  summary: 'create a join link',
  flags: {
    call: { value: '<id>', kind: { type: 'id', prefix: 'call_' }, help: 'the call it joins (call_…)' },
    language: { value: '<lang>', kind: { type: 'language' }, help: "the joiner's language" },
    // The service's limits (docs/contract.md, Links: expires_in, 60 s to 30 days), in the user's units.
    expiresIn: { value: '<duration>', kind: { type: 'duration', min: '1m', max: '30d' }, help: 'lifetime, e.g. 1h or 30m (1m to 30d)' },
  },
  examples: ['svc calls links create --call call_123 --language fr --expires-in 1h'],
  scopes: ['calls:write'],
});

export function parse(_args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): LinksCreateOptions {
  const opts: LinksCreateOptions = {};
  if (flags.call !== undefined) opts.callId = flags.call;
  if (flags.language !== undefined) opts.language = flags.language;
  // (The API counts a link's lifetime in seconds; a duration has no fraction of one.)
  if (flags.expiresIn !== undefined) opts.expiresInSeconds = flags.expiresIn / 1000;
  return opts;
}

export async function run(opts: LinksCreateOptions, ctx: Context): Promise<CommandResult> {
  const body: Record<string, unknown> = {};
  if (opts.callId !== undefined) body.call_id = opts.callId;
  if (opts.language !== undefined) body.language = opts.language;
  if (opts.expiresInSeconds !== undefined) body.expires_in = opts.expiresInSeconds;
  const link = await call<Link>(ctx, 'links.create', { body });
  return objectResult(link, linkFields(link, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
