// `svc events tail --json` throughput and latency, end to end through real processes:
// the emulator (`svc emulator --port 0 --json`) publishes, the tail prints NDJSON on a
// pipe, and this process counts the lines. Run after `npm run build`:
//   node bench/events.mjs            (BENCH_EVENTS=50000 BENCH_LATENCY_SAMPLES=200 to change)
// Target (docs/design.md): ≥ 100,000 events/s with none lost or reordered.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin/svc.js');

/** Starts `svc emulator --port 0 --json` and reads its one JSON line (url, org_id, keys). */
async function startEmulatorProcess() {
  const child = spawn(process.execPath, [svc, 'emulator', '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  const info = await new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk) => {
      buffered += chunk;
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      child.stdout.off('data', onData);
      try {
        resolve(JSON.parse(buffered.slice(0, newline)));
      } catch (error) {
        reject(new Error(`the emulator printed something that is not its JSON line: ${buffered.slice(0, 200)}`));
      }
    };
    child.stdout.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the emulator exited (${code}) before it started: ${stderr}`)));
  });
  child.removeAllListeners('exit');
  return { child, info };
}

async function control(url, method, path, body) {
  const res = await fetch(url + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function waitForStreams(url, n) {
  for (let i = 0; i < 1000; i++) {
    const stats = await control(url, 'GET', '/_emulator/stats');
    if (stats.open_streams >= n) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('the tail never opened its event stream');
}

/**
 * Spawns `svc events tail --json --max-events N` and hands each complete stdout line to
 * `onLine(line, at)` as it arrives (`at`: performance.now()). Resolves with its exit code.
 */
function spawnTail(emulator, maxEvents, configDir, onLine) {
  const child = spawn(process.execPath, [svc, 'events', 'tail', '--json', '--max-events', String(maxEvents)], {
    env: { ...process.env, SVC_API_KEY: emulator.keys.test, SVC_BASE_URL: emulator.url, SVC_CONFIG_DIR: configDir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c) => (stderr += c));
  let partial = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    const at = performance.now();
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    for (const line of lines) if (line) onLine(line, at);
  });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
  return { child, exited };
}

function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function runEventsBench({
  events = Number(process.env.BENCH_EVENTS ?? 50_000),
  latencySamples = Number(process.env.BENCH_LATENCY_SAMPLES ?? 200),
} = {}) {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-events-bench-'));
  const { child: emulatorProcess, info: emulator } = await startEmulatorProcess();
  const children = [emulatorProcess];
  try {
    // Throughput: one burst of `events`, counted line by line in this process.
    const ids = [];
    let lastLineAt = 0;
    const tail = spawnTail(emulator, events, configDir, (line, at) => {
      ids.push(JSON.parse(line).id);
      lastLineAt = at;
    });
    children.push(tail.child);
    await waitForStreams(emulator.url, 1);
    const started = performance.now();
    await control(emulator.url, 'POST', '/_emulator/events', { org_id: emulator.org_id, mode: 'test', type: 'call.started', count: events });
    const { code, stderr } = await tail.exited;
    if (code !== 0) throw new Error(`events tail exited ${code}: ${stderr}`);
    // None lost: every id once, in publication order (ids are fixed-width, so string order is theirs).
    let inOrder = 0;
    const unique = new Set(ids);
    for (let i = 0; i < ids.length; i++) if (i === 0 || ids[i] > ids[i - 1]) inOrder++;
    const lost = events - Math.min(unique.size, inOrder);
    const eventsPerSecond = ids.length / ((lastLineAt - started) / 1000);

    // Latency: one event at a time, from just before the publish request to its line on our side.
    const latencies = [];
    let waiting = null;
    const latencyTail = spawnTail(emulator, latencySamples, configDir, (_line, at) => waiting?.(at));
    children.push(latencyTail.child);
    await waitForStreams(emulator.url, 1);
    for (let i = 0; i < latencySamples; i++) {
      const printed = new Promise((resolve) => (waiting = resolve));
      const publishedAt = performance.now();
      await control(emulator.url, 'POST', '/_emulator/events', { org_id: emulator.org_id, mode: 'test', type: 'chat.message.created', count: 1 });
      const at = await printed;
      latencies.push(at - publishedAt);
    }
    const latency = await latencyTail.exited;
    if (latency.code !== 0) throw new Error(`events tail (latency) exited ${latency.code}: ${latency.stderr}`);
    latencies.sort((a, b) => a - b);
    return { eventsPerSecond, lost, p50Ms: percentile(latencies, 50), p95Ms: percentile(latencies, 95) };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGINT');
    rmSync(configDir, { recursive: true, force: true });
  }
}

/**
 * `svc events tail --forward-to URL` throughput: a burst of `events` forwarded, signed, to a
 * keep-alive receiver in this process, which answers at once, checks order and counts
 * deliveries. Target (issue 25): ≥ 2,000 deliveries/s, in order (well above any handler we
 * know of, which does work of its own for each event).
 */
export async function runForwardBench({ events = Number(process.env.BENCH_FORWARD_EVENTS ?? 20_000) } = {}) {
  const { createServer } = await import('node:http');
  const configDir = mkdtempSync(join(tmpdir(), 'svc-forward-bench-'));
  const { child: emulatorProcess, info: emulator } = await startEmulatorProcess();
  const children = [emulatorProcess];
  let received = 0;
  let outOfOrder = 0;
  let previous = '';
  let firstAt = 0;
  let lastAt = 0;
  const server = createServer((req, res) => {
    const id = String(req.headers['svc-event-id']);
    req.resume();
    req.on('end', () => {
      const at = performance.now();
      if (received === 0) firstAt = at;
      lastAt = at;
      if (id <= previous) outOfOrder++;
      previous = id;
      received++;
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${server.address().port}/hooks`;
  try {
    const child = spawn(process.execPath, [svc, 'events', 'tail', '--json', '--max-events', String(events), '--forward-to', hook], {
      env: {
        ...process.env,
        SVC_API_KEY: emulator.keys.test,
        SVC_BASE_URL: emulator.url,
        SVC_CONFIG_DIR: configDir,
        SVC_FORWARD_SECRET: 'bench-forwarding-secret-0123456789',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    children.push(child);
    const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    await waitForStreams(emulator.url, 1);
    const started = performance.now();
    await control(emulator.url, 'POST', '/_emulator/events', { org_id: emulator.org_id, mode: 'test', type: 'call.started', count: events });
    const code = await exited;
    if (code !== 0) throw new Error(`events tail --forward-to exited ${code}`);
    return {
      deliveriesPerSecond: received / ((lastAt - started) / 1000),
      deliveredPerSecondFirstToLast: received / ((lastAt - firstAt) / 1000),
      delivered: received,
      lost: events - received,
      outOfOrder,
    };
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGINT');
    server.closeAllConnections();
    server.close();
    rmSync(configDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await runEventsBench();
  console.log(
    `events tail --json: ${Math.round(result.eventsPerSecond).toLocaleString('en-US')} events/s, lost ${result.lost}, ` +
      `publish→print p50 ${result.p50Ms?.toFixed(1)} ms, p95 ${result.p95Ms?.toFixed(1)} ms (target ≥ 100,000/s, none lost)`,
  );
  console.log(JSON.stringify(result));
  if (result.eventsPerSecond < 100_000 || result.lost > 0) process.exitCode = 1;
  const forward = await runForwardBench();
  console.log(
    `events tail --forward-to: ${Math.round(forward.deliveriesPerSecond).toLocaleString('en-US')} deliveries/s, lost ${forward.lost}, out of order ${forward.outOfOrder} (target ≥ 2,000/s, in order)`,
  );
  console.log(JSON.stringify(forward));
  if (forward.deliveriesPerSecond < 2000 || forward.lost > 0 || forward.outOfOrder > 0) process.exitCode = 1;
}
