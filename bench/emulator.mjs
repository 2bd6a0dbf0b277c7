// Emulator throughput benchmark (docs/design.md "Performance budget"):
//  (a) authenticated requests/s: GET /v1/account with API keys, keep-alive, ~32 in flight;
//  (b) events/s delivered to ONE SSE stream after POST /_emulator/events {count: 200000},
//      counting every event id so that none is lost, repeated or reordered (target ≥ 200,000/s),
//      while a probe keeps asking GET /v1/account: p99 of its answers during the burst (target < 50 ms);
//  (c) bounded under abuse (issue 13), from the emulator process's RSS (/proc/PID/status):
//      after a million published events (target ≤ 200 MiB; unbounded retention was 538 MiB),
//      after 3 million events to four stalled stream clients (target ≤ 200 MiB; was 1.9 GB),
//      after 400,000 unauthenticated GET /oauth/authorize (target ≤ 200 MiB; was OOM).
//      BENCH_EMULATOR_QUICK=1 skips the last two (the longest);
//  (d) the dashboard open under traffic: peak RSS (VmHWM) of an emulator whose dashboard live
//      stream is open and followed (each change message fetches the Requests page, as the page's
//      script does) while 100,000 events are published and 100,000 API requests are served
//      (a bounded loop on loopback, half of them with 12 KB bodies), and the size of the
//      Requests ring after them (target ≤ 200 MiB with the same capped heap, ring 1,000).
//      BENCH_EMULATOR_ONLY=dashboard runs this row alone.
// Standalone: `node bench/emulator.mjs` spawns `node bin/svc.js emulator --port 0 --json`.
// As a module: `runEmulatorBench({ url, keys, pid })` (pid: the emulator's, for RSS; optional).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Agent, request } from 'undici';

const REQUESTS = Number(process.env.BENCH_EMULATOR_REQUESTS ?? 6000);
const CONCURRENCY = 32;
const EVENTS = 200_000;
const RSS_TARGET_MIB = 200;
const BOUNDS_HEAP_MIB = 96;
// Smaller figures make a quick smoke run of the abuse checks (the report says which were used).
const STALLED_EVENTS = Number(process.env.BENCH_STALLED_EVENTS ?? 3_000_000);
const AUTHORIZE_GETS = Number(process.env.BENCH_AUTHORIZE_GETS ?? 400_000);
const P99_TARGET_MS = 50;
const STREAM_TARGET = 200_000;
const TIME_BOUND_MS = 30_000;
const DASHBOARD_EVENTS = 100_000;
const DASHBOARD_REQUESTS = Number(process.env.BENCH_DASHBOARD_REQUESTS ?? 100_000);
const DASHBOARD_TIME_BOUND_MS = 180_000;
const DASHBOARD_RING = 1000; // REQUEST_LOG_SIZE in src/emulator/dashboard/requests.ts
// The service allows 600 requests per minute per API key (docs/contract.md "Limits"), and the
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

/** Asks GET /v1/account one request after another until `done` resolves; answers the latencies (ms). */
async function probeLatency(url, keys, done) {
  const dispatcher = new Agent({ connections: 2, keepAliveTimeout: 30_000 });
  const latencies = [];
  let finished = false;
  done.then(() => (finished = true));
  let i = 0;
  while (!finished) {
    const started = process.hrtime.bigint();
    const res = await request(`${url}/v1/account`, { dispatcher, headers: { authorization: `Bearer ${keys[i++ % keys.length]}` } });
    await res.body.dump();
    if (res.statusCode !== 200) throw new Error(`probe answered ${res.statusCode}`);
    latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  await dispatcher.close();
  return latencies;
}

function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function measureEvents(dispatcher, url, orgId, key, probeKeys) {
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
  const probe = probeLatency(url, probeKeys, done);
  await json(dispatcher, 'POST', `${url}/_emulator/events`, { org_id: orgId, mode: 'live', type: 'bench.tick', count: EVENTS });
  const timer = setTimeout(resolveDone, TIME_BOUND_MS);
  await done;
  clearTimeout(timer);
  controller.abort();
  const latencies = await probe;
  const seconds = Number((finishedAt || process.hrtime.bigint()) - startedAt) / 1e9;
  return {
    eventsPerSecond: received / seconds,
    events: received,
    lost: EVENTS - received,
    outOfOrder,
    burstProbeRequests: latencies.length,
    burstP99Ms: percentile(latencies, 99),
    burstMaxMs: Math.max(...latencies),
  };
}

/** The emulator process's resident memory, MiB (Linux /proc); null elsewhere or without its pid. */
function rssMiB(pid) {
  if (!pid) return null;
  try {
    const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return kib / 1024;
  } catch {
    return null;
  }
}

/** Publishes `total` events in bursts of 200,000 (the control plane's cap is 1,000,000 per call). */
async function publish(dispatcher, url, orgId, mode, total) {
  for (let done = 0; done < total; done += EVENTS) {
    await json(dispatcher, 'POST', `${url}/_emulator/events`, { org_id: orgId, mode, type: 'bench.flood', count: Math.min(EVENTS, total - done) });
  }
}

/** A stream client that reads nothing: it opens the stream and pauses. Answers a closer. */
function stalledClient(url, key) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/v1/events/stream`, { headers: { authorization: `Bearer ${key}` }, agent: false }, (res) => {
      res.pause();
      resolve(() => req.destroy());
    });
    req.on('error', () => {});
    req.setTimeout(0);
    req.once('error', reject);
    req.end();
  });
}

async function authorizeFlood(url, count) {
  const dispatcher = new Agent({ connections: 16, keepAliveTimeout: 30_000 });
  const query = new URLSearchParams({
    client_id: 'svc_app_cli',
    redirect_uri: 'http://127.0.0.1:1/callback',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  });
  let next = 0;
  async function worker() {
    while (next < count) {
      next++;
      const res = await request(`${url}/oauth/authorize?${query}`, { dispatcher });
      await res.body.dump();
      if (res.statusCode !== 200) throw new Error(`authorize answered ${res.statusCode}`);
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker));
  await dispatcher.close();
}

/**
 * Memory under abuse, measured on an emulator process of its own with a small V8 heap
 * (BOUNDS_HEAP_MIB): what the emulator holds must fit in it (unbounded, it dies of OOM), and the
 * RSS read from /proc then reflects what is live rather than garbage V8 has not yet collected.
 */
async function measureBounds() {
  const { seed, pid, stop, exited } = await startSpawned([`--max-old-space-size=${BOUNDS_HEAP_MIB}`]);
  const dispatcher = new Agent({ connections: 4, keepAliveTimeout: 30_000 });
  try {
    const url = seed.url;
    const orgId = seed.org_id;
    const key = seed.keys.live;
    return await Promise.race([
      measureBoundsOn(dispatcher, url, orgId, key, pid),
      exited.then((code) => Promise.reject(new Error(`the emulator died (exit ${code}) under a ${BOUNDS_HEAP_MIB} MiB heap`))),
    ]);
  } finally {
    await dispatcher.close().catch(() => {});
    stop();
  }
}

async function measureBoundsOn(dispatcher, url, orgId, key, pid) {
  const result = { boundsHeapMiB: BOUNDS_HEAP_MIB, rssStartMiB: rssMiB(pid) };
  await publish(dispatcher, url, orgId, 'test', 1_000_000);
  result.rssAfterMillionEventsMiB = rssMiB(pid);
  if (process.env.BENCH_EMULATOR_QUICK !== '1') {
    const closers = [];
    for (let i = 0; i < 4; i++) closers.push(await stalledClient(url, key));
    await publish(dispatcher, url, orgId, 'live', STALLED_EVENTS);
    result.rssAfterStalledClientsMiB = rssMiB(pid);
    result.stalledStillOpen = (await json(dispatcher, 'GET', `${url}/_emulator/stats`)).open_streams;
    for (const close of closers) close();
    await authorizeFlood(url, AUTHORIZE_GETS);
    result.rssAfterAuthorizeFloodMiB = rssMiB(pid);
  }
  return result;
}

/** The emulator process's peak resident memory so far (VmHWM), MiB; null where /proc is not. */
function peakRssMiB(pid) {
  try {
    return Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  } catch {
    return null;
  }
}

/**
 * The dashboard open under traffic, on an emulator process of its own with the capped heap: its
 * live stream read as the page's script reads it (each "change" fetches the Requests page, one
 * fetch at a time), while 100,000 events are published and 100,000 API requests served.
 */
async function measureDashboard() {
  const { seed, pid, stop, exited } = await startSpawned([`--max-old-space-size=${BOUNDS_HEAP_MIB}`]);
  process.once('exit', stop); // (an emulator left behind would hold this run's output open)
  const dispatcher = new Agent({ connections: CONCURRENCY + 4, keepAliveTimeout: 30_000 });
  try {
    return await Promise.race([
      measureDashboardOn(dispatcher, seed.url, seed.org_id, pid),
      exited.then((code) => Promise.reject(new Error(`the emulator died (exit ${code}) under a ${BOUNDS_HEAP_MIB} MiB heap with the dashboard open`))),
    ]);
  } finally {
    await dispatcher.close().catch(() => {});
    stop();
  }
}

async function measureDashboardOn(dispatcher, url, orgId, pid) {
  // Keys enough that none passes the rate limit (as in the requests/s row).
  const keys = [];
  for (let i = 0; i < Math.ceil(DASHBOARD_REQUESTS / PER_KEY); i++)
    keys.push((await json(dispatcher, 'POST', `${url}/_emulator/orgs/${orgId}/keys`, { mode: 'test', scopes: ['account:read'] })).key);

  const stream = await request(`${url}/_dashboard/stream`, { dispatcher, headers: { accept: 'text/event-stream' } });
  if (stream.statusCode !== 200) throw new Error(`the dashboard stream answered ${stream.statusCode}`);
  let changes = 0;
  let pageFetches = 0;
  let fetching = false;
  let lastPage = '';
  const followed = [];
  const followChange = async () => {
    if (fetching) return;
    fetching = true;
    try {
      const page = await request(`${url}/requests?mode=test`, { dispatcher });
      lastPage = await page.body.text();
      pageFetches++;
    } finally {
      fetching = false;
    }
  };
  let buffer = '';
  stream.body.on('data', (chunk) => {
    buffer += chunk.toString('utf8');
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (!frame.startsWith('event: change')) continue;
      changes++;
      followed.push(followChange());
    }
  });
  stream.body.on('error', () => {});

  const started = Date.now();
  await json(dispatcher, 'POST', `${url}/_emulator/events`, { org_id: orgId, mode: 'test', type: 'bench.dashboard', count: DASHBOARD_EVENTS });
  const big = JSON.stringify({ title: 'x'.repeat(12_000), languages: ['en', 'es'] });
  let next = 0;
  let served = 0;
  const deadline = started + DASHBOARD_TIME_BOUND_MS;
  async function worker() {
    while (next < DASHBOARD_REQUESTS && Date.now() < deadline) {
      const i = next++;
      const authorization = `Bearer ${keys[i % keys.length]}`;
      // Half read the account, half post a 12 KB body (refused for its scope, but logged).
      const res =
        i % 2 === 0
          ? await request(`${url}/v1/account`, { dispatcher, headers: { authorization } })
          : await request(`${url}/v1/calls`, { dispatcher, method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: big });
      await res.body.dump();
      if (res.statusCode === 429 || res.statusCode >= 500) throw new Error(`a dashboard-row request answered ${res.statusCode}`);
      served++;
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (Date.now() - started) / 1000;
  // The last change message arrives within the stream's gathering interval; then one more page.
  await new Promise((resolve) => setTimeout(resolve, 500));
  await Promise.all(followed);
  await followChange();
  stream.body.destroy();
  const ring = /The last (\d+) requests the emulator served \(all modes; (\d+) since it started\)/.exec(lastPage);
  return {
    dashboardPeakRssMiB: peakRssMiB(pid),
    dashboardEvents: DASHBOARD_EVENTS,
    dashboardRequests: served,
    dashboardSeconds: seconds,
    dashboardRingSize: ring ? Number(ring[1]) : null,
    dashboardLogged: ring ? Number(ring[2]) : null,
    dashboardChanges: changes,
    dashboardPageFetches: pageFetches,
  };
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
    const probeKeys = [];
    for (let i = 0; i < 4; i++)
      probeKeys.push((await json(dispatcher, 'POST', `${url}/_emulator/orgs/${org.id}/keys`, { mode: 'test', scopes: ['account:read'] })).key);
    const requests = await measureRequests(dispatcher, url, benchKeys);
    const events = await measureEvents(dispatcher, url, org.id, streamKey, probeKeys);
    const bounds = await measureBounds();
    const dashboard = await measureDashboard();
    return { ...requests, ...events, ...bounds, ...dashboard };
  } finally {
    await dispatcher.close().catch(() => {});
  }
}

async function startSpawned(nodeArgs = []) {
  const svc = fileURLToPath(new URL('../bin/svc.js', import.meta.url));
  const child = spawn(process.execPath, [...nodeArgs, svc, 'emulator', '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const seed = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve(JSON.parse(line));
    });
    exited.then((code) => reject(new Error(`svc emulator exited ${code} before printing its address`)));
  });
  return { seed, pid: child.pid, exited, stop: () => child.kill('SIGINT') };
}

/** The dashboard row's line and whether it met its bound. */
function dashboardCheck(result) {
  const mib = (v) => (v == null ? 'n/a' : `${v.toFixed(0)} MiB`);
  const all = result.dashboardRequests === DASHBOARD_REQUESTS;
  return [
    `emulator peak RSS with the dashboard's live stream open and followed, ${result.dashboardEvents.toLocaleString('en-US')} events published and ${result.dashboardRequests.toLocaleString('en-US')} API requests served in ${result.dashboardSeconds.toFixed(0)} s: ${mib(result.dashboardPeakRssMiB)}; Requests ring ${result.dashboardRingSize} of ${result.dashboardLogged?.toLocaleString('en-US')} logged; ${result.dashboardChanges} change messages, ${result.dashboardPageFetches} page fetches (V8 heap capped at ${BOUNDS_HEAP_MIB} MiB; target ≤ ${RSS_TARGET_MIB} MiB, ring ${DASHBOARD_RING.toLocaleString('en-US')}, every request served)`,
    (result.dashboardPeakRssMiB == null || result.dashboardPeakRssMiB <= RSS_TARGET_MIB) && result.dashboardRingSize === DASHBOARD_RING && all,
  ];
}

/** One line per measure with its target; answers how many missed. */
export function reportEmulatorBench(result, print = console.error) {
  const mib = (v) => (v == null ? 'n/a' : `${v.toFixed(0)} MiB`);
  const checks = [
    [`authenticated requests/s: ${Math.round(result.requestsPerSecond)} (target ≥ 1,000)`, result.requestsPerSecond >= 1000],
    [
      `events/s to one stream in a 200k burst: ${Math.round(result.eventsPerSecond)}, lost ${result.lost}, out of order ${result.outOfOrder} (target ≥ ${STREAM_TARGET.toLocaleString('en-US')}, none lost)`,
      result.eventsPerSecond >= STREAM_TARGET && result.lost === 0 && result.outOfOrder === 0,
    ],
    [
      `other requests during the burst: p99 ${result.burstP99Ms?.toFixed(1)} ms, max ${result.burstMaxMs?.toFixed(1)} ms over ${result.burstProbeRequests} (target p99 < ${P99_TARGET_MS} ms)`,
      result.burstP99Ms < P99_TARGET_MS,
    ],
    [
      `emulator RSS after 1,000,000 events: ${mib(result.rssAfterMillionEventsMiB)} (at start ${mib(result.rssStartMiB)}, V8 heap capped at ${result.boundsHeapMiB} MiB; target ≤ ${RSS_TARGET_MIB} MiB)`,
      result.rssAfterMillionEventsMiB == null || result.rssAfterMillionEventsMiB <= RSS_TARGET_MIB,
    ],
  ];
  if ('rssAfterStalledClientsMiB' in result) {
    checks.push([
      `emulator RSS after ${STALLED_EVENTS.toLocaleString('en-US')} events with 4 stalled streams: ${mib(result.rssAfterStalledClientsMiB)}, stalled streams still open ${result.stalledStillOpen} (target ≤ ${RSS_TARGET_MIB} MiB, all cut off)`,
      (result.rssAfterStalledClientsMiB ?? 0) <= RSS_TARGET_MIB && result.stalledStillOpen === 0,
    ]);
    checks.push([
      `emulator RSS after ${AUTHORIZE_GETS.toLocaleString('en-US')} GET /oauth/authorize: ${mib(result.rssAfterAuthorizeFloodMiB)} (target ≤ ${RSS_TARGET_MIB} MiB)`,
      (result.rssAfterAuthorizeFloodMiB ?? 0) <= RSS_TARGET_MIB,
    ]);
  }
  if ('dashboardPeakRssMiB' in result) checks.push(dashboardCheck(result));
  let missed = 0;
  for (const [line, ok] of checks) {
    if (!ok) missed++;
    print(`emulator: ${line}${ok ? '' : '  <- MISSED'}`);
  }
  return missed;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.env.BENCH_EMULATOR_ONLY === 'dashboard') {
  const result = await measureDashboard();
  console.log(JSON.stringify(result));
  const [line, ok] = dashboardCheck(result);
  console.error(`emulator: ${line}${ok ? '' : '  <- MISSED'}`);
  process.exitCode = ok ? 0 : 1;
} else if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { seed, stop } = await startSpawned();
  try {
    const result = await runEmulatorBench(seed);
    console.log(JSON.stringify(result));
    process.exitCode = reportEmulatorBench(result) ? 1 : 0;
  } finally {
    stop();
  }
}
