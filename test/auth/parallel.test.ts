// 16 parallel `svc account --json` processes with an expired access token: exactly one
// refresh on the service, none presenting a used refresh token, all exit 0 (docs/design.md
// "Credentials"). Real child processes, because the lock and the re-read are about processes.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';
import { FileSecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { controlPlane, envFor, scriptedBrowser, stats } from './support.js';
import { svcBin as launcher } from '../helpers/spawn.js';

const PROCESSES = 16;
// 16 Node start-ups on a 2-core machine, while other suites run: generous, and not a timing assertion.
const SPAWN_TIMEOUT_MS = 120_000;

const testEmulator = useTestEmulator({ resetEach: true, startTimeoutMs: 120_000 });
const emulator = () => testEmulator().emulator;

interface Child {
  code: number | null;
  stdout: string;
  stderr: string;
}

function svc(args: string[], env: Record<string, string>): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [launcher, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Logs in (in-process) with the file store the children will read. */
async function loginToFileStore(): Promise<{ configDir: string; env: Record<string, string> }> {
  const configDir = tempConfigDir();
  const login = await runCli(['login'], {
    env: envFor(emulator(), { SVC_CREDENTIAL_STORE: 'file' }),
    browser: scriptedBrowser(emulator()),
    secrets: new FileSecretStore(configDir),
    configDir,
  });
  expect(login.exitCode).toBe(0);
  return { configDir, env: { HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: emulator().url } };
}

async function runAll(env: Record<string, string>): Promise<Child[]> {
  return Promise.all(Array.from({ length: PROCESSES }, () => svc(['account', '--json'], env)));
}

function expectAllSucceeded(children: Child[]): void {
  for (const child of children) {
    // Nothing on stderr but, under load, the notice that another process holds the lock.
    expect(child.stderr.replace(/^svc: waiting: .*\n/gm, '')).toBe('');
    expect(child.code).toBe(0);
    expect(JSON.parse(child.stdout).id).toBe(emulator().seed.org_id);
  }
}

describe(`${PROCESSES} parallel processes with an expired access token`, () => {
  it(
    'refresh exactly once when the service says 401',
    async () => {
      const { env } = await loginToFileStore();
      await controlPlane(emulator()).advanceClock(3601);
      const children = await runAll(env);
      expectAllSucceeded(children);
      expect(await stats(emulator())).toMatchObject({ refreshes: 1, refresh_reuse: 0 });
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'refresh exactly once when the stored expiry has passed',
    async () => {
      const { configDir, env } = await loginToFileStore();
      await controlPlane(emulator()).advanceClock(3601);
      const path = join(configDir, 'credentials.json');
      const file = JSON.parse(readFileSync(path, 'utf8')) as { secrets: Record<string, string> };
      const stored = JSON.parse(file.secrets['default:oauth']!) as { expires_at: number };
      file.secrets['default:oauth'] = JSON.stringify({ ...stored, expires_at: Date.now() - 1000 });
      writeFileSync(path, JSON.stringify(file), { mode: 0o600 });

      const children = await runAll(env);
      expectAllSucceeded(children);
      expect(await stats(emulator())).toMatchObject({ refreshes: 1, refresh_reuse: 0 });
    },
    SPAWN_TIMEOUT_MS,
  );
});
