// `npm test`: the inner loop, on the Node that runs it: build, type-check, lint, then vitest's
// in-process and spawned-binary suites (vitest.config.ts: everything but test/real/ and
// test/standalone/). The matrix (Node 20, 22, 24 and 26, the real-component suites, the
// standalone binaries and .debs) is `npm run test:all` (scripts/test-all.mjs), which .ci/run runs.
//   npm test [-- vitest arguments]
import { spawnSync } from 'node:child_process';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

function step(label, command, args) {
  process.stderr.write(`\n== ${label}\n`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  return result.status ?? 1;
}

let status = step('build', process.execPath, ['scripts/build.mjs']);
if (status === 0) status = step('type-check', process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit']);
// docs/design.md's rules (layers, no cycles, no `as never`, no heavy static import) and the format.
if (status === 0) status = step('lint', 'npm', ['run', '--silent', 'lint']);
if (status !== 0) process.exit(status);
// (Built: the suites' global setup does not build again.)
process.env.SVC_BUILT = '1';
status = step(`suites on node ${process.versions.node} (npm run test:all: every tested Node, test/real/, the standalone binaries)`, process.execPath, [
  'node_modules/vitest/vitest.mjs',
  'run',
  ...process.argv.slice(2),
]);
process.exit(status);
