// Kills aimed at each step after the token endpoint's answer, with the keychain as the store
// (test/crash/aimed-kills.test.ts has the file store's): gnome-keyring of the test's own in a
// D-Bus session of its own, the built svc sending itself the signal at the step
// (SVC_TEST_SIGNAL_AT). After each, the keychain, config.json and the service are in one of
// the two whole states, and the next command says which.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { gnomeKeyringProblem, inOwnSession } from '../helpers/gnome-keyring.js';
import { prerequisites } from '../helpers/prerequisites.js';
import { root } from '../helpers/spawn.js';

const missing = gnomeKeyringProblem();
prerequisites('aimed-kills-keychain', missing, { describe: 'aimed kills on gnome-keyring: prerequisites', it: 'are here' });

/** A BROWSER that approves as the seed's admin and follows the redirect; a probe that says whether the app is connected. */
function helpers(emu: TestEmulator): { browser: string; probe: string } {
  const dir = tempConfigDir();
  const browser = join(dir, 'browser.mjs');
  writeFileSync(
    browser,
    `#!${process.execPath}
const url = process.argv[2];
await fetch(${JSON.stringify(emu.url)} + '/_emulator/approvals', { method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ decision: 'approve', email: ${JSON.stringify(emu.seed.admin.email)}, org_id: ${JSON.stringify(emu.seed.org_id)} }) });
const page = await fetch(url, { redirect: 'manual' });
await fetch(new URL(page.headers.get('location'), url));
`,
    { mode: 0o755 },
  );
  const probe = join(dir, 'probe.mjs');
  writeFileSync(
    probe,
    `const base = ${JSON.stringify(emu.url)} + '/_emulator';
if (process.argv[2] === 'advance') await fetch(base + '/clock', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"advance_seconds":3700}' });
else console.log((await (await fetch(base + '/orgs/${emu.seed.org_id}/connections')).json()).data.some((a) => a.client_id === 'svc_app_cli') ? 'connected' : 'not connected');
`,
  );
  return { browser, probe };
}

/** The script's lines: the keyring up, then `work`, then where things stand after. */
function session(h: { browser: string; probe: string }, work: string[]): string[] {
  return [
    `HOME="$KEYRINGS" bash ${JSON.stringify(join(root, 'scripts', 'keyring-up.sh'))} "$KEYRINGS"`,
    `export SVC_CREDENTIAL_STORE=keychain DISPLAY=:0 BROWSER=${JSON.stringify(h.browser)}`,
    `state() { { secret-tool lookup service svc username default:oauth >/dev/null && echo stored || echo none; "$NODE" ${JSON.stringify(h.probe)}; cat "$HOME/.config/svc/config.json" 2>/dev/null | grep -c '"oauth"'; } | tr '\\n' ' ' > "$OUT/$1"; }`,
    ...work,
  ];
}

const run = (name: string, command: string, env = '') =>
  `${env} "$NODE" "$SVC" ${command} > "$OUT/${name}.out" 2> "$OUT/${name}.err"; echo $? > "$OUT/${name}.code"`;

describe.skipIf(missing !== null)('aimed kills with gnome-keyring as the store', () => {
  it.each(['signed-in', 'secret-written', 'config-written'])('a first login, SIGINT at %s: waits for the keychain write, exits 130 signed in', async (step) => {
    const emu = await testEmulator();
    try {
      const s = await inOwnSession(
        session(helpers(emu), [run('login', 'login', `SVC_TEST_SIGNAL_AT=${step}:SIGINT`), 'state after', run('next', 'account balance --json')]),
        emu,
      );
      expect(s.code, s.stderr).toBe(0);
      expect(s.read('login.code').trim(), s.read('login.err')).toBe('130');
      expect(s.read('login.err')).toContain('svc: stopping once the new sign-in is stored');
      expect(s.read('after')).toBe('stored connected 1 ');
      expect(s.read('next.code').trim(), s.read('next.err')).toBe('0');
    } finally {
      await emu.close();
    }
  });

  it('a first login, SIGKILL at signed-in (the pair only in memory): nothing stored, and the next command says a sign-in was cut short', async () => {
    const emu = await testEmulator();
    try {
      const s = await inOwnSession(
        session(helpers(emu), [run('login', 'login', 'SVC_TEST_SIGNAL_AT=signed-in:SIGKILL'), 'state killed', run('next', 'account balance')]),
        emu,
      );
      expect(s.code, s.stderr).toBe(0);
      expect(s.read('login.code').trim()).toBe('137');
      expect(s.read('killed')).toMatch(/^none (not )?connected 0 $/);
      expect(s.read('next.err')).toMatch(/a sign-in of profile "default" started at \S+ was cut short before it stored anything/);
    } finally {
      await emu.close();
    }
  });

  it('a first login, SIGKILL at config-written (recorded): signed in whole, and the next command uses it', async () => {
    const emu = await testEmulator();
    try {
      const s = await inOwnSession(
        session(helpers(emu), [run('login', 'login', 'SVC_TEST_SIGNAL_AT=config-written:SIGKILL'), 'state killed', run('next', 'account balance --json')]),
        emu,
      );
      expect(s.code, s.stderr).toBe(0);
      expect(s.read('login.code').trim()).toBe('137');
      expect(s.read('killed')).toBe('stored connected 1 ');
      expect(s.read('next.code').trim(), s.read('next.err')).toBe('0');
    } finally {
      await emu.close();
    }
  });

  it('a first login, SIGKILL at secret-written: the next command revokes and deletes the unrecorded tokens, and says so', async () => {
    const emu = await testEmulator();
    try {
      const s = await inOwnSession(
        session(helpers(emu), [
          run('login', 'login', 'SVC_TEST_SIGNAL_AT=secret-written:SIGKILL'),
          'state killed',
          run('next', 'account balance'),
          'state after',
        ]),
        emu,
      );
      expect(s.code, s.stderr).toBe(0);
      expect(s.read('login.code').trim()).toBe('137');
      expect(s.read('killed')).toBe('stored connected 0 ');
      expect(s.read('next.err')).toContain('its tokens were revoked at the service and deleted here');
      expect(s.read('after')).toBe('none not connected 0 ');
    } finally {
      await emu.close();
    }
  });

  // (A refresh writes config.json first to mark itself under way: its second write is after the answer.)
  it.each([
    ['answered', 'SIGINT'],
    ['secret-written', 'SIGINT'],
    ['config-written@2', 'SIGINT'],
    ['secret-written', 'SIGKILL'],
    ['config-written@2', 'SIGKILL'],
  ])('a refresh, at %s %s: the new pair is in the keychain, and the next command uses it', async (step, signal) => {
    const emu = await testEmulator();
    try {
      const h = helpers(emu);
      const s = await inOwnSession(
        session(h, [
          run('login', 'login'),
          // The access token expired at the service: the next command refreshes.
          `"$NODE" ${JSON.stringify(h.probe)} advance`,
          run('refresh', 'account balance --json', `SVC_TEST_SIGNAL_AT=${step}:${signal}`),
          run('next', 'account balance --json'),
          'state after',
        ]),
        emu,
      );
      expect(s.code, s.stderr).toBe(0);
      expect(s.read('login.code').trim(), s.read('login.err')).toBe('0');
      expect(s.read('refresh.code').trim(), s.read('refresh.err')).toBe(signal === 'SIGINT' ? '130' : '137');
      if (signal === 'SIGINT') expect(s.read('refresh.err')).toContain('svc: stopping once the new sign-in is stored');
      expect(s.read('next.code').trim(), s.read('next.err')).toBe('0');
      expect(s.read('after')).toBe('stored connected 1 ');
    } finally {
      await emu.close();
    }
  });

  it('a refresh, SIGKILL at answered (the pair only in memory, the old one spent): the next command says the refresh was interrupted, exit 3', async () => {
    const emu = await testEmulator();
    try {
      const h = helpers(emu);
      const s = await inOwnSession(
        session(h, [
          run('login', 'login'),
          `"$NODE" ${JSON.stringify(h.probe)} advance`,
          run('refresh', 'account balance --json', 'SVC_TEST_SIGNAL_AT=answered:SIGKILL'),
          run('next', 'account balance'),
        ]),
        emu,
      );
      expect(s.code, s.stderr).toBe(0);
      expect(s.read('refresh.code').trim()).toBe('137');
      expect(s.read('next.code').trim(), s.read('next.err')).toBe('3');
      expect(s.read('next.err')).toContain('the last refresh of profile "default" was interrupted before its new tokens were stored');
    } finally {
      await emu.close();
    }
  });

  it.each(['revoked', 'secret-deleted'])('a logout, SIGKILL at %s: the next command says it was cut short, and the next logout finishes it', async (step) => {
    const emu = await testEmulator();
    try {
      const s = await inOwnSession(
        session(helpers(emu), [
          run('login', 'login'),
          run('logout', 'logout --yes', `SVC_TEST_SIGNAL_AT=${step}:SIGKILL`),
          run('next', 'account balance'),
          run('again', 'logout --yes'),
          'state after',
        ]),
        emu,
      );
      expect(s.code, s.stderr).toBe(0);
      expect(s.read('logout.code').trim()).toBe('137');
      expect(s.read('next.code').trim(), s.read('next.err')).toBe('3');
      expect(s.read('next.err')).toMatch(/the logout of profile "default" .*was cut short/);
      expect(s.read('again.code').trim(), s.read('again.err')).toBe('0');
      expect(s.read('after')).toBe('none not connected 0 ');
    } finally {
      await emu.close();
    }
  });
});
