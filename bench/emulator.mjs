// Emulator throughput benchmark (design.md "Performance budget"):
//  (a) authenticated requests/s: GET /v1/account with API keys, keep-alive, ~32 in flight;
//  (b) events/s delivered to ONE SSE stream after POST /_emulator/events {count: 50000},
//      counting every event id so that none is lost, repeated or reordered.
// Standalone: `node bench/emulator.mjs` spawns `node bin/svc.js emulator --port 0 --json`.
// As a module: `runEmulatorBench({ url, keys })`.
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';

const REQUESTS = Number(process.env.BENCH_EMULATOR_REQUESTS ?? 6000);
const CONCURRENCY = 32;
const EVENTS = 50_000;
const TIME_BOUND_MS = 30_000;
// The service allows 600 requests per minute per API key (service-spec.md §8), and the
// emulator enforces it. To measure throughput honestly rather than the limiter, the
// benchmark makes a fresh organization with enough keys for its request count (each key
// stays under its own limit) through the control plane, exactly as a real org may hold
// many keys. No request is expected to see a 429; any non-200 is reported as an error.
const PER_KEY = 550;

async function json(dispatcher, method, url, body, headers = {}) {
  const res = await request(url, {
    method,
    dispatcher,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${url} answered ${res.statusCode}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function measureRequests(dispatcher, url, keys) {
  let next = 0;
  let ok = 0;
  let errors = 0;
  const deadline = Date.now() + TIME_BOUND_MS;
  const started = process.hrtime.bigint();
  async function worker() {
    while (next < REQUESTS && Date.now() < deadline) {
      const i = next++;
      const key = keys[i % keys.length];
      const res = await request(`${url}/v1/account`, { dispatcher, headers: { authorization: `Bearer ${key}` } });
      await res.body.dump();
      if (res.statusCode === 200) ok++;
      else errors++;
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { requestsPerSecond: ok / seconds, requests: ok, requestErrors: errors };
}

async function measureEvents(dispatcher, url, orgId, key) {
  const controller = new AbortController();
  const res = await request(`${url}/v1/events/stream`, {
    dispatcher,
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  if (res.statusCode !== 200) throw new Error(`stream answered ${res.statusCode}`);
  let received = 0;
  let outOfOrder = 0;
  let lastN = 0;
  let buffer = '';
  let startedAt = 0n;
  let finishedAt = 0n;
  let resolveDone;
  const done = new Promise((resolve) => (resolveDone = resolve));
  res.body.setEncoding('utf8');
  res.body.on('data', (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const dataAt = frame.indexOf('\ndata: ');
      if (dataAt < 0) continue; // a keepalive comment
      // Synthetic events carry their ordinal n: checking it proves no gap and no repeat.
      const n = Number(/"n":(\d+)/.exec(frame.slice(dataAt))?.[1]);
      if (n !== lastN + 1) outOfOrder++;
      lastN = n;
      received++;
      if (received === EVENTS) {
        finishedAt = process.hrtime.bigint();
        resolveDone();
      }
    }
  });
  res.body.on('error', () => resolveDone());
  startedAt = process.hrtime.bigint();
  await json(dispatcher, 'POST', `${url}/_emulator/events`, { org_id: orgId, mode: 'live', type: 'bench.tick', count: EVENTS });
  const timer = setTimeout(resolveDone, TIME_BOUND_MS);
  await done;
  clearTimeout(timer);
  controller.abort();
  const seconds = Number((finishedAt || process.hrtime.bigint()) - startedAt) / 1e9;
  return { eventsPerSecond: received / seconds, events: received, lost: EVENTS - received, outOfOrder };
}

/** Runs both measurements against a running emulator; `keys` are its seeded keys (unused but for the org). */
export async function runEmulatorBench({ url, keys, org_id }) {
  const dispatcher = new Agent({ connections: CONCURRENCY + 4, keepAliveTimeout: 30_000 });
  try {
    const orgId = org_id ?? (await json(dispatcher, 'GET', `${url}/v1/account`, undefined, { authorization: `Bearer ${keys.live}` })).id;
    const org = await json(dispatcher, 'POST', `${url}/_emulator/orgs`, { name: `Bench ${orgId}` });
    const keyCount = Math.ceil(REQUESTS / PER_KEY);
    const benchKeys = [];
    for (let i = 0; i < keyCount; i++) {
      const made = await json(dispatcher, 'POST', `${url}/_emulator/orgs/${org.id}/keys`, { mode: 'test', scopes: ['account:read'] });
      benchKeys.push(made.key);
    }
    const streamKey = (await json(dispatcher, 'POST', `${url}/_emulator/orgs/${org.id}/keys`, { mode: 'live', scopes: ['events:read'] })).key;
    const requests = await measureRequests(dispatcher, url, benchKeys);
    const events = await measureEvents(dispatcher, url, org.id, streamKey);
    return { ...requests, ...events };
  } finally {
    await dispatcher.close().catch(() => {});
  }
}

async function startSpawned() {
  const svc = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
  const child = spawn(process.execPath, [svc, 'emulator', '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const seed = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(JSON.parse(line));
    });
    child.on('exit', (code) => reject(new Error(`svc emulator exited ${code} before printing its address`)));
  });
  return { seed, stop: () => child.kill('SIGINT') };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { seed, stop } = await startSpawned();
  try {
    const result = await runEmulatorBench(seed);
    console.log(JSON.stringify(result));
    console.error(
      `emulator: ${Math.round(result.requestsPerSecond)} authenticated requests/s (target ≥ 1,000); ` +
        `${Math.round(result.eventsPerSecond)} events/s to one stream (target ≥ 20,000), lost ${result.lost}, out of order ${result.outOfOrder}`,
    );
  } finally {
    stop();
  }
}
