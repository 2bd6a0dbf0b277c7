// `svc account`: the organization, the mode, the credential in use, its scopes, the balance.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../kit/define.js';
import type { Context } from '../context.js';
import { money } from '../io/money.js';
import { redact } from '../io/redact.js';
import { readAccount } from '../kit/account.js';
import { objectResult, type CommandResult } from '../kit/result.js';

export type AccountShowOptions = Record<string, never>;

export const command = defineCommand({
  mcp: 'read',
  tool: { title: 'Show the account', does: 'The organization, mode, credential, scopes and balance this session uses.', returns: {} },
  summary: 'the organization, mode, credential, scopes and balance',
  scopes: ['account:read'],
});

export function parse(_args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): AccountShowOptions {
  return {};
}

export async function run(_opts: AccountShowOptions, ctx: Context): Promise<CommandResult> {
  const api = await ctx.api();
  const { account, balance } = await readAccount(api);
  const c = api.credential;
  const credential =
    c.kind === 'oauth'
      ? `OAuth sign-in (${account.credential.client_id ?? c.profile?.oauth?.client_id ?? 'app'})`
      : `API key ${redact(c.apiKey ?? '')}${c.source === 'env' ? ' from SVC_API_KEY' : ` "${c.keyName}"`}`;
  return objectResult({ ...account, balance }, [
    ['organization', account.name],
    ['id', account.id],
    ['mode', account.livemode ? 'live' : 'test'],
    ['profile', c.source === 'env' ? '(SVC_API_KEY)' : c.profileName],
    ['credential', credential],
    ['scopes', account.credential.scopes.join(' ')],
    ['balance', balance ? money(balance.available, balance.currency) : 'unknown'],
  ]);
}

export default commandModule({ command, parse, run });
