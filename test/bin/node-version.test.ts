// scripts/test.mjs runs the suites under each tested Node by putting its bin directory first
// on PATH and setting SVC_EXPECT_NODE. This proves the run really is under that Node, both
// vitest's own process and a `node` that a test (or an installed `svc`) starts from PATH.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const expected = process.env.SVC_EXPECT_NODE;

describe.skipIf(!expected)(`the Node under test (SVC_EXPECT_NODE=${expected})`, () => {
  it('runs vitest', () => {
    expect(process.versions.node).toBe(expected);
  });

  it('is the `node` found on PATH', () => {
    const found = spawnSync('node', ['-p', 'process.versions.node'], { encoding: 'utf8' });
    expect(found.stdout.trim()).toBe(expected);
  });
});
