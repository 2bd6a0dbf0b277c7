// A credentials.json of another shape (a list where svc keeps an object, a newer version), as
// another tool or a hand edit leaves it: the built svc, spawned from a HOME that does not exist
// yet, refuses it by name and says nothing was stored; `svc login` refuses it before the
// browser opens, so no sign-in is left open at the service.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { spawnCollect, svcCommand, svcPath } from '../helpers/spawn.js';

const emu = useTestEmulator({ resetEach: true });

/** A config dir under a HOME that does not exist yet, holding only this credentials.json. */
function homeWith(credentials: string): { home: string; dir: string } {
  const home = join(tempConfigDir(), 'home');
  const dir = join(home, '.config', 'svc');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'credentials.json'), credentials, { mode: 0o600 });
  return { home, dir };
}

function svc(args: string[], home: string, extra: Record<string, string> = {}, stdin?: string) {
  const [command, argv] = svcCommand(args);
  return spawnCollect(command, argv, {
    env: { PATH: svcPath(), HOME: home, XDG_CONFIG_HOME: join(home, '.config'), SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: emu().url, ...extra },
    stdin,
  });
}

const SHAPES: [string, string][] = [
  ['{"version":1,"secrets":[]}', 'is not valid ("secrets" is a list)'],
  ['[]', 'is not valid (the file is a list)'],
  ['{"version":"one","secrets":{}}', 'is not valid ("version" is "one"; this svc reads format 1)'],
  // A newer svc's file is its own refusal, naming both versions (test/bin/format-versions.test.ts).
  ['{"version":2,"secrets":{}}', 'is in format version 2, written by a newer svc'],
];

describe('credentials.json of another shape', () => {
  it.each(SHAPES)('%s: keys add refuses it by name, exits 1, stores nothing and leaves the file as it was', async (text, said) => {
    const { home, dir } = homeWith(text);
    const r = await svc(['keys', 'add', '--stdin'], home, {}, emu().seed.keys.test + '\n');
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`${join(dir, 'credentials.json')} ${said}`);
    expect(r.stderr).not.toMatch(/stored|unexpected failure/i);
    expect(readFileSync(join(dir, 'credentials.json'), 'utf8')).toBe(text);
    const list = await svc(['keys', 'list', '--json'], home);
    expect(list.stdout).not.toContain('"default"');
  });

  it('login refuses it before the browser opens: nothing is issued at the service', async () => {
    const { home, dir } = homeWith('{"version":1,"secrets":[]}');
    const opened = join(home, 'opened');
    // A browser that records the address and, were it ever opened, plays the admin who approves.
    const browser = join(home, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, { mode: 0o755 });
    const before = (await emu().plane.stats()).tokens_issued;
    let ended = false;
    const login = svc(['login'], home, { BROWSER: browser, DISPLAY: ':0' }).finally(() => (ended = true));
    const approve = (async () => {
      while (!ended && !existsSync(opened)) await new Promise((r) => setTimeout(r, 50));
      if (!existsSync(opened)) return;
      await emu().plane.approve({ email: emu().seed.admin.email, org_id: emu().seed.org_id });
      const answer = await fetch(readFileSync(opened, 'utf8'), { redirect: 'manual' });
      await fetch(new URL(answer.headers.get('location')!, answer.url));
    })();
    const r = await login;
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`${join(dir, 'credentials.json')} is not valid ("secrets" is a list)`);
    expect(r.stderr).not.toMatch(/signed in|unexpected failure/i);
    expect(existsSync(opened)).toBe(false);
    expect((await emu().plane.stats()).tokens_issued).toBe(before);
    await approve;
  }, 30_000);
});
