// A dashboard tab opened before the emulator restarted: with --state its form is accepted on
// the first submit (the session secret is kept with the state); without --state the page says
// once that the emulator restarted and keeps every typed value.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const scratch = mkdtempSync(join(tmpdir(), 'svc-dashboard-restart-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The tab: the Keys page as a browser loads it, its cookie and the form's token. */
async function openTab(emulator: RunningEmulator): Promise<{ cookie: string; csrf: string; orgId: string }> {
  const answer = await fetch(`${emulator.url}/keys`);
  const cookie = answer.headers.get('set-cookie')!.split(';')[0]!;
  const html = await answer.text();
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1]!, orgId: emulator.seed.org_id };
}

/** The tab's "Create key" form, submitted. */
function createKey(url: string, tab: { cookie: string; csrf: string; orgId: string }, name: string) {
  return fetch(`${url}/_dashboard/keys`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: tab.cookie, origin: url },
    body: new URLSearchParams({ csrf: tab.csrf, mode: 'test', org_id: tab.orgId, name, scopes: 'translate', key_mode: 'test' }),
  });
}

/** Stops `before` and starts again on its port, as `svc emulator` run again does. */
async function restart(before: RunningEmulator, statePath?: string): Promise<RunningEmulator> {
  await before.close();
  return startEmulator({ port: before.port, ...(statePath ? { statePath } : {}) });
}

describe('a dashboard tab opened before a restart', () => {
  it('with --state: its form is accepted on the first submit, and the session secret is in no export', async () => {
    const statePath = join(scratch, 'state.jsonl');
    const first = await startEmulator({ statePath });
    const tab = await openTab(first);
    const second = await restart(first, statePath);
    try {
      const sent = await createKey(second.url, tab, 'made after the restart');
      expect(sent.status).toBe(200);
      expect(await sent.text()).toContain('Your new API key');
      expect([...second.state.keys.values()].map((key) => key.name)).toContain('made after the restart');
      const exported = await (await fetch(`${second.url}/_emulator/state`, { headers: { origin: second.url } })).text();
      const secret = second.state.sessionSecret.toString('base64url');
      expect(readFileSync(statePath, 'utf8')).toContain(secret);
      expect(exported).not.toContain(secret);
    } finally {
      await second.close();
    }
  });

  it('without --state: the page says once that the emulator restarted and keeps what was typed; the form then goes through', async () => {
    const first = await startEmulator();
    const tab = await openTab(first);
    const second = await restart(first);
    try {
      const refused = await createKey(second.url, tab, 'typed before the restart');
      expect(refused.status).toBe(403);
      const page = await refused.text();
      expect(page.match(/loaded before the emulator restarted/g)).toHaveLength(1);
      expect(page).toMatch(/value="typed before the restart"/);
      expect(page).toMatch(/name="scopes" value="translate" checked/);
      const fresh = /name="csrf" value="([^"]+)"/.exec(page)![1]!;
      // (A world without --state is a new one: its organization too.)
      const again = await createKey(second.url, { ...tab, csrf: fresh, orgId: second.seed.org_id }, 'typed before the restart');
      expect(again.status).toBe(200);
      expect(await again.text()).toContain('Your new API key');
    } finally {
      await second.close();
    }
  });
});
