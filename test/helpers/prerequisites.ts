// A real-component suite's prerequisites (a program, a D-Bus session, the bundle) as a test of
// their own: outside CI a missing one shows as a skipped test named with the reason, and a line
// on stderr, never as a pass; with SVC_REQUIRE_REAL=1 (CI) the test runs and fails instead.
import { describe, expect, it } from 'vitest';

/** Whether a missing prerequisite fails the run rather than skipping the suite. */
export const realRequired = process.env.SVC_REQUIRE_REAL === '1';

/** Declares the prerequisites test of `suite`, which `problem` (null when all are here) says is missing. */
export function prerequisites(suite: string, problem: string | null, titles: { describe: string; it: string }): void {
  if (problem) process.stderr.write(`${suite} suite: ${realRequired ? 'FAILING' : 'skipping'}: ${problem}\n`);
  describe(titles.describe, () => {
    it.skipIf(problem !== null && !realRequired)(problem && !realRequired ? `${titles.it} (skipped: ${problem})` : titles.it, () => {
      expect(problem, `${suite} suite cannot run: ${problem}`).toBeNull();
    });
  });
}
