// Request commands where users run them (issue 25): over https against `svc emulator --https`
// (its CA trusted through NODE_EXTRA_CA_CERTS) beside plain http, each straight to the
// emulator and through a relay of this bench's own that holds every chunk a fixed time each
// way, as a slow link does. For each command: its time, its peak memory, and its round trips
// = (fastest time through the relay − fastest straight) ÷ the relay's round-trip time, next to the
// fewest it needs. The relay delays the bytes, not the TCP handshake with it (that is local),
// so a connection costs no round trip here and a TLS 1.3 handshake costs one.
// References: a bare node:http/https script making the same requests (bench/bare-requests.cjs)
// and curl.
//   node bench/requests.mjs [--node PATH ...]        BENCH_RUNS (default 15), BENCH_DELAY_MS (default 100)
// Budgets (docs/design.md "Performance budget"): `account --json` over https ≤ 1.30× the bare
// node:https script, peak memory ≤ the script's + 4 MiB; round trips at the minimum for
// account, calls list, auth token with a refresh and the start of events tail.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnEmulator } from './spawned-emulator.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin/svc.js');
const bare = join(root, 'bench/bare-requests.cjs');
const peakPreload = join(root, 'bench/peak-rss.cjs');

export const ACCOUNT_RATIO_BUDGET = 1.3;
/** `account --json` over plain http against the bare node:http script. */
export const ACCOUNT_HTTP_RATIO_BUDGET = 1.35;
export const PEAK_EXTRA_MIB_BUDGET = 4;
/** Round trips measured may exceed the minimum by this much (scheduling noise) and still count as at it. */
const ROUND_TRIP_TOLERANCE = 0.5;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** The relay (bench/relay.cjs) in a process of its own: the timed runs block this one. */
async function startRelay(port, delayMs) {
  const child = spawn(process.execPath, [join(root, 'bench/relay.cjs'), String(port), String(delayMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const relayPort = await new Promise((resolve, reject) => {
    child.stdout.once('data', (chunk) => resolve(Number(String(chunk).trim())));
    child.on('exit', (code) => reject(new Error(`the relay exited ${code}`)));
  });
  return { port: relayPort, close: () => child.kill() };
}

/** `svc emulator [--https] --json` in a process of its own, with the CA it serves with (https). */
async function startEmulator(https, configDir) {
  const info = await spawnEmulator({ args: https ? ['--https'] : [], env: { ...process.env, SVC_CONFIG_DIR: configDir } });
  return { ...info, ca: info.ca_file ? readFileSync(info.ca_file, 'utf8') : undefined };
}

/** A control-plane call of this bench's own (trusting the emulator's CA for this request only). */
function control(emulator, method, path, body) {
  const url = new URL(`/_emulator${path}`, emulator.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    // A connection per call: the timed runs block this process for longer than the
    // emulator keeps an idle connection, and a reused one it closed meanwhile hangs up.
    const req = send(url, { method, ca: emulator.ca, agent: false, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        res.statusCode < 300 ? resolve(text ? JSON.parse(text) : undefined) : reject(new Error(`control ${path}: ${res.statusCode} ${text}`)),
      );
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

function runOrThrow(program, args, env, input) {
  const ran = spawnSync(program, args, { env, input, encoding: 'utf8' });
  if (ran.status !== 0) throw new Error(`${[program, ...args].join(' ')} exited ${ran.status}: ${ran.stderr}`);
  return ran;
}

/**
 * An OAuth sign-in to the emulator, stored in a file: `svc login` through a scripted
 * "browser" that approves as the admin and follows the redirect to svc's loopback server.
 */
function signIn(emulator, configDir, baseEnv) {
  const browser = join(configDir, '..', `browser-${process.hrtime.bigint()}.cjs`);
  writeFileSync(
    browser,
    `const https = require('node:https'); const http = require('node:http');
const url = process.argv[2]; const base = new URL(url);
const client = base.protocol === 'https:' ? https : http;
const approve = client.request(base.origin + '/_emulator/approvals', { method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => {
  r.resume();
  r.on('end', () => client.get(url, (page) => { page.resume(); http.get(new URL(page.headers.location, url), (done) => done.resume()).on('error', () => {}); }).on('error', () => {}));
});
approve.on('error', () => {});
approve.end(JSON.stringify({ decision: 'approve', email: ${JSON.stringify(emulator.admin.email)}, org_id: ${JSON.stringify(emulator.org_id)} }));
`,
  );
  runOrThrow(process.execPath, [svc, 'login'], {
    ...baseEnv,
    SVC_CONFIG_DIR: configDir,
    SVC_BASE_URL: emulator.url,
    DISPLAY: ':0',
    BROWSER: `${process.execPath} ${browser}`,
  });
}

/** The same config folder, its addresses moved to `origin` (the relay): the service as seen through it. */
function movedTo(configDir, from, origin, scratch) {
  const copy = mkdtempSync(join(scratch, 'config-moved-'));
  cpSync(configDir, copy, { recursive: true });
  for (const file of ['config.json', 'credentials.json']) {
    const path = join(copy, file);
    writeFileSync(path, readFileSync(path, 'utf8').split(from).join(origin), { mode: 0o600 });
  }
  return copy;
}

/** Marks the stored sign-in expired, so the next `svc auth token` refreshes it (one request). */
function expireStoredToken(configDir) {
  const path = join(configDir, 'credentials.json');
  const text = readFileSync(path, 'utf8');
  const expired = text.replace(/\\"expires_at\\":\d+/g, '\\"expires_at\\":0').replace(/"expires_at":\d+/g, '"expires_at":0');
  writeFileSync(path, expired, { mode: 0o600 });
}

/**
 * Times each case straight and through the relay on each Node; answers rows per Node with
 * the measured round trips and the budgets' verdicts.
 */
export async function runRequestBench({ nodes, runs = Number(process.env.BENCH_RUNS ?? 15), delayMs = Number(process.env.BENCH_DELAY_MS ?? 100) } = {}) {
  const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-requests-'));
  const rttMs = 2 * delayMs;
  const stops = [];
  try {
    const baseEnv = { PATH: process.env.PATH ?? '', HOME: scratch, NO_COLOR: '1', SVC_CREDENTIAL_STORE: 'file' };
    const protocols = [];
    for (const https of [false, true]) {
      const emulator = await startEmulator(https, join(scratch, 'emulator-config'));
      stops.push(emulator.stop);
      const relay = await startRelay(new URL(emulator.url).port, delayMs);
      stops.push(relay.close);
      const name = https ? 'https' : 'http';
      const relayUrl = `${name}://127.0.0.1:${relay.port}`;
      const env = { ...baseEnv, ...(https ? { NODE_EXTRA_CA_CERTS: emulator.ca_file } : {}) };
      // A stored key (its profile knows the organization, so `events tail` asks nothing before its stream).
      const keyDirs = {};
      for (const [target, url] of [
        ['direct', emulator.url],
        ['relay', relayUrl],
      ]) {
        keyDirs[target] = mkdtempSync(join(scratch, 'config-key-'));
        runOrThrow(
          process.execPath,
          [svc, 'keys', 'add', '--stdin', '--name', 'bench'],
          { ...env, SVC_CONFIG_DIR: keyDirs[target], SVC_BASE_URL: url },
          emulator.keys.test,
        );
      }
      // A sign-in each (refresh tokens are single use), the relay's moved to the relay's address.
      const oauthDirect = mkdtempSync(join(scratch, 'config-oauth-'));
      signIn(emulator, oauthDirect, env);
      const oauthSecond = mkdtempSync(join(scratch, 'config-oauth-'));
      signIn(emulator, oauthSecond, env);
      const oauthDirs = { direct: oauthDirect, relay: movedTo(oauthSecond, emulator.url, relayUrl, scratch) };
      const published = await control(emulator, 'POST', '/events', { org_id: emulator.org_id, mode: 'test', type: 'call.started', count: 2 });
      protocols.push({ name, emulator, relayUrl, env, keyDirs, oauthDirs, since: published.first_id });
    }

    const curl = spawnSync('curl', ['--version']).status === 0;
    /** Each case: how to run it at `url` (direct or relay); `minimum` is its round trips over http (https adds the TLS one). */
    const commands = [
      { command: 'svc account --json', minimum: 1, svc: ['account', '--json'], key: true },
      { command: 'svc calls list --json', minimum: 1, svc: ['calls', 'list', '--json'], key: true },
      { command: 'svc auth token (refreshing)', minimum: 1, svc: ['auth', 'token'], oauth: true },
      {
        command: 'svc events tail (start: first event)',
        minimum: 1,
        svc: (p) => ['events', 'tail', '--json', '--max-events', '1', '--since', p.since],
        stored: true,
      },
      { command: 'bare node:http(s) script, the same two GETs at once (reference)', minimum: 1, script: true },
      ...(curl ? [{ command: 'curl, the same two GETs at once (reference)', minimum: 1, curl: true }] : []),
    ];

    const results = [];
    for (const node of nodes) {
      const cases = [];
      for (const p of protocols) {
        for (const c of commands) {
          for (const target of ['direct', 'relay']) {
            const url = target === 'direct' ? p.emulator.url : p.relayUrl;
            let program = node.binary;
            let args;
            let env = { ...p.env };
            let before;
            if (c.script) {
              args = [bare, '/v1/account', '/v1/balance'];
              env = { ...env, SVC_BASE_URL: url, SVC_API_KEY: p.emulator.keys.test };
            } else if (c.curl) {
              program = 'curl';
              args = [
                '-sS',
                '--fail',
                '--parallel',
                '--parallel-immediate',
                ...(p.name === 'https' ? ['--cacert', p.emulator.ca_file] : []),
                '-H',
                `authorization: Bearer ${p.emulator.keys.test}`,
                `${url}/v1/account`,
                `${url}/v1/balance`,
              ];
            } else {
              args = [svc, ...(typeof c.svc === 'function' ? c.svc(p) : c.svc)];
              if (c.key) env = { ...env, SVC_BASE_URL: url, SVC_API_KEY: p.emulator.keys.test, SVC_CONFIG_DIR: join(scratch, 'config-empty') };
              if (c.stored) env = { ...env, SVC_CONFIG_DIR: p.keyDirs[target] };
              if (c.oauth) {
                env = { ...env, SVC_CONFIG_DIR: p.oauthDirs[target] };
                before = () => expireStoredToken(p.oauthDirs[target]);
              }
            }
            cases.push({
              protocol: p.name,
              command: c.command,
              target,
              minimum: c.minimum + (p.name === 'https' ? 1 : 0),
              program,
              args,
              env,
              before,
              node: program === node.binary,
              times: [],
            });
          }
        }
      }
      // Cases in turn, run by run (a machine that slows down slows all alike); 2 warm-ups.
      for (let i = 0; i < runs + 2; i++) {
        // The emulator allows 600 requests a minute per key: its clock moves a minute each round.
        for (const p of protocols) await control(p.emulator, 'POST', '/clock', { advance_seconds: 60 });
        for (const c of cases) {
          c.before?.();
          const started = process.hrtime.bigint();
          const ran = spawnSync(c.program, c.args, { env: c.env, stdio: ['ignore', 'pipe', 'pipe'] });
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          if (ran.status !== 0) throw new Error(`${c.command} (${c.protocol}, ${c.target}) exited ${ran.status}: ${ran.stderr}`);
          if (i >= 2) c.times.push(ms);
        }
      }
      // Peak memory of the straight runs, from runs of their own (the preload stays out of the timings).
      for (const c of cases.filter((c) => c.node && c.target === 'direct')) {
        const file = join(scratch, `rss-${process.hrtime.bigint()}`);
        for (let i = 0; i < 3; i++) {
          c.before?.();
          spawnSync(c.program, ['--require', peakPreload, ...c.args], { env: { ...c.env, SVC_BENCH_RSS_FILE: file }, stdio: ['ignore', 'pipe', 'pipe'] });
        }
        c.peakMiB = Math.max(...readFileSync(file, 'utf8').trim().split('\n').map(Number)) / 1024;
      }
      const rows = [];
      for (const p of protocols) {
        for (const c of commands) {
          const direct = cases.find((x) => x.protocol === p.name && x.command === c.command && x.target === 'direct');
          const relayed = cases.find((x) => x.protocol === p.name && x.command === c.command && x.target === 'relay');
          const directMs = median(direct.times);
          const relayMs = median(relayed.times);
          rows.push({
            protocol: p.name,
            command: c.command,
            reference: Boolean(c.script || c.curl),
            ms: directMs,
            peakMiB: direct.peakMiB ?? null,
            relayMs,
            // From the fastest runs: a busy machine only ever adds time, and the relay's
            // delay is the same in every run.
            roundTrips: (Math.min(...relayed.times) - Math.min(...direct.times)) / rttMs,
            minimum: direct.minimum,
          });
        }
      }
      // The budgets.
      const failures = [];
      const accountHttps = rows.find((r) => r.protocol === 'https' && r.command === 'svc account --json');
      const scriptHttps = rows.find((r) => r.protocol === 'https' && r.command.startsWith('bare node'));
      const ratio = accountHttps.ms / scriptHttps.ms;
      if (ratio > ACCOUNT_RATIO_BUDGET)
        failures.push(`account --json over https is ${ratio.toFixed(2)}× the bare node:https script (budget ≤ ${ACCOUNT_RATIO_BUDGET}×)`);
      const accountHttp = rows.find((r) => r.protocol === 'http' && r.command === 'svc account --json');
      const scriptHttp = rows.find((r) => r.protocol === 'http' && r.command.startsWith('bare node'));
      const httpRatio = accountHttp.ms / scriptHttp.ms;
      if (httpRatio > ACCOUNT_HTTP_RATIO_BUDGET)
        failures.push(`account --json over http is ${httpRatio.toFixed(2)}× the bare node:http script (budget ≤ ${ACCOUNT_HTTP_RATIO_BUDGET}×)`);
      const extraMiB = accountHttps.peakMiB - scriptHttps.peakMiB;
      if (extraMiB > PEAK_EXTRA_MIB_BUDGET)
        failures.push(`account --json over https peaks ${extraMiB.toFixed(1)} MiB above the script (budget ≤ ${PEAK_EXTRA_MIB_BUDGET} MiB)`);
      for (const r of rows.filter((r) => !r.reference)) {
        r.atMinimum = r.roundTrips <= r.minimum + ROUND_TRIP_TOLERANCE;
        if (!r.atMinimum) failures.push(`${r.command} over ${r.protocol}: ${r.roundTrips.toFixed(1)} round trips (minimum ${r.minimum})`);
      }
      results.push({ version: node.version, rows, accountRatio: ratio, accountHttpRatio: httpRatio, accountExtraMiB: extraMiB, failures });
    }
    return { runs, rttMs, results };
  } finally {
    for (const stop of stops.reverse()) stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Console lines for one run's results; answers how many budgets were missed. */
export function reportRequestBench(bench, log) {
  let missed = 0;
  for (const { version, rows, accountRatio, accountHttpRatio, accountExtraMiB, failures } of bench.results) {
    log(
      `\nrequests on node v${version}: median of ${bench.runs} runs, straight to the emulator and through a relay adding a ${bench.rttMs} ms round trip; ` +
        `account --json over https ${accountRatio.toFixed(2)}× the bare node:https script (≤ ${ACCOUNT_RATIO_BUDGET}×), over http ${accountHttpRatio.toFixed(2)}× the bare node:http script (≤ ${ACCOUNT_HTTP_RATIO_BUDGET}×), peak ${accountExtraMiB >= 0 ? '+' : ''}${accountExtraMiB.toFixed(1)} MiB (≤ +${PEAK_EXTRA_MIB_BUDGET})`,
    );
    console.table(
      rows.map((r) => ({
        protocol: r.protocol,
        command: r.command,
        ms: r.ms.toFixed(1),
        peakMiB: r.peakMiB === null ? '-' : r.peakMiB.toFixed(1),
        [`ms, ${bench.rttMs} ms RTT`]: r.relayMs.toFixed(1),
        'round trips': r.roundTrips.toFixed(1),
        minimum: r.minimum,
        ok: r.reference ? '' : r.atMinimum ? 'yes' : 'NO',
      })),
    );
    for (const failure of failures) log(`over budget: ${failure}`);
    missed += failures.length;
  }
  return missed;
}

/** The README's rows for these results (Markdown). */
export function requestBenchMarkdown(bench) {
  return bench.results.flatMap(({ version, rows, accountRatio, accountExtraMiB }) => [
    '',
    `**Requests, Node ${version}**: straight to \`svc emulator\` (http) and \`svc emulator --https\`, and through the bench's relay adding a ${bench.rttMs} ms round trip. \`account --json\` over https: ${accountRatio.toFixed(2)}× the bare \`node:https\` script (budget ≤ ${ACCOUNT_RATIO_BUDGET}×), peak memory ${accountExtraMiB >= 0 ? '+' : ''}${accountExtraMiB.toFixed(1)} MiB (budget ≤ +${PEAK_EXTRA_MIB_BUDGET} MiB).`,
    '',
    `| protocol | command | time | peak memory | time at ${bench.rttMs} ms RTT | round trips | fewest possible |`,
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.protocol} | ${r.reference ? r.command : `\`${r.command}\``} | ${r.ms.toFixed(1)} ms | ${r.peakMiB === null ? '-' : `${r.peakMiB.toFixed(1)} MiB`} | ${r.relayMs.toFixed(1)} ms | ${r.roundTrips.toFixed(1)} | ${r.minimum} |`,
    ),
  ]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const given = args.flatMap((arg, i) => (arg === '--node' && args[i + 1] ? [args[i + 1]] : []));
  const nodes = given.length
    ? given.map((binary) => ({ binary, version: spawnSync(binary, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim() }))
    : [{ binary: process.execPath, version: process.versions.node }];
  const bench = await runRequestBench({ nodes });
  const missed = reportRequestBench(bench, console.log);
  console.log(missed ? `${missed} result(s) outside the budget` : 'all within budget');
  process.exitCode = missed ? 1 : 0;
}
