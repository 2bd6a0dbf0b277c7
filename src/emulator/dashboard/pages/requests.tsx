// Requests: what the emulator served (all modes), newest first, with bodies stripped of secrets.
import { CopyButton, Layout, withMode, When } from '../layout.js';
import type { Html, View } from '../layout.js';
import { PAGE_ROWS } from '../parts.js';
import type { RequestEntry } from '../requests.js';

/** What the Requests page filters by; an empty value does not filter. */
export interface RequestFilters {
  status: string;
  path: string;
  method: string;
  credential: string;
  object: string;
}

/** A page of the newest requests that pass the filters, older than request number `before`, and whether there are more. */
export function matchingRequests(v: View, filters: RequestFilters, before = Infinity): { rows: RequestEntry[]; more: boolean } {
  const { status, path, method, credential, object } = filters;
  // A class (4xx) or an exact status (404).
  const statusMatches = (answered: number) => !status || (/^\dxx$/i.test(status) ? String(answered)[0] === status[0] : String(answered) === status);
  // An object's requests: its id in the path, in either body, or as the credential sent (a key's, an app's).
  const touches = (entry: RequestEntry) =>
    [entry.path, entry.request_body ?? '', entry.response_body ?? '', entry.credential ?? ''].some((text) => text.includes(object));
  const rows: RequestEntry[] = [];
  let more = false;
  for (const entry of v.requests.newest()) {
    if (entry.n >= before) continue;
    if (!statusMatches(entry.status)) continue;
    if (path && !entry.path.includes(path)) continue;
    if (method && entry.method !== method) continue;
    if (credential && !(entry.credential ?? 'no credential').includes(credential)) continue;
    if (object && !touches(entry)) continue;
    if (rows.length === PAGE_ROWS) {
      more = true;
      break;
    }
    rows.push(entry);
  }
  return { rows, more };
}

/** The newest requests that touched one object, for its own page (Requests lists them all). */
export function ObjectRequests({ v, id, by = 'object' }: { v: View; id: string; by?: 'object' | 'credential' }): Html {
  const { rows } = matchingRequests(v, { status: '', path: '', method: '', credential: '', object: '', [by]: id });
  return (
    <>
      <h2>Requests that touched it</h2>
      {rows.length === 0 ? <p class="muted">None of the requests kept touched it.</p> : <RequestList v={v} rows={rows} />}
      <p>
        <a href={withMode('/requests', v.mode, { [by]: id })}>All its requests</a>
      </p>
    </>
  );
}

/** The kept JSON body on one line (the page shows it indented); null when it is not JSON. */
function compactJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return null;
  }
}

const shellQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The request as a curl command. The secret is never kept, so the command names it by the
 * variable a developer holds it in; a kept body is as the page shows it (secrets in it hidden).
 */
export function asCurl(base: string, entry: RequestEntry): string {
  const lines = [`curl -X ${entry.method} ${shellQuoted(base + entry.path)}`];
  if (entry.credential?.includes('app ')) lines.push('-H "Authorization: Bearer $SVC_ACCESS_TOKEN"');
  else if (entry.credential) lines.push('-H "Authorization: Bearer $SVC_API_KEY"');
  if (entry.request_body) {
    const json = compactJson(entry.request_body);
    lines.push(
      `-H 'Content-Type: ${json === null ? 'application/x-www-form-urlencoded' : 'application/json'}'`,
      `--data ${shellQuoted(json ?? entry.request_body)}`,
    );
  }
  return lines.join(' \\\n  ');
}

/** Requests as the Requests page lists them: a row each, the bodies (secrets hidden) in the expanded row. */
export function RequestList({ v, rows }: { v: View; rows: RequestEntry[] }): Html {
  const modeOf = (entry: RequestEntry) => /\((test|live)\)$/.exec(entry.credential ?? '')?.[1];
  return (
    <ol class="log" aria-label="Requests">
      {rows.map((entry) => {
        const mode = modeOf(entry);
        return (
          <li data-key={`r${entry.n}`}>
            <details>
              <summary>
                <When at={entry.at} local /> <strong>{entry.method}</strong> <code>{entry.path}</code>{' '}
                <span class={`status-${String(entry.status)[0]}`}>{entry.status}</span> <span>{entry.credential ?? 'no credential'}</span>
                <span class="muted">{entry.latency_ms} ms</span>
                {mode && mode !== v.mode ? <span class="muted">({mode})</span> : null}
              </summary>
              <h3 class="muted">Request body</h3>
              <pre>{entry.request_body ?? '(none kept)'}</pre>
              <h3 class="muted">As curl (the secret left out)</h3>
              <pre id={`curl-r${entry.n}`}>{asCurl(v.state.address?.url ?? '', entry)}</pre>
              <CopyButton target={`curl-r${entry.n}`} shown="as curl" what={`${entry.method} ${entry.path}`} />
              <h3 class="muted">Response body</h3>
              <pre>{entry.response_body ?? '(none kept)'}</pre>
            </details>
          </li>
        );
      })}
    </ol>
  );
}

export function requestsPage(v: View): Html {
  const status = v.query('status')?.trim() ?? '';
  const pathFilter = v.query('path')?.trim() ?? '';
  const method = v.query('method') ?? '';
  const credential = v.query('credential')?.trim() ?? '';
  const object = v.query('object')?.trim() ?? '';
  const before = Number(v.query('before') ?? NaN);
  const { rows, more } = matchingRequests(v, { status, path: pathFilter, method, credential, object }, Number.isSafeInteger(before) ? before : Infinity);
  const filters = Object.fromEntries(Object.entries({ status, path: pathFilter, method, credential, object }).filter(([, value]) => value !== ''));
  const older = { ...filters, before: String(rows.at(-1)?.n ?? 0) };
  return (
    <Layout v={v} path="/requests" title="Requests">
      <form method="get" action="/requests" class="row card">
        <input type="hidden" name="mode" value={v.mode} />
        <div>
          <label for="request-status">Status (4xx or 404)</label>
          <input id="request-status" name="status" value={status} list="request-statuses" size={6} autocomplete="off" />
          <datalist id="request-statuses">
            {['2xx', '3xx', '4xx', '5xx'].map((s) => (
              <option value={s}></option>
            ))}
          </datalist>
        </div>
        <div>
          <label for="request-method">Method</label>
          <select id="request-method" name="method">
            {['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => (
              <option value={m} selected={m === method}>
                {m || 'any'}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="request-credential">Credential contains</label>
          <input id="request-credential" name="credential" value={credential} autocomplete="off" placeholder="key_…, svc_app_…" />
        </div>
        <div>
          <label for="request-object">Object id</label>
          <input id="request-object" name="object" value={object} autocomplete="off" />
        </div>
        <div>
          <label for="request-path">Path contains</label>
          <input id="request-path" name="path" value={pathFilter} autocomplete="off" />
        </div>
        <button type="submit">Filter</button>
      </form>
      <div id="requests" data-live="">
        <p class="muted">
          The last {v.requests.size} requests the emulator served (all modes; {v.requests.total} since it started), newest first. Secrets in bodies are not
          shown.
        </p>
        <RequestList v={v} rows={rows} />
        {rows.length === 0 ? <p class="muted">No requests{Object.keys(filters).length > 0 ? ' match' : ' yet'}.</p> : null}
        {more ? (
          <p>
            <a href={withMode('/requests', v.mode, older)}>Older requests</a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}
