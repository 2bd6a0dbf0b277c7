// `npm run bench`: start-up ratios against `node -e 0` measured in this same run,
// peak memory of each command, then the emulator and events throughput benchmarks.
// Budgets (design.md): --version, --help, calls --help ≤ 1.3×; account --json and
// calls list --json (SVC_API_KEY, running emulator) ≤ 1.6×; peak memory ≤ 60 MiB.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin/svc.js');
const peakPreload = join(root, 'bench/peak-rss.cjs');
const runs = Number(process.env.BENCH_RUNS ?? 30);
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-'));

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** One wall-clock run of `node <args>`, in ms. */
function timeOnce(args, env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

/**
 * Median wall time of each case (after 3 warm-ups) and its peak RSS. The cases take turns,
 * run by run, so a machine that slows down for a while slows every case alike and the
 * ratios to the baseline stay fair.
 */
function measureAll(cases) {
  const envs = cases.map((c) => ({ ...process.env, ...(c.env ?? {}), SVC_CONFIG_DIR: join(scratch, 'config'), NO_COLOR: '1' }));
  const times = cases.map(() => []);
  for (let i = 0; i < runs + 3; i++) {
    cases.forEach((c, j) => {
      const ms = timeOnce(c.args, envs[j]);
      if (i >= 3) times[j].push(ms);
    });
  }
  return cases.map((c, j) => {
    // Peak memory from separate runs, so the preload does not colour the timings.
    const rssFile = join(scratch, `rss-${j}`);
    for (let i = 0; i < 3; i++) {
      spawnSync(process.execPath, ['--require', peakPreload, ...c.args], { env: { ...envs[j], SVC_BENCH_RSS_FILE: rssFile }, stdio: 'ignore' });
    }
    const peaks = readFileSync(rssFile, 'utf8').trim().split('\n').map(Number);
    return { ms: median(times[j]), peakMiB: Math.max(...peaks) / 1024 };
  });
}

async function startEmulator() {
  const child = spawn(process.execPath, [svc, 'emulator', '--port', '0', '--json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end >= 0) resolve(buffered.slice(0, end));
    });
    child.on('exit', (code) => reject(new Error(`emulator exited ${code}`)));
  });
  return { ...JSON.parse(line), stop: () => child.kill('SIGINT') };
}

const emulator = await startEmulator();
const apiEnv = { SVC_API_KEY: emulator.keys.test, SVC_BASE_URL: emulator.url };

const cases = [
  { name: 'svc --version', args: [svc, '--version'], budget: 1.3 },
  { name: 'svc --help', args: [svc, '--help'], budget: 1.3 },
  { name: 'svc calls --help', args: [svc, 'calls', '--help'], budget: 1.3 },
  { name: 'svc account --json', args: [svc, 'account', '--json'], env: apiEnv, budget: 1.6 },
  { name: 'svc calls list --json', args: [svc, 'calls', 'list', '--json'], env: apiEnv, budget: 1.6 },
];

const [baseline, ...measured] = measureAll([{ name: 'node -e 0', args: ['-e', '0'] }, ...cases]);
const rows = [];
let overBudget = 0;
for (const [i, c] of cases.entries()) {
  const m = measured[i];
  const ratio = m.ms / baseline.ms;
  const ok = ratio <= c.budget && m.peakMiB <= 60;
  if (!ok) overBudget++;
  rows.push({ command: c.name, ms: m.ms.toFixed(1), ratio: `${ratio.toFixed(2)}×`, budget: `≤ ${c.budget}×`, peakMiB: m.peakMiB.toFixed(1), ok: ok ? 'yes' : 'NO' });
}

console.log(`node ${process.version}, ${runs} runs each (cases in turn), median wall time`);
console.log(`baseline: node -e 0 = ${baseline.ms.toFixed(1)} ms, peak ${baseline.peakMiB.toFixed(1)} MiB`);
console.table(rows);

const results = { baselineMs: baseline.ms, startup: rows };
try {
  const { runEventsBench } = await import('./events.mjs');
  const events = await runEventsBench();
  results.events = events;
  console.log(`events tail --json: ${Math.round(events.eventsPerSecond)} events/s, lost ${events.lost}, publish→print p50 ${events.p50Ms?.toFixed?.(1)} ms, p95 ${events.p95Ms?.toFixed?.(1)} ms (target ≥ 20,000/s, none lost)`);
  if (events.eventsPerSecond < 20_000 || events.lost > 0) overBudget++;
} catch (error) {
  console.log(`events benchmark unavailable: ${error.message}`);
  overBudget++;
}
try {
  const { runForwardBench } = await import('./events.mjs');
  const forward = await runForwardBench();
  results.forward = forward;
  console.log(`events tail --forward-to: ${Math.round(forward.deliveriesPerSecond)} deliveries/s, lost ${forward.lost}, out of order ${forward.outOfOrder} (target ≥ 5,000/s, in order)`);
  if (forward.deliveriesPerSecond < 5000 || forward.lost > 0 || forward.outOfOrder > 0) overBudget++;
} catch (error) {
  console.log(`forwarding benchmark unavailable: ${error.message}`);
  overBudget++;
}
try {
  const { runEmulatorBench, reportEmulatorBench } = await import('./emulator.mjs');
  const emu = await runEmulatorBench({ url: emulator.url, keys: emulator.keys, org_id: emulator.org_id });
  results.emulator = emu;
  overBudget += reportEmulatorBench(emu, console.log);
} catch (error) {
  console.log(`emulator benchmark unavailable: ${error.message}`);
  overBudget++;
}

// What a user downloads: the packed tarball and the production dependencies it pulls in.
function directoryBytes(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + directoryBytes(join(path, name)), 0);
}
const packed = JSON.parse(spawnSync('npm', ['pack', '--dry-run', '--json'], { cwd: root, encoding: 'utf8' }).stdout)[0];
const productionDeps = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies ?? {});
// @napi-rs/keyring installs one prebuilt binary package for this platform next to it.
const depDirs = readdirSync(join(root, 'node_modules/@napi-rs'))
  .filter((name) => name.startsWith('keyring'))
  .map((name) => join(root, 'node_modules/@napi-rs', name));
const depBytes = depDirs.reduce((sum, dir) => sum + directoryBytes(dir), 0);
results.package = { tarballKiB: packed.size / 1024, unpackedKiB: packed.unpackedSize / 1024, files: packed.entryCount, productionDeps, installedDepKiB: depBytes / 1024 };
console.log(`package: ${(packed.size / 1024).toFixed(0)} KiB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${packed.entryCount} files; production dependencies: ${productionDeps.length} (${productionDeps.join(', ')}, ${(depBytes / 1024 / 1024).toFixed(1)} MiB installed with its platform binary)`);

// `npm run bench -- --write-readme` puts these figures into the README's Performance section.
if (process.argv.includes('--write-readme')) {
  const readmePath = join(root, 'README.md');
  const readme = readFileSync(readmePath, 'utf8');
  const table = [
    `Measured by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}, node ${process.version}, ${process.platform}/${process.arch}; median of ${runs} runs, the cases taking turns; \`node -e 0\` = ${baseline.ms.toFixed(1)} ms in the same run.`,
    '',
    '| command | time | ratio to `node -e 0` | budget | peak memory |',
    '| --- | --- | --- | --- | --- |',
    ...rows.map((r) => `| \`${r.command}\` | ${r.ms} ms | ${r.ratio} | ${r.budget} | ${r.peakMiB} MiB |`),
    '',
    results.events ? `- \`svc events tail --json > /dev/null\`: ${Math.round(results.events.eventsPerSecond).toLocaleString('en-US')} events/s, ${results.events.lost} lost${results.events.p50Ms != null ? `, publish→print latency p50 ${results.events.p50Ms.toFixed(1)} ms, p95 ${results.events.p95Ms.toFixed(1)} ms` : ''} (target ≥ 20,000/s).` : '- events benchmark: unavailable in this run.',
    results.forward ? `- \`svc events tail --forward-to URL\` (signed, keep-alive, one delivery at a time so they arrive in order): ${Math.round(results.forward.deliveriesPerSecond).toLocaleString('en-US')} deliveries/s, ${results.forward.lost} lost, ${results.forward.outOfOrder} out of order (target ≥ 5,000/s).` : '- forwarding benchmark: unavailable in this run.',
    results.emulator ? `- emulator: ${Math.round(results.emulator.requestsPerSecond).toLocaleString('en-US')} authenticated requests/s (target ≥ 1,000); ${Math.round(results.emulator.eventsPerSecond).toLocaleString('en-US')} events/s to one stream in a 200,000-event burst, ${results.emulator.lost} lost (target ≥ 200,000/s); other requests during the burst p99 ${results.emulator.burstP99Ms.toFixed(1)} ms (target < 50 ms); RSS after a million events ${results.emulator.rssAfterMillionEventsMiB?.toFixed(0) ?? 'n/a'} MiB (target ≤ 200 MiB).` : '- emulator benchmark: unavailable in this run.',
    `- package: ${(packed.size / 1024).toFixed(0)} KiB packed, ${packed.entryCount} files; ${productionDeps.length} production dependency (${productionDeps.join(', ')}), ${(depBytes / 1024 / 1024).toFixed(1)} MiB installed.`,
    '- peers on this machine (design.md): twilio, wrangler, netlify, firebase start in 0.7–1.0 s, 8–20× `node -e 0`; a bundled commander CLI: 1.2×.',
  ].join('\n');
  const updated = readme.replace(/<!-- bench:start -->[\s\S]*<!-- bench:end -->/, `<!-- bench:start -->\n${table}\n<!-- bench:end -->`);
  writeFileSync(readmePath, updated);
  console.log('README.md Performance section updated');
}

emulator.stop();
rmSync(scratch, { recursive: true, force: true });
console.log(overBudget ? `${overBudget} result(s) outside the budget` : 'all within budget');
process.exitCode = overBudget ? 1 : 0;
