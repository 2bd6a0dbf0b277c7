// Overview: the clock, the counts, the organizations (and their balances), prices, how to point svc here.
import { centsOfSubcents, money } from '../../../contract/money.js';
import { PRICES } from '../../billing.js';
import { eventLog, retained } from '../../events.js';
import { SEED_ADMIN } from '../../state.js';
import type { State } from '../../state.js';
import { CsrfFields, Layout, When } from '../layout.js';
import type { Html, View } from '../layout.js';
import { FieldError, invalidAttrs, kept } from '../forms.js';
import { Table, keysIn, storedIn } from '../parts.js';

const balanceAction = (orgId: string) => `/_dashboard/orgs/${orgId}/balance`;

function signedInAdmin(state: State): string {
  if (state.users.has(SEED_ADMIN.email)) return SEED_ADMIN.email;
  return state.users.keys().next().value ?? '(no admin)';
}

/** A path as one shell word: quoted only when it needs to be. */
const shellWord = (path: string) => (/^[\w./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`);

export function overviewPage(v: View): Html {
  const { state } = v;
  const url = state.address?.url ?? '';
  const caFile = state.address?.caFile;
  const eventCount = [...state.orgs.values()].reduce((sum, org) => sum + retained(eventLog(state, org.id, v.mode)).length, 0);
  const counts: [string, number][] = [
    ['API keys', keysIn(state, v.mode).filter((k) => !k.revoked).length],
    ['Apps', state.apps.size],
    ['Connections', [...state.grants.values()].filter((g) => g.active).length],
    ['Calls', storedIn(state.calls, v.mode).length],
    ['Chats', storedIn(state.chats, v.mode).length],
    ['Events', eventCount],
    ['Requests', v.requests.length],
  ];
  const offset = state.clock.offsetMs();
  return (
    <Layout v={v} path="/" title="Overview">
      <section aria-labelledby="now">
        <h2 id="now">Now</h2>
        <div id="overview-now" data-live="">
          <p>
            Emulator clock: <When at={state.clock.now()} />
            {offset > 0 ? (
              <>
                {' '}
                <span class="muted">(advanced {Math.round(offset / 1000)} s)</span>
              </>
            ) : null}
          </p>
          <p>
            Signed in as <strong>{signedInAdmin(state)}</strong> <span class="muted">(the emulator's dashboard acts as this admin)</span>
          </p>
          <ul class="counts">
            {counts.map(([label, n]) => (
              <li>
                <strong>{n}</strong>
                {label}
              </li>
            ))}
          </ul>
        </div>
      </section>
      <section aria-labelledby="orgs">
        <h2 id="orgs">Organizations</h2>
        <Table columns={['Name', 'Id', 'Admins', 'Balance (live)']}>
          {[...state.orgs.values()].map((org) => (
            <tr>
              <td>{org.name}</td>
              <td>
                <code>{org.id}</code>
              </td>
              <td>
                {[...state.users.values()]
                  .filter((u) => u.orgs.has(org.id))
                  .map((u) => (
                    <div>{u.email}</div>
                  ))}
              </td>
              <td>
                <p>
                  <strong>{money(centsOfSubcents(org.balance_subcents))}</strong>
                </p>
                <form method="post" action={balanceAction(org.id)} class="row">
                  <CsrfFields v={v} />
                  <div>
                    <label for={`balance-${org.id}`}>New balance of {org.name} in dollars</label>
                    <input
                      id={`balance-${org.id}`}
                      name="available"
                      inputmode="decimal"
                      autocomplete="off"
                      required
                      value={kept(v, balanceAction(org.id), 'available', money(centsOfSubcents(org.balance_subcents)).replace(/^\$/, ''))}
                      {...invalidAttrs(v, balanceAction(org.id), 'available')}
                    />
                    <FieldError v={v} action={balanceAction(org.id)} field="available" />
                  </div>
                  <button type="submit">Save balance</button>
                </form>
              </td>
            </tr>
          ))}
        </Table>
      </section>
      <section aria-labelledby="prices">
        <h2 id="prices">Prices</h2>
        <Table columns={['Item', 'Price']}>
          {PRICES.map((p) => (
            <tr>
              <td>{p.item.replace(/_/g, ' ')}</td>
              <td>{money(p.unit_amount, p.currency)}</td>
            </tr>
          ))}
        </Table>
        <p class="muted">Test mode is never billed; live mode draws from the balance.</p>
      </section>
      <section aria-labelledby="use">
        <h2 id="use">Point svc at this emulator</h2>
        <pre class="commands" tabindex={0} aria-label="Commands to point svc at this emulator">
          {`${caFile ? `export NODE_EXTRA_CA_CERTS=${shellWord(caFile)}   # svc trusts this emulator's local CA\n` : ''}export SVC_BASE_URL=${url}
svc login                          # live mode, through the authorize page
SVC_API_KEY=<a key from API keys> svc account
svc --test events tail             # events as they happen`}
        </pre>
      </section>
    </Layout>
  );
}
