// svc without Node (`npm run dist` first): the artefacts' sizes, and the start-up of the
// standalone linux-x64 binary beside the npm install's (`node bin/svc.js` under the same
// Node 26, and under this machine's Node): `--version`, `--help` on a pipe, and
// `account --json` over https; then a first run's `account --json` (a temp dir of its own: no
// compile cache yet), beside the npm install's first run under the same Node. The binary
// unpacks nothing (useVfs). The budget (decided in issue 43: Node mounts its VFS before svc's code
// runs, which one launcher path accepts): `--version` and `--help` <= 1.20x the npm install on
// the same Node, `account --json` <= 1.10x, and a first run <= 100 ms.
//   node bench/standalone.mjs          BENCH_RUNS=20 runs a case (after 3 warm-ups)
// https: an https front (test/helpers/tls/'s certificate for 127.0.0.1, trusted through
// NODE_EXTRA_CA_CERTS) before the binary's own emulator, the same for every case.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeBinary } from '../scripts/nodes.mjs';
import { binaryName, debName, releaseDir, SEA_NODE } from '../scripts/dist.mjs';
import { spawnEmulator } from './spawned-emulator.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 20);
const binary = join(releaseDir, binaryName('x64'));
if (!existsSync(binary)) {
  console.error(`bench/standalone: ${binary} is missing: run npm run dist first`);
  process.exit(2);
}
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-standalone-'));
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** One run's wall time in ms. Spawned without blocking: the https front answers from this process. */
function timeOnce(program, args, env) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(program, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0) reject(new Error(`${program} ${args.join(' ')} exited ${code}: ${stderr}`));
      else resolve(ms);
    });
  });
}

/** The binary's own emulator on http, behind an https front of this process's. */
async function startHttpsService() {
  const started = await spawnEmulator({ command: [binary], env: { ...process.env, XDG_CACHE_HOME: join(scratch, 'emulator-cache') } });
  const target = new URL(started.url);
  const tls = join(root, 'test/helpers/tls');
  const front = createServer({ cert: readFileSync(join(tls, 'cert.pem')), key: readFileSync(join(tls, 'key.pem')) }, (req, res) => {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  });
  await new Promise((resolve) => front.listen(0, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${front.address().port}`,
    key: started.keys.test,
    ca: join(tls, 'cert.pem'),
    async stop() {
      front.closeAllConnections();
      front.close();
      started.stop();
    },
  };
}

const service = await startHttpsService();
const installs = [
  { name: 'standalone binary', program: binary, prefix: [] },
  { name: `npm install, node ${SEA_NODE}`, program: nodeBinary(SEA_NODE), prefix: [join(root, 'bin/svc.js')] },
  { name: `npm install, node ${process.versions.node}`, program: process.execPath, prefix: [join(root, 'bin/svc.js')] },
].filter((install) => existsSync(install.program));
const commands = [
  { name: '--version', args: ['--version'], budget: 1.2 },
  { name: '--help (pipe)', args: ['--help'], budget: 1.2 },
  { name: 'account --json (https)', args: ['account', '--json'], budget: 1.1 },
];
/** A first run of the binary (no compile cache, nothing of its own on disk yet), in ms. */
const FIRST_RUN_BUDGET_MS = 100;
const env = {
  PATH: process.env.PATH,
  HOME: scratch,
  XDG_CACHE_HOME: join(scratch, 'cache'),
  SVC_CONFIG_DIR: join(scratch, 'config'),
  SVC_API_KEY: service.key,
  SVC_BASE_URL: service.url,
  NODE_EXTRA_CA_CERTS: service.ca,
  NO_COLOR: '1',
};

// Taking turns run by run, so a slower moment of the machine slows every case alike.
const times = installs.map(() => commands.map(() => []));
for (let i = 0; i < runs + 3; i++) {
  for (const [a, install] of installs.entries()) {
    for (const [b, command] of commands.entries()) {
      const ms = await timeOnce(install.program, [...install.prefix, ...command.args], env);
      if (i >= 3) times[a][b].push(ms);
    }
  }
}

// A first run: a temp dir of its own each time, so Node's compile cache starts empty for both.
const firsts = installs.slice(0, 2).map(() => []);
for (let i = 0; i < Math.min(runs, 10); i++) {
  for (const [a, install] of installs.slice(0, 2).entries()) {
    const tmp = join(scratch, `first-${a}-${i}`);
    mkdirSync(tmp);
    firsts[a].push(await timeOnce(install.program, [...install.prefix, 'account', '--json'], { ...env, TMPDIR: tmp }));
  }
}

await service.stop();
rmSync(scratch, { recursive: true, force: true });

const lines = [];
lines.push(`svc standalone (median of ${runs} runs, ms)`, '');
lines.push(`| | ${commands.map((c) => c.name).join(' | ')} |`, `|---|${commands.map(() => '---:').join('|')}|`);
installs.forEach((install, a) => lines.push(`| ${install.name} | ${times[a].map((t) => median(t).toFixed(1)).join(' | ')} |`));
lines.push('');
const verdict = (ok) => (ok ? 'within' : 'OVER');
lines.push(
  `first run, account --json (https): ${installs
    .slice(0, 2)
    .map((install, a) => `${install.name} ${median(firsts[a]).toFixed(1)} ms`)
    .join('; ')} (budget for the binary ${FIRST_RUN_BUDGET_MS} ms: ${verdict(median(firsts[0]) <= FIRST_RUN_BUDGET_MS)})`,
);
lines.push(
  `standalone / npm install on node ${SEA_NODE}: ${commands
    .map((c, b) => {
      const ratio = median(times[0][b]) / median(times[1][b]);
      return `${c.name} ${ratio.toFixed(2)}x (budget ${c.budget.toFixed(2)}x: ${verdict(ratio <= c.budget)})`;
    })
    .join(', ')}`,
);
const sizes = ['x64', 'arm64'].flatMap((arch) => [binaryName(arch), debName(arch)]).filter((f) => existsSync(join(releaseDir, f)));
lines.push(`sizes: ${sizes.map((f) => `${f} ${mib(statSync(join(releaseDir, f)).size)}`).join(', ')}`);
process.stdout.write(`${lines.join('\n')}\n`);
