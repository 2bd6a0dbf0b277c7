// A Secret Service that answers reads but takes no write (issue 44): gnome-keyring running in
// a session of its own with no keyring yet, so no default collection (making one needs a
// password prompt nobody sees). Every write falls back to credentials.json; `svc doctor`
// used to report "ok … which answers" from a read. Doctor now tries what a write needs, and
// the fallback warning names the cause without --debug. Spawned bin/svc.js inside
// dbus-run-session, a HOME that does not exist yet.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { testEmulator } from '../helpers/emulator.js';
import { gnomeKeyringProblem, inOwnSession } from '../helpers/gnome-keyring.js';
import { prerequisites } from '../helpers/prerequisites.js';

const missing = gnomeKeyringProblem();
prerequisites('keychain-no-collection', missing, { describe: 'a Secret Service with no default collection: prerequisites', it: 'are here' });

describe.skipIf(missing !== null)('a Secret Service with no default collection (gnome-keyring, no keyring yet)', () => {
  it('doctor does not call it ok, and keys add falls back to the file naming the cause, without --debug', async () => {
    const emu = await testEmulator();
    try {
      const run = await inOwnSession(
        [
          'XDG_DATA_HOME="$KEYRINGS" gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1',
          '"$NODE" "$SVC" doctor > "$OUT/doctor.out" 2>&1; echo $? > "$OUT/doctor.code"',
          'printf "%s\\n" "$KEY" | "$NODE" "$SVC" keys add --stdin > "$OUT/add.out" 2> "$OUT/add.err"; echo $? > "$OUT/add.code"',
        ],
        emu,
      );
      const { read } = run;
      expect(run.code, run.stderr).toBe(0);

      const doctor = read('doctor.out');
      expect(doctor).not.toMatch(/^ok +new secrets go to the Secret Service/m);
      // (Which words the daemon fails a write with depends on its session: "no result found", or no reply.)
      expect(doctor, doctor).toMatch(/^warning +the OS keychain (failed|did not answer): .+: new secrets go to .*credentials\.json/m);

      expect(read('add.code').trim(), read('add.err')).toBe('0');
      expect(read('add.err')).toMatch(
        /^warning: the OS keychain (failed|did not answer), so profile "default" keeps its secrets in a file:\n {2}.*credentials\.json.*\n {2}why: .+/m,
      );
      expect(readFileSync(join(run.home, '.config', 'svc', 'credentials.json'), 'utf8')).toContain(emu.seed.keys.test);
    } finally {
      await emu.close();
    }
  }, 60_000);
});
