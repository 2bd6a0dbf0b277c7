// `npm test`: the inner loop, on the Node that runs it: build, then vitest's in-process and
// spawned-binary suites (vitest.config.ts: everything but test/real/ and test/standalone/)
// with the type-check and the lint running beside them (the suites mostly wait on the
// processes they start; the checks fill that time). The checks keep their caches in .tmp/, so
// a second run checks only what changed; their output is printed once the suites end. The
// matrix (Node 20, 22, 24 and 26, the real-component suites, the standalone binaries and
// .debs) is `npm run test:all` (scripts/test-all.mjs), which .ci/run runs.
//   npm test [-- vitest arguments]
//   node scripts/test.mjs --checks      the checks alone (npm run lint)
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

/** The type-check and the lint (docs/design.md's rules and the format), each cached in .tmp/. */
export const CHECKS = [
  ['type-check', process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '--incremental', '--tsBuildInfoFile', '.tmp/tsc.tsbuildinfo']],
  ['lint', process.execPath, ['node_modules/eslint/bin/eslint.js', '--cache', '--cache-location', '.tmp/eslint-cache', 'src']],
  [
    'format',
    process.execPath,
    ['node_modules/prettier/bin/prettier.cjs', '--check', '--cache', '--log-level', 'warn', 'bin', 'src', 'test', 'scripts', 'bench'],
  ],
];

/** Starts `checks` at once; resolves to those that failed, each with what it printed. */
export function startChecks(checks = CHECKS) {
  return Promise.all(
    checks.map(
      ([label, command, args]) =>
        new Promise((resolve) => {
          const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
          let output = '';
          child.stdout.on('data', (chunk) => (output += chunk));
          child.stderr.on('data', (chunk) => (output += chunk));
          child.on('error', (error) => resolve({ label, status: 1, output: String(error) }));
          child.on('close', (status) => resolve({ label, status: status ?? 1, output }));
        }),
    ),
  ).then((results) => results.filter((result) => result.status !== 0));
}

/** Prints each failed check's output under its name; the exit status (0 when none failed). */
export function reportChecks(failed) {
  for (const { label, output } of failed) process.stderr.write(`\n== ${label} failed\n${output}`);
  if (failed.length === 0) process.stderr.write(`\n== ${CHECKS.map(([label]) => label).join(', ')}: passed\n`);
  return failed.length ? 1 : 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--checks') {
  process.exit(reportChecks(await startChecks()));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stderr.write('\n== build\n');
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  const checks = startChecks();
  // (Built: the suites' global setup does not build again.)
  process.env.SVC_BUILT = '1';
  process.stderr.write(
    `\n== suites on node ${process.versions.node}, with ${CHECKS.map(([label]) => label).join(', ')} beside them (npm run test:all: every tested Node, test/real/, the standalone binaries)\n`,
  );
  const suites = spawn(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', ...process.argv.slice(2)], { stdio: 'inherit' });
  const suitesStatus = await new Promise((resolve) => suites.on('close', (status) => resolve(status ?? 1)));
  const checksStatus = reportChecks(await checks);
  process.exit(suitesStatus || checksStatus);
}
