// `svc doctor` changes nothing it checks (issue 52): with SVC_API_KEY set, the profile's OAuth
// sign-in is not what commands use, and looking at it must not rotate it. An expired access
// token is reported as not asked; the refresh token stays unspent, the service counts no refresh.
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { envFor, scriptedBrowser } from './support.js';

const testEmulator = useTestEmulator({ resetEach: true });
const emulator = () => testEmulator().emulator;

interface Check {
  check: string;
  status: string;
  message: string;
}

describe('svc doctor with SVC_API_KEY set and a stored OAuth sign-in', () => {
  it.each([
    ['an access token still valid: asked with it as it is', false],
    ['an expired access token: not refreshed, said so', true],
  ])('%s; the sign-in is not rotated', async (_name, expired) => {
    const secrets = new MemorySecretStore();
    const configDir = tempConfigDir();
    const login = await runCli(['login'], { env: envFor(emulator()), browser: scriptedBrowser(emulator()), secrets, configDir });
    expect(login.exitCode, login.stderr).toBe(0);
    if (expired) secrets.secrets.set('default:oauth', JSON.stringify({ ...JSON.parse(secrets.secrets.get('default:oauth')!), expires_at: 0 }));
    const before = secrets.secrets.get('default:oauth');
    const refreshes = (await testEmulator().plane.stats()).refreshes;

    const doctor = await runCli(['--json', 'doctor'], { configDir, secrets, env: { SVC_API_KEY: emulator().seed.keys.test } });
    const checks = (JSON.parse(doctor.stdout) as { checks: Check[] }).checks;
    const signIn = checks.find((c) => c.check === 'credential' && c.message.includes('--live'));
    expect(signIn, doctor.stdout).toMatchObject({ status: 'ok' });
    expect(signIn!.message).toMatch(
      expired ? /not asked, since the access token .* has expired.*doctor changes nothing/ : /works: profile "default" OAuth sign-in/,
    );
    expect(secrets.secrets.get('default:oauth')).toBe(before);
    expect((await testEmulator().plane.stats()).refreshes).toBe(refreshes);
  });
});
