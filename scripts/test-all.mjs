// `npm run test:all` (the matrix, .ci/run; `npm test` is the inner loop, scripts/test.mjs): build, type-check and lint, then the suites on every tested Node (scripts/nodes.mjs):
// all of them on the oldest (the machine's own, 20) and the newest; on the versions between,
// the suites that exercise the process itself (spawned binary, parallel processes, and
// test/real/: keychain, terminal, browser, package, shells). Each Node runs vitest itself
// (PATH starts with its bin directory), so spawned tests, which use process.execPath or
// `node` from PATH, run under that Node too.
// Then, once, the standalone binaries and .debs (scripts/test-standalone.sh).
// Ends with one plain closing line, "tests: N passed, N failed, N skipped", summed from
// vitest's JSON reports of every run. A tested Node that is not installed is a visible note
// (`node scripts/nodes.mjs install` fetches it) and, when SVC_REQUIRE_REAL=1 (CI), a failure.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { testedNodes } from './nodes.mjs';
import { answerHelp } from './help.mjs';
import { CHECKS, reportChecks, startChecks } from './test.mjs';

answerHelp(import.meta.url);

const reportDir = '.tmp/test-reports';
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });
const requireAll = process.env.SVC_REQUIRE_REAL === '1';

/** The in-process suites' files that spawn the bundled binary (run on every tested Node). */
const SPAWNED_FILES = ['test/bin/', 'test/core/bin.test.ts', 'test/auth/parallel.test.ts'];

function step(label, command, args, env = process.env) {
  process.stderr.write(`\n== ${label}\n`);
  const result = spawnSync(command, args, { stdio: 'inherit', env });
  return result.status ?? 1;
}

function counts(file) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    // A file that failed with no failing test did not load or run (numFailedTestSuites would
    // also count each describe block around a failing test).
    const brokenFiles = (report.testResults ?? []).filter(
      (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
    ).length;
    return {
      passed: report.numPassedTests ?? 0,
      failed: (report.numFailedTests ?? 0) + brokenFiles,
      skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    };
  } catch {
    return { passed: 0, failed: 1, skipped: 0 }; // no report: the run itself broke
  }
}

/** Each failing case of a vitest JSON report: its file, its name and the first line of why. */
function failuresIn(file) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    return (report.testResults ?? []).flatMap((result) => {
      const where = relative(process.cwd(), result.name);
      const cases = (result.assertionResults ?? []).filter((test) => test.status === 'failed');
      if (cases.length === 0) return result.status === 'failed' ? [`${where}: ${firstLine(result.message)}`] : [];
      return cases.map((test) => `${where} > ${test.fullName ?? test.title}: ${firstLine(test.failureMessages?.[0])}`);
    });
  } catch {
    return [];
  }
}

const firstLine = (text) =>
  String(text ?? '')
    .replace(/\x1b\[[0-9;]*m/g, '')
    .trim()
    .split('\n')[0]
    .slice(0, 300);

const sum = (list) =>
  list.reduce((a, b) => ({ passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped }), { passed: 0, failed: 0, skipped: 0 });

const extra = process.argv.slice(2);
let status = step('build', 'node', ['scripts/build.mjs']);
if (status !== 0) process.exit(status);
// The type-check, docs/design.md's rules (layers, no cycles, no `as never`, no heavy static import) and the format, side by side.
process.stderr.write(`\n== ${CHECKS.map(([label]) => label).join(', ')}\n`);
status = reportChecks(await startChecks());
if (status !== 0) process.exit(status);
// (Built: the suites' global setup does not build again.)
process.env.SVC_BUILT = '1';

const vitest = 'node_modules/vitest/vitest.mjs';
const sections = [];
let anyRunFailed = false;
const nodes = testedNodes();
for (const node of nodes) {
  if (!node.binary) {
    const note = `${node.label}: not installed, not tested (\`node scripts/nodes.mjs install\` fetches it)`;
    process.stderr.write(`\n== ${note}\n`);
    sections.push({ label: node.label, note, totals: { passed: 0, failed: requireAll ? 1 : 0, skipped: 0 } });
    continue;
  }
  const tag = `node${node.version}`;
  // SVC_EXPECT_NODE: test/bin/node-version.test.ts fails if the tests did not run under this Node.
  // The newest Node runs the long sweeps whole; the others a part of each (each Node's run shows
  // svc's side of them): the real keychain's login/logout race, 100 rounds there and 20 here,
  // and the help pages at 80 and 50 columns in a real terminal, every page there and the root's
  // and each top-level command's here (the wrapping is svc's code, the same on every Node).
  const lighter = node === nodes.at(-1) ? {} : { SVC_RACE_ROUNDS: '20', SVC_HELP_PAGES: 'top' };
  const env = { ...process.env, PATH: `${dirname(node.binary)}:${process.env.PATH ?? ''}`, SVC_EXPECT_NODE: node.version, ...lighter };
  const json = (name) => ['--reporter=default', '--reporter=json', `--outputFile.json=${reportDir}/${tag}-${name}.json`];
  const which = node.suites === 'all' ? 'in-process suites' : 'spawned-binary suites';
  const files = node.suites === 'all' ? [] : SPAWNED_FILES;
  const unit = step(`${node.label}: ${which}`, node.binary, [vitest, 'run', ...json('unit'), ...files, ...extra], env);
  // The dashboard in Chromium (the longest real suite) on the newest Node only: the pages it
  // checks are the same HTML whichever Node serves them, and the emulator's server is tested on
  // every Node by the other suites. The binary, keychain and terminal suites run on every one.
  const between = node === nodes.at(-1) ? [] : ['--exclude', 'test/real/dashboard.test.ts'];
  const real = step(`${node.label}: real-component suites (test/real/)`, 'bash', ['scripts/test-real.sh', ...json('real'), ...between], env);
  if (unit !== 0 || real !== 0) anyRunFailed = true;
  const totals = sum([counts(`${reportDir}/${tag}-unit.json`), counts(`${reportDir}/${tag}-real.json`)]);
  sections.push({ label: node.label, note: `${node.suites === 'all' ? 'every suite' : 'spawned binary and test/real/'}`, totals });
}

// svc without Node (scripts/test-standalone.sh): the binaries and .debs are built and tested
// once, whichever Node runs vitest (the binaries hold their own Node 26).
{
  const prefix = `${reportDir}/standalone`;
  const code = step('standalone binaries and .debs, no node on PATH', 'bash', ['scripts/test-standalone.sh'], { ...process.env, SVC_REPORT_PREFIX: prefix });
  if (code !== 0) anyRunFailed = true;
  const totals = sum(['standalone', 'standalone-bin', 'standalone-terminal'].map((name) => counts(`${prefix}-${name}.json`)));
  sections.push({
    label: 'standalone linux-x64 and linux-arm64 binaries, .deb',
    note: 'test/standalone/, test/bin/ and the terminal suite against the binary',
    totals,
  });
}

process.stdout.write('\n');
// The failing cases by name, next to the totals: the end of a long CI log is what is read.
for (const file of readdirSync(reportDir).filter((name) => name.endsWith('.json'))) {
  for (const failed of failuresIn(join(reportDir, file))) process.stdout.write(`failed (${file.replace(/\.json$/, '')}): ${failed}\n`);
}
for (const { label, note, totals } of sections) {
  process.stdout.write(`${label}: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped — ${note}\n`);
}
const all = sum(sections.map((s) => s.totals));
process.stdout.write(`\ntests: ${all.passed} passed, ${all.failed} failed, ${all.skipped} skipped\n`);
process.exit(anyRunFailed || all.failed > 0 ? 1 : 0);
