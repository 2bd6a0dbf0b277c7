// An organization is named only when the service confirmed it (issue 24): a stored
// profile's organization is not SVC_API_KEY's, whichever profile is chosen beside the key.
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';

const emu = useTestEmulator();
let configDir: string;
const secrets = new MemorySecretStore();
let globex: { id: string; test: string; live: string };

beforeAll(async () => {
  configDir = tempConfigDir();
  // The default profile is Acme's, as after `svc keys add`.
  expect((await runCli(['keys', 'add', '--base-url', emu().url], { configDir, secrets, stdin: emu().seed.keys.test })).exitCode).toBe(0);
  const org = await emu().plane.createOrg('Globex', { balance: 10_000 });
  globex = { id: org.id, test: (await emu().plane.createKey(org.id, 'test')).key, live: (await emu().plane.createKey(org.id, 'live')).key };
});

const withKey = (key: string, argv: string[]) => runCli(argv, { configDir, secrets, env: { SVC_API_KEY: key, SVC_BASE_URL: emu().url } });

describe('the organization svc names', () => {
  it("an unknown SVC_API_KEY is not labelled with the default profile's organization", async () => {
    const r = await withKey('svc_test_unknown000000000000000000', ['calls', 'list']);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('[SVC_API_KEY, test mode]');
    expect(r.stderr).not.toContain('Acme');
  });

  it("a stored profile's own credential still names its organization", async () => {
    const r = await runCli(['calls', 'get', 'call_00000000000000000000'], { configDir, secrets });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('[profile "default", Acme, test mode]');
  });

  it("--dry-run with another organization's live key does not say Acme", async () => {
    const r = await withKey(globex.live, ['calls', 'start', '--languages', 'en,es', '--dry-run']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('billed to the organization of SVC_API_KEY (live mode)');
    expect(r.stdout + r.stderr).not.toContain('Acme');
  });

  it("events tail with another organization's key names the one the service confirms", async () => {
    const start = (title: string) =>
      fetch(`${emu().url}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${globex.test}`, 'content-type': 'application/json' },
        body: JSON.stringify({ languages: ['en', 'es'], title }),
      });
    await start('first');
    await start('second');
    const listed = JSON.parse((await withKey(globex.test, ['events', 'list', '--json'])).stdout) as Array<{ id: string }>;
    const oldest = listed[listed.length - 1]!.id;
    const r = await withKey(globex.test, ['events', 'tail', '--since', oldest, '--max-events', '1']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`Tailing test-mode events of Globex (${globex.id}), SVC_API_KEY`);
    expect(r.stderr).not.toContain('Acme');
  });
});
