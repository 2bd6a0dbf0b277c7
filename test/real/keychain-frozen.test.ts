// A frozen gnome-keyring (issue 44): the daemon stopped with SIGSTOP while the D-Bus session
// bus still answers, as a hung keyring daemon does. `svc keys add` must end within the
// keychain's bound (README, "Where secrets live": 3 s) and keep the key in credentials.json,
// naming the cause; nothing is left in flight. Spawned bin/svc.js inside dbus-run-session, with
// a daemon of its own (its data in a folder of the test's), a HOME that does not exist yet.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testEmulator } from '../helpers/emulator.js';
import { gnomeKeyringProblem, inOwnSession } from '../helpers/gnome-keyring.js';
import { prerequisites } from '../helpers/prerequisites.js';

const missing = gnomeKeyringProblem();
prerequisites('keychain-frozen', missing, { describe: 'a frozen gnome-keyring: prerequisites', it: 'are here' });

describe.skipIf(missing !== null)('a frozen gnome-keyring (SIGSTOP)', () => {
  it('keys add ends within the bound, keeping the key in credentials.json and naming the cause', async () => {
    const emu = await testEmulator();
    try {
      // $! is the daemon itself (in the foreground of its own pipeline): only it is stopped, then ended.
      const run = await inOwnSession(
        [
          'printf svc-test | HOME="$KEYRINGS" XDG_DATA_HOME="$KEYRINGS" gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &',
          'daemon=$!',
          'sleep 1',
          'kill -STOP "$daemon"',
          'started=$(date +%s%N)',
          'printf "%s\\n" "$KEY" | "$NODE" "$SVC" keys add --stdin > "$OUT/add.out" 2> "$OUT/add.err"; echo $? > "$OUT/add.code"',
          'echo $(( ($(date +%s%N) - started) / 1000000 )) > "$OUT/add.ms"',
          'kill -CONT "$daemon"; kill "$daemon"',
        ],
        emu,
      );
      const { read } = run;
      expect(run.code, `${run.stderr}\n${read('add.err')}`).toBe(0);
      expect(read('add.code').trim(), read('add.err')).toBe('0');
      // The bound, and what starting svc and the keychain process may add on a loaded machine.
      expect(Number(read('add.ms'))).toBeLessThan(3_000 + 4_000);
      // Either svc's bound ends the call, or D-Bus's own reply timeout does first: both are said as such.
      expect(read('add.err')).toMatch(
        /^warning: the OS keychain did not answer, so profile "default" keeps its secrets in a file:\n.*\n {2}why: the Secret Service (on the D-Bus session bus ".*" did not answer within 3 s|did not reply on the D-Bus session bus .*)$/m,
      );
      const configDir = join(run.home, '.config', 'svc');
      expect(readFileSync(join(configDir, 'credentials.json'), 'utf8')).toContain(emu.seed.keys.test);
      expect(JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8')).secrets_in_flight).toBeUndefined();
    } finally {
      await emu.close();
    }
  }, 60_000);

  it('a read of a key in the keychain (svc asks the Secret Service itself) ends within the bound with keychain_failed', async () => {
    const emu = await testEmulator();
    try {
      const run = await inOwnSession(
        [
          'printf svc-test | HOME="$KEYRINGS" XDG_DATA_HOME="$KEYRINGS" gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &',
          'daemon=$!',
          'sleep 1',
          'printf "%s\\n" "$KEY" | "$NODE" "$SVC" keys add --stdin > "$OUT/add.out" 2> "$OUT/add.err"; echo $? > "$OUT/add.code"',
          'kill -STOP "$daemon"',
          'started=$(date +%s%N)',
          '"$NODE" "$SVC" account --json > "$OUT/account.out" 2> "$OUT/account.err"; echo $? > "$OUT/account.code"',
          'echo $(( ($(date +%s%N) - started) / 1000000 )) > "$OUT/account.ms"',
          'kill -CONT "$daemon"; kill "$daemon"',
        ],
        emu,
      );
      const { read } = run;
      expect(run.code, run.stderr).toBe(0);
      expect(read('add.code').trim(), read('add.err')).toBe('0');
      expect(read('add.err')).not.toContain('warning');
      expect(read('account.code').trim(), read('account.err')).toBe('1');
      expect(Number(read('account.ms'))).toBeLessThan(3_000 + 4_000);
      const error = JSON.parse(read('account.err')).error;
      expect(error.code).toBe('keychain_failed');
      expect(error.message).toMatch(/did not answer within 3 s \(read; the Secret Service on the D-Bus session bus/);
      expect(read('account.out')).toBe('');
    } finally {
      await emu.close();
    }
  }, 60_000);
});
