// A frozen gnome-keyring (issue 44): the daemon stopped with SIGSTOP while the D-Bus session
// bus still answers, as a hung keyring daemon does. `svc keys add` must end within the
// keychain's bound (README, "Where secrets live": 3 s) and keep the key in credentials.json,
// naming the cause; nothing is left in flight. Spawned bin/svc.js inside dbus-run-session, with
// a daemon of its own (its data in a folder of the test's), a HOME that does not exist yet.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempConfigDir } from '../helpers/cli.js';
import { testEmulator } from '../helpers/emulator.js';
import { root, spawnCollect } from '../helpers/spawn.js';

function problem(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  for (const program of ['dbus-run-session', 'gnome-keyring-daemon'])
    if (spawnSync('sh', ['-c', `command -v ${program}`]).status !== 0) return `${program} is not installed`;
  return null;
}
const missing = problem();
const required = process.env.SVC_REQUIRE_REAL === '1';
if (missing) process.stderr.write(`keychain-frozen suite: ${required ? 'FAILING' : 'skipping'}: ${missing}\n`);

describe('a frozen gnome-keyring: prerequisites', () => {
  it.skipIf(missing !== null && !required)(missing && !required ? `are here (skipped: ${missing})` : 'are here', () => {
    expect(missing).toBeNull();
  });
});

describe.skipIf(missing !== null)('a frozen gnome-keyring (SIGSTOP)', () => {
  it('keys add ends within the bound, keeping the key in credentials.json and naming the cause', async () => {
    const emu = await testEmulator();
    try {
      const home = join(tempConfigDir(), 'home');
      const keyrings = join(tempConfigDir(), 'keyrings');
      mkdirSync(keyrings);
      const out = tempConfigDir();
      // $! is the daemon itself (in the foreground of its own pipeline): only it is stopped, then ended.
      const script = [
        'printf svc-test | HOME="$KEYRINGS" XDG_DATA_HOME="$KEYRINGS" gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &',
        'daemon=$!',
        'sleep 1',
        'kill -STOP "$daemon"',
        'started=$(date +%s%N)',
        'printf "%s\\n" "$KEY" | "$NODE" "$SVC" keys add --stdin > "$OUT/add.out" 2> "$OUT/add.err"; echo $? > "$OUT/add.code"',
        'echo $(( ($(date +%s%N) - started) / 1000000 )) > "$OUT/add.ms"',
        'kill -CONT "$daemon"; kill "$daemon"',
      ].join('\n');
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: home,
        NO_COLOR: '1',
        SVC_BASE_URL: emu.url,
        NODE: process.execPath,
        SVC: join(root, 'bin', 'svc.js'),
        KEYRINGS: keyrings,
        KEY: emu.seed.keys.test,
        OUT: out,
      };
      const run = await spawnCollect('dbus-run-session', ['--', 'sh', '-c', script], { env });
      const read = (name: string) => readFileSync(join(out, name), 'utf8');
      expect(run.code, `${run.stderr}\n${read('add.err')}`).toBe(0);
      expect(read('add.code').trim(), read('add.err')).toBe('0');
      // The bound, and what starting svc and the keychain process may add on a loaded machine.
      expect(Number(read('add.ms'))).toBeLessThan(3_000 + 4_000);
      // Either svc's bound ends the call, or D-Bus's own reply timeout does first: both are said as such.
      expect(read('add.err')).toMatch(
        /^warning: the OS keychain did not answer, so profile "default" keeps its secrets in a file:\n.*\n {2}why: the Secret Service (on the D-Bus session bus ".*" did not answer within 3 s|did not reply on the D-Bus session bus .*)$/m,
      );
      const configDir = join(home, '.config', 'svc');
      expect(readFileSync(join(configDir, 'credentials.json'), 'utf8')).toContain(emu.seed.keys.test);
      expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).secrets_in_flight).toBeUndefined();
    } finally {
      await emu.close();
    }
  }, 60_000);
});
