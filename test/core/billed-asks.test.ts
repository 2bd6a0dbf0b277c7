// Billed live actions (issue 24): a credential whose stored scopes cannot do it fails before
// asking, in the 403's own words; `svc api` asks for the billable POSTs the dedicated
// commands ask for.
import { beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import type { Prompter } from '../../src/io/interactive.js';

/** The file's emulator, the seed again before each test. */
const emu = useTestEmulator({ resetEach: true });

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
  const response = await fetch(`${emu().url}/v1/calls?limit=100`, { headers: { authorization: `Bearer ${emu().seed.keys.live}` } });
  return ((await response.json()) as { data: unknown[] }).data.length;
}

describe('a stored credential without the scope', () => {
  it('fails before asking, with the words and exit code of the 403', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const readOnly = await emu().plane.createKey(emu().seed.org_id, 'live', ['calls:read', 'account:read']);
    const added = await runCli(['keys', 'add', '--base-url', emu().url, '--name', 'ro'], { configDir, secrets, stdin: readOnly.key });
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
      env: { SVC_API_KEY: readOnly.key, SVC_BASE_URL: emu().url },
    });
    expect(viaService.exitCode).toBe(4);
    expect(viaService.stderr).toContain('forbidden: the credential lacks the calls:write scope [SVC_API_KEY, live mode]');
  });
});

describe('svc api asks for the billable POSTs the dedicated commands ask for', () => {
  const live = { SVC_API_KEY: '', SVC_BASE_URL: '' };
  beforeEach(() => {
    Object.assign(live, { SVC_API_KEY: emu().seed.keys.live, SVC_BASE_URL: emu().url });
  });

  it('POST /v1/calls at a terminal: N does nothing (exit 1), y goes ahead; --yes does not ask', async () => {
    const no = recordingPrompter(false);
    const declined = await runCli(['api', 'POST', '/v1/calls', '-f', 'languages[]=en', '-f', 'languages[]=es'], { env: live, tty: true, prompter: no });
    expect(declined.exitCode).toBe(1);
    expect(no.asked).toEqual(['Starting a call (POST /v1/calls), billed $0.02/min to the organization of SVC_API_KEY: continue?']);
    // The question says it is billed, once: no note saying it again beside it (issue 44).
    expect(declined.stderr).not.toContain('is billed to');
    expect(declined.stderr).toContain('Set SVC_API_KEY to a test key (svc_test_…) to try it free of charge.');
    expect(declined.stderr).toContain('cancelled: nothing was done');
    expect(await liveCallCount()).toBe(0);

    const yes = recordingPrompter(true);
    const accepted = await runCli(['api', 'POST', '/v1/calls', '-f', 'languages[]=en', '-f', 'languages[]=es'], { env: live, tty: true, prompter: yes });
    expect(accepted.exitCode, accepted.stderr).toBe(0);
    expect(yes.asked).toHaveLength(1);
    const call = JSON.parse(accepted.stdout) as { id: string };
    expect(await liveCallCount()).toBe(1);

    const skipped = await runCli(['api', 'POST', `v1/calls/${call.id}/dial`, '-f', 'to=+14155550100', '--yes'], { env: live, tty: true });
    expect(skipped.exitCode, skipped.stderr).toBe(0);
    expect(skipped.stderr).toContain('Dialling a phone (POST /v1/calls/');
  });

  it('asks for POST /v1/lines; never for a GET, an unbilled POST or test mode; piped it says so and runs', async () => {
    const prompter = recordingPrompter(false);
    expect((await runCli(['api', 'POST', '/v1/lines', '-f', 'country=US'], { env: live, tty: true, prompter })).exitCode).toBe(1);
    expect(prompter.asked).toEqual(['Adding a phone line (POST /v1/lines), billed $1.00/month to the organization of SVC_API_KEY: continue?']);
    for (const argv of [
      ['api', 'GET', '/v1/calls'],
      ['api', 'POST', '/v1/chats', '-f', 'language=en'],
    ]) {
      expect((await runCli(argv, { env: live, tty: true, prompter })).exitCode, argv.join(' ')).toBe(0);
    }
    const test = await runCli(['api', 'POST', '/v1/calls', '-f', 'languages[]=en', '-f', 'languages[]=es'], {
      env: { ...live, SVC_API_KEY: emu().seed.keys.test },
      tty: true,
      prompter,
    });
    expect(test.exitCode, test.stderr).toBe(0);
    expect(prompter.asked).toHaveLength(1);

    const piped = await runCli(['api', 'POST', '/v1/calls', '-f', 'languages[]=en', '-f', 'languages[]=es'], { env: live });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(piped.stderr).toContain('Starting a call (POST /v1/calls) is billed to');
  });
});

describe('the confirmation names the price --dry-run shows', () => {
  it('calls start --live at a terminal asks "billed $0.02/min to Acme", the price of svc account prices', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const added = await runCli(['keys', 'add', '--base-url', emu().url], { configDir, secrets, stdin: emu().seed.keys.live });
    expect(added.exitCode, added.stderr).toBe(0);
    const dryRun = await runCli(['calls', 'start', '--languages', 'en,es', '--live', '--dry-run'], { configDir, secrets });
    expect(dryRun.stdout).toContain('price: $0.02 per call minute, billed to Acme');
    const prompter = recordingPrompter(false);
    const asked = await runCli(['calls', 'start', '--languages', 'en,es', '--live'], { configDir, secrets, tty: true, prompter });
    expect(asked.exitCode).toBe(1);
    expect(prompter.asked).toEqual(['Starting a call, billed $0.02/min to Acme: continue?']);
    expect(await liveCallCount()).toBe(0);
  });
});
