// Billed live actions (issue 24): a credential whose stored scopes cannot do it fails before
// asking, in the 403's own words; `svc api` asks for the billable POSTs the dedicated
// commands ask for.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import type { Prompter } from '../../src/io/interactive.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await testEmulator();
});
afterAll(async () => {
  await emu?.close();
});
beforeEach(async () => {
  await emu.reset();
});

/** A prompter that records each question and answers `answer`. */
function recordingPrompter(answer: boolean): Prompter & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    password: async (message) => {
      throw new Error(`unexpected prompt: ${message}`);
    },
    confirm: async (message) => {
      asked.push(message);
      return answer;
    },
  };
}

async function liveCallCount(): Promise<number> {
  const response = await fetch(`${emu.url}/v1/calls?limit=100`, { headers: { authorization: `Bearer ${emu.seed.keys.live}` } });
  return ((await response.json()) as { data: unknown[] }).data.length;
}

describe('a stored credential without the scope', () => {
  it('fails before asking, with the words and exit code of the 403', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const readOnly = await emu.plane.createKey(emu.seed.org_id, 'live', ['calls:read', 'account:read']);
    const added = await runCli(['keys', 'add', '--base-url', emu.url, '--name', 'ro'], { configDir, secrets, stdin: readOnly.key });
    expect(added.exitCode, added.stderr).toBe(0);

    const prompter = recordingPrompter(true);
    for (const argv of [
      ['calls', 'start', '--languages', 'en,es'],
      ['calls', 'lines', 'add', '--country', 'US'],
    ]) {
      const r = await runCli([...argv, '--live'], { configDir, secrets, tty: true, prompter });
      expect(r.exitCode, r.stderr).toBe(4);
      expect(r.stderr).toContain('forbidden: the credential lacks the calls:write scope [profile "default", Acme, live mode]');
      expect(r.stderr).not.toContain('continue?');
    }
    expect(prompter.asked).toEqual([]);
    expect(await liveCallCount()).toBe(0);

    // The service's own 403 reads the same.
    const viaService = await runCli(['calls', 'start', '--languages', 'en,es', '--live', '--yes'], {
      configDir,
      secrets,
      env: { SVC_API_KEY: readOnly.key, SVC_BASE_URL: emu.url },
    });
    expect(viaService.exitCode).toBe(4);
    expect(viaService.stderr).toContain('forbidden: the credential lacks the calls:write scope [SVC_API_KEY, live mode]');
  });
});
