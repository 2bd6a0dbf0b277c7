// vitest's global setup: the bundle in dist/ is built once per test run, before any suite, so
// every spawned test runs bin/svc.js over what `npm run build` makes. scripts/test.mjs and test-all.mjs build
// first and says so with SVC_BUILT=1.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  if (process.env.SVC_BUILT === '1') return;
  const root = fileURLToPath(new URL('../..', import.meta.url));
  const built = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`build failed: ${built.stderr}`);
  process.env.SVC_BUILT = '1';
}
