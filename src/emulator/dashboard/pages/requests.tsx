// Requests: what the emulator served (all modes), newest first, with bodies stripped of secrets.
import { Layout, withMode, When } from '../layout.js';
import type { Html, View } from '../layout.js';
import { PAGE_ROWS } from '../parts.js';
import type { RequestEntry } from '../requests.js';

export function requestsPage(v: View): Html {
  const status = v.query('status') ?? '';
  const pathFilter = v.query('path')?.trim() ?? '';
  const before = Number(v.query('before') ?? NaN);
  const rows: RequestEntry[] = [];
  let more = false;
  for (const entry of v.requests.newest()) {
    if (Number.isSafeInteger(before) && entry.n >= before) continue;
    if (status && String(entry.status)[0] !== status[0]) continue;
    if (pathFilter && !entry.path.includes(pathFilter)) continue;
    if (rows.length === PAGE_ROWS) {
      more = true;
      break;
    }
    rows.push(entry);
  }
  const modeOf = (entry: RequestEntry) => /\((test|live)\)$/.exec(entry.credential ?? '')?.[1];
  const older = { ...(status ? { status } : {}), ...(pathFilter ? { path: pathFilter } : {}), before: String(rows.at(-1)?.n ?? 0) };
  return (
    <Layout v={v} path="/requests" title="Requests">
      <form method="get" action="/requests" class="row card">
        <input type="hidden" name="mode" value={v.mode} />
        <div>
          <label for="request-status">Status</label>
          <select id="request-status" name="status">
            {['', '2xx', '3xx', '4xx', '5xx'].map((s) => (
              <option value={s} selected={s === status}>
                {s || 'any'}
              </option>
            ))}
          </select>
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
        <ol class="log" aria-label="Requests">
          {rows.map((entry) => {
            const mode = modeOf(entry);
            return (
              <li data-key={`r${entry.n}`}>
                <details>
                  <summary>
                    <When at={entry.at} /> <strong>{entry.method}</strong> <code>{entry.path}</code>{' '}
                    <span class={`status-${String(entry.status)[0]}`}>{entry.status}</span> <span>{entry.credential ?? 'no credential'}</span>
                    <span class="muted">{entry.latency_ms} ms</span>
                    {mode && mode !== v.mode ? <span class="muted">({mode})</span> : null}
                  </summary>
                  <h3 class="muted">Request body</h3>
                  <pre>{entry.request_body ?? '(none kept)'}</pre>
                  <h3 class="muted">Response body</h3>
                  <pre>{entry.response_body ?? '(none kept)'}</pre>
                </details>
              </li>
            );
          })}
        </ol>
        {rows.length === 0 ? <p class="muted">No requests{status || pathFilter ? ' match' : ' yet'}.</p> : null}
        {more ? (
          <p>
            <a href={withMode('/requests', v.mode, older)}>Older requests</a>
          </p>
        ) : null}
      </div>
    </Layout>
  );
}
