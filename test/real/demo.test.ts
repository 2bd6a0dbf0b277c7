// `npm run demo`, the README's second quick-start command, as a newcomer runs it: the
// real svc against an in-process emulator, login through the loopback flow, live events,
// logout. It must exit 0 and show each step's result (it needs dist/, which `npm test`
// builds first).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

describe('npm run demo', () => {
  it('walks through login, account, a call, a chat, a translation and live events, then exits 0', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const env: Record<string, string | undefined> = { ...process.env, NO_COLOR: '1' };
      for (const name of ['SVC_API_KEY', 'SVC_PROFILE', 'SVC_MODE', 'SVC_BASE_URL', 'SVC_CONFIG_DIR']) delete env[name];
      const child = spawn(process.execPath, [join(root, 'scripts/demo.mjs')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('error', reject);
      child.on('close', (c) => resolve({ code: c, stdout: out, stderr: err }));
    });
    expect(stderr).not.toMatch(/demo failed/);
    expect(code).toBe(0);
    const screen = stdout + stderr; // what the user sees: messages are on stderr, results on stdout
    expect(screen).toMatch(/Signed in to Acme as profile "default"/);
    expect(stdout).toMatch(/^balance\t\$\d+\.\d\d$/m);
    // The tail saw each event live, in order.
    const seen = [...stdout.matchAll(/^ {2}\[events tail\] \S+\t(\S+)\t(evt_\w+)/gm)].map((m) => m[1]);
    expect(seen).toEqual(['call.started', 'call.ended', 'chat.started', 'chat.message.created', 'translation.created']);
    expect(stdout).toContain('[es] Good morning, everyone');
    expect(screen).toMatch(/Logged out of profile "default"/);
    // No secret reaches the screen: keys appear shortened, tokens never.
    expect(screen).not.toMatch(/svc_(test|live)_[A-Za-z0-9]{8,}|svc_o(at|rt)_/);
  });
});
