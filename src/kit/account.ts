// The requests `svc account` makes, in one place: `svc doctor` makes exactly these to tell
// whether commands work here (docs/design.md "Layout rules": a check is the act itself).
import type { ApiClient } from '../api/client.js';
import type { ApiCredential } from '../api/credential.js';
import { ApiError } from '../errors.js';
import type { Account, Balance } from './account-types.js';

export interface AccountAnswer {
  account: Account;
  /** null when the credential may read the account but not its balance. */
  balance: Balance | null;
}

/** GET /v1/account and /v1/balance together: one round trip, not two (docs/design.md "HTTP"). */
export async function readAccount(api: ApiClient<ApiCredential>): Promise<AccountAnswer> {
  const balanceAnswer = api.request<Balance>({ endpoint: 'balance.get' }).then(
    (balance): Balance | null => balance,
    (error: unknown) => {
      // The account answered, so account:read is there; anything else is a real failure.
      if (!(error instanceof ApiError) || error.status !== 403) throw error;
      return null;
    },
  );
  balanceAnswer.catch(() => {}); // when the account fails too, its error is the one told
  const account = await api.request<Account>({ endpoint: 'account.get' });
  return { account, balance: await balanceAnswer };
}
