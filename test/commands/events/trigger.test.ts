// `svc events trigger`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../../helpers/parse.js';

const { ok, refused } = parsing('events trigger');

describe('svc events trigger: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('events', 'trigger', 'call.ended', '--override', 'call.title=Support')).toMatchObject({ type: 'call.ended' });
    expect(await refused('events', 'trigger', 'call.nope')).toContain('is not an event type');
  });
  it('declares scopes that cover every request of the fixtures it ships', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { ENDPOINTS } = await import('../../../src/contract/endpoints.js');
    const { command } = await import('../../../src/commands/events/trigger.js');
    const dir = join(import.meta.dirname, '../../../fixtures/triggers');
    const requested = readdirSync(dir).flatMap((file) =>
      (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { steps: { request: string }[] }).steps.map((s) => s.request),
    );
    expect(requested.length).toBeGreaterThan(10);
    const needed = new Set(requested.map((name) => ENDPOINTS[name as keyof typeof ENDPOINTS].scope));
    expect([...needed].filter((scope) => scope !== null && !(command.scopes ?? []).includes(scope))).toEqual([]);
  });
});
