// Start-up rows of the bench (docs/design.md "Performance budget"), on their own so they can run
// without the emulator: what the launcher answers (`--version`, `--help` on a pipe,
// `completion bash`), `--help` at a terminal (a pseudo-terminal of 80 columns, made by
// util-linux's `script`, around `node -e 0` too), `gh`'s `--help` and `--version` when
// installed, and the packed package's size.
//   node bench/startup.mjs [--node PATH ...]     BENCH_RUNS=30 runs a case
// Each ratio is to `node -e 0` of the same Node, measured in the same run, cases in turn.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testedNodes } from '../scripts/nodes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const svc = join(root, 'bin/svc.js');
const runs = Number(process.env.BENCH_RUNS ?? 30);
const PACKAGE_KIB_BUDGET = 1200;

const args = process.argv.slice(2);
const givenNodes = args.flatMap((arg, i) => (arg === '--node' && args[i + 1] ? [args[i + 1]] : []));
const nodes = givenNodes.length
  ? givenNodes.map((binary) => ({ binary, version: spawnSync(binary, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim() }))
  : testedNodes().filter((node) => node.binary);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const quote = (word) => `'${word.replace(/'/g, `'\\''`)}'`;
/** `program args…` in a pseudo-terminal of 80 columns, its output thrown away. */
const inTerminal = (program, programArgs) => ({
  program: 'script',
  args: ['-qec', `stty cols 80 rows 24; ${[program, ...programArgs].map(quote).join(' ')} >/dev/null`, '/dev/null'],
});

function timeOnce(c, env) {
  const started = process.hrtime.bigint();
  const result = spawnSync(c.program, c.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${c.name} exited ${result.status}: ${result.stderr}`);
  return ms;
}

function measure(cases, env) {
  const times = cases.map(() => []);
  for (let i = 0; i < runs + 3; i++) cases.forEach((c, j) => i >= 3 && times[j].push(timeOnce(c, env)));
  return times.map(median);
}

const gh = spawnSync('gh', ['--version']).status === 0;
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'));
// Node's compile cache (22+) in a folder of this run's: the warm-up runs write it, as a user's first run does.
const env = { ...process.env, SVC_CONFIG_DIR: join(scratch, 'config'), NODE_COMPILE_CACHE: join(scratch, 'compile-cache'), NO_COLOR: '1' };
let overBudget = 0;
try {
  for (const node of nodes) {
    const onPipe = [
      { name: 'node -e 0', args: ['-e', '0'] },
      { name: 'svc --version', args: [svc, '--version'], budget: 1.15 },
      { name: 'svc --help (pipe)', args: [svc, '--help'], budget: 1.15 },
      { name: 'svc completion bash', args: [svc, 'completion', 'bash'], budget: 1.15 },
    ].map((c) => ({ ...c, program: node.binary }));
    const atTerminal = [
      { name: 'node -e 0 (terminal)', ...inTerminal(node.binary, ['-e', '0']) },
      { name: 'svc --help (terminal, 80 columns)', ...inTerminal(node.binary, [svc, '--help']), budget: 1.5 },
    ];
    const peers = gh
      ? [
          { name: 'gh --version', program: 'gh', args: ['--version'] },
          { name: 'gh --help', program: 'gh', args: ['--help'] },
        ]
      : [];
    const all = [...onPipe, ...atTerminal, ...peers];
    const ms = measure(all, env);
    const baseline = { pipe: ms[0], terminal: ms[onPipe.length] };
    const rows = all.map((c, i) => {
      const reference = i < onPipe.length ? baseline.pipe : i < onPipe.length + atTerminal.length ? baseline.terminal : null;
      const ratio = reference ? ms[i] / reference : null;
      const ok = c.budget ? ratio <= c.budget : null;
      if (ok === false) overBudget++;
      return {
        command: c.name,
        ms: ms[i].toFixed(1),
        ratio: ratio ? `${ratio.toFixed(2)}×` : '-',
        budget: c.budget ? `≤ ${c.budget}×` : '',
        ok: ok === null ? '' : ok ? 'yes' : 'NO',
      };
    });
    console.log(`\nnode v${node.version}: ${runs} runs each (cases in turn), median wall time`);
    console.table(rows);
  }
  if (!gh) console.log('note: gh is not installed: no comparison with it (Debian: apt-get install gh)');

  const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
  const [{ size, unpackedSize, entryCount }] = JSON.parse(packed.stdout);
  const kib = size / 1024;
  if (kib > PACKAGE_KIB_BUDGET) overBudget++;
  console.log(
    `\npackage: ${kib.toFixed(0)} KiB packed (budget ≤ ${PACKAGE_KIB_BUDGET} KiB: ${kib <= PACKAGE_KIB_BUDGET ? 'yes' : 'NO'}), ${(unpackedSize / 1024).toFixed(0)} KiB unpacked, ${entryCount} files`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (!existsSync(join(root, 'dist/main.cjs'))) console.log('note: dist/ is missing: run npm run build first');
process.exitCode = overBudget ? 1 : 0;
