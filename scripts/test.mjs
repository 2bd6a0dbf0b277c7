// `npm test`: build, type-check, the in-process suites, then the real-component suites
// (keychain under a private D-Bus session, browser, packaged install, shells).
// Ends with one plain closing line, "tests: N passed, N failed, N skipped", counted
// from vitest's JSON reports of both runs.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';

const reportDir = '.tmp/test-reports';
rmSync(reportDir, { recursive: true, force: true });
mkdirSync(reportDir, { recursive: true });

function step(label, command, args) {
  process.stderr.write(`\n== ${label}\n`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  return result.status ?? 1;
}

function counts(file) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    return {
      passed: report.numPassedTests ?? 0,
      failed: (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0),
      skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
    };
  } catch {
    return { passed: 0, failed: 1, skipped: 0 }; // no report: the run itself broke
  }
}

const extra = process.argv.slice(2);
let status = step('build', 'node', ['scripts/build.mjs']);
if (status === 0) status = step('type-check', 'npx', ['tsc', '--noEmit']);
if (status !== 0) process.exit(status);

const json = (name) => ['--reporter=default', '--reporter=json', `--outputFile.json=${reportDir}/${name}.json`];
const unit = step('in-process suites', 'npx', ['vitest', 'run', ...json('unit'), ...extra]);
const real = step('real-component suites', 'bash', ['scripts/test-real.sh', ...json('real')]);

const all = [counts(`${reportDir}/unit.json`), counts(`${reportDir}/real.json`)].reduce((a, b) => ({
  passed: a.passed + b.passed,
  failed: a.failed + b.failed,
  skipped: a.skipped + b.skipped,
}));
process.stdout.write(`\ntests: ${all.passed} passed, ${all.failed} failed, ${all.skipped} skipped\n`);
process.exit(unit !== 0 || real !== 0 || all.failed > 0 ? 1 : 0);
