// A Linux machine with no Secret Service (an SSH server, WSL, a container, a CI runner), as a
// new user meets it (issue 25): bin/svc.js with no D-Bus session bus, (a) as a plain process
// and (b) inside a login's session keyring made with `keyctl session` (Debian's keyutils).
// `keys add`, `login` and `events tail --print-secret` must fall back to the 0600
// credentials.json with their warning and put nothing in the kernel keyring (/proc/keys, read
// from inside that same session); the forwarding secret is one value, run after run; `keys
// remove` and `logout` take the secrets out. A copy an earlier svc left in the kernel keyring
// is deleted when that secret is written or deleted. (With gnome-keyring the same commands
// land in it: test/real/keychain.test.ts.)
// scripts/test-real.sh runs everything inside dbus-run-session: the spawned svc gets an
// environment of its own, without DBUS_SESSION_BUS_ADDRESS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { root, spawnCollect } from '../helpers/spawn.js';
import { scriptedBrowser } from '../auth/support.js';
import { listKernelKeys } from '../../src/credentials/kernel-keyring.js';
import { prerequisites } from '../helpers/prerequisites.js';

function keyctlProblem(): string | null {
  if (process.platform !== 'linux') return 'not Linux';
  if (spawnSync('keyctl', ['--version']).error) return 'keyctl (keyutils) is not installed';
  const probe = spawnSync('keyctl', ['session', '-', 'true']);
  if (probe.status !== 0) return `keyctl session does not work here: ${probe.stderr}`;
  if (!existsSync('/proc/keys')) return 'this kernel has no /proc/keys';
  return null;
}
const problem = keyctlProblem();
prerequisites('no-secret-service', problem, { describe: 'no Secret Service: prerequisites', it: 'are here' });

/** One svc step of a session script: its output and exit code land in files named after it. */
const step = (name: string, command: string) => `"$NODE" "$SVC" ${command} >"$OUT/${name}.out" 2>"$OUT/${name}.err"; echo $? >"$OUT/${name}.code"`;
/** /proc/keys as this session sees it (and its session keyring, for the failure message). */
const snapshot = (name: string) => `cat /proc/keys >"$OUT/${name}.keys"; keyctl show @s >>"$OUT/${name}.keys" 2>&1 || true`;

describe.skipIf(problem !== null)('no Secret Service (no session bus)', () => {
  let emu: TestEmulator;
  beforeAll(async () => {
    emu = await testEmulator();
  }, 120_000);
  afterAll(async () => {
    await emu?.close();
  });

  /**
   * Runs `lines` (sh) with svc's environment: no D-Bus, a config dir of its own, a $BROWSER
   * that records the address (the test signs in on the emulator from there). In a fresh
   * session keyring when `session`.
   */
  async function runScript(lines: string[], options: { session: boolean; profile: string }) {
    const configDir = tempConfigDir();
    const out = join(configDir, 'out');
    mkdirSync(out);
    const opener = join(out, 'opener.sh');
    writeFileSync(opener, `#!/bin/sh\nprintf '%s' "$1" > "${out}/url.tmp" && mv "${out}/url.tmp" "${out}/url"\n`);
    chmodSync(opener, 0o755);
    writeFileSync(join(out, 'key'), emu.seed.keys.test + '\n');
    // Only these: not the test's DBUS_SESSION_BUS_ADDRESS (scripts/test-real.sh), nor any SVC_*.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: configDir,
      SVC_CONFIG_DIR: join(configDir, 'svc'),
      SVC_BASE_URL: emu.url,
      SVC_PROFILE: options.profile,
      NO_COLOR: '1',
      BROWSER: opener,
      DISPLAY: ':99',
      NODE: process.execPath,
      SVC: join(root, 'bin', 'svc.js'),
      OUT: out,
    };
    const script = lines.join('\n');
    const args = options.session ? ['session', '-', 'sh', '-c', script] : ['-c', script];
    let finished = false;
    const running = spawnCollect(options.session ? 'keyctl' : 'sh', args, { env });
    // The login step opens "the browser": sign in on the emulator as the user would.
    const signIn = (async () => {
      const deadline = Date.now() + 30_000;
      while (!existsSync(join(out, 'url'))) {
        if (Date.now() > deadline || finished) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await scriptedBrowser(emu.emulator).open(readFileSync(join(out, 'url'), 'utf8'));
    })();
    const result = await running;
    finished = true;
    await signIn;
    const read = (name: string) => readFileSync(join(out, name), 'utf8');
    return { result, configDir, svcDir: env.SVC_CONFIG_DIR, read, code: (name: string) => Number(read(`${name}.code`)) };
  }

  /** The profile's keys in a /proc/keys snapshot (an invalidated key is already on its way out). */
  const svcKeysIn = (snapshotText: string, profile: string) =>
    (listKernelKeys(() => snapshotText) ?? []).filter((key) => !key.invalidated && key.description.includes(`${profile}:`)).map((key) => key.description);

  for (const session of [false, true]) {
    it(`${session ? 'in a keyctl session' : 'as a plain process'}: keys add, login and --print-secret use credentials.json, nothing reaches /proc/keys, and the secret is stable`, async () => {
      const profile = `nss-${randomBytes(4).toString('hex')}`;
      const run = await runScript(
        [
          step('add', '--base-url "$SVC_BASE_URL" keys add --name t1 --stdin <"$OUT/key"'),
          step('login', 'login </dev/null'),
          step('print1', 'events tail --print-secret'),
          step('print2', 'events tail --print-secret'),
          snapshot('written'),
          step('remove', 'keys remove t1 --yes'),
          step('logout', 'logout'),
          snapshot('removed'),
        ],
        { session, profile },
      );
      expect(run.result.code, run.result.stderr).toBe(0);
      for (const name of ['add', 'login', 'print1', 'print2', 'remove', 'logout']) expect(run.code(name), `${name}: ${run.read(`${name}.err`)}`).toBe(0);

      // Each write said, before it, why it went to credentials.json.
      expect(run.read('add.err')).toMatch(
        /^warning: no OS keychain, so profile ".*" keeps its secrets in a file:\n {2}.*credentials\.json.*\n {2}why: there is no D-Bus session bus$/m,
      );
      const secret = run.read('print1.out').trim();
      expect(secret).toMatch(/^svc_whsec_/);
      expect(run.read('print2.out').trim()).toBe(secret);
      expect(run.read('print2.err')).not.toMatch(/warning/);

      // Nothing of svc's in the kernel keyring, after the writes and after the removes.
      expect(svcKeysIn(run.read('written.keys'), profile), run.read('written.keys')).toEqual([]);
      expect(svcKeysIn(run.read('removed.keys'), profile), run.read('removed.keys')).toEqual([]);

      // Where they are instead: credentials.json, 0600; the key and the sign-in removed from it.
      const credentials = join(run.svcDir, 'credentials.json');
      expect(statSync(credentials).mode & 0o777).toBe(0o600);
      const left = JSON.parse(readFileSync(credentials, 'utf8')).secrets as Record<string, string>;
      expect(Object.keys(left).sort()).toEqual([`${profile}:forward_secret`]);
      expect(left[`${profile}:forward_secret`]).toBe(secret);
    }, 90_000);
  }

  it('a copy an earlier svc left in the kernel keyring is deleted when that secret is written, and when it is deleted', async () => {
    const profile = `nss-${randomBytes(4).toString('hex')}`;
    const plant = (description: string) => `keyctl add user '${description}' 'svc_test_left-by-an-earlier-svc' @s >/dev/null`;
    const run = await runScript(
      [
        plant(`keyring:${profile}:t1@svc`),
        plant(`${profile}:forward_secret@svc`),
        snapshot('planted'),
        step('add', '--base-url "$SVC_BASE_URL" keys add --name t1 --stdin <"$OUT/key"'),
        step('print', 'events tail --print-secret'),
        snapshot('written'),
        plant(`keyring:${profile}:t1@svc`),
        step('remove', 'keys remove t1 --yes'),
        snapshot('removed'),
      ],
      { session: true, profile },
    );
    expect(run.result.code, run.result.stderr).toBe(0);
    for (const name of ['add', 'print', 'remove']) expect(run.code(name), `${name}: ${run.read(`${name}.err`)}`).toBe(0);
    expect(svcKeysIn(run.read('planted.keys'), profile).sort()).toEqual([`keyring:${profile}:t1@svc`, `${profile}:forward_secret@svc`].sort());
    expect(svcKeysIn(run.read('written.keys'), profile), run.read('written.keys')).toEqual([]);
    expect(svcKeysIn(run.read('removed.keys'), profile), run.read('removed.keys')).toEqual([]);
  }, 90_000);
  it('svc doctor fails on copies an earlier svc left in the kernel keyring; --fix moves the one svc lacks to credentials.json and deletes them all', async () => {
    const profile = `nss-${randomBytes(4).toString('hex')}`;
    // The state an earlier svc left: config.json records the key as in "the keychain", which was the kernel keyring.
    const forget = `"$NODE" -e '
      const fs = require("fs"); const dir = process.env.SVC_CONFIG_DIR; const profile = process.env.SVC_PROFILE;
      const config = JSON.parse(fs.readFileSync(dir + "/config.json", "utf8")); config.profiles[profile].keys.t1.storage = "keychain";
      fs.writeFileSync(dir + "/config.json", JSON.stringify(config)); fs.rmSync(dir + "/credentials.json");'`;
    const run = await runScript(
      [
        step('add', '--base-url "$SVC_BASE_URL" keys add --name t1 --stdin <"$OUT/key"'),
        forget,
        `tr -d "\\n" <"$OUT/key" | keyctl padd user "keyring:${profile}:t1@svc" @s >/dev/null`,
        `keyctl add user "keyring:${profile}:gone@svc" svc_test_of-a-key-svc-forgot @s >/dev/null`,
        step('doctor', 'doctor --json'),
        step('fix', 'doctor --json --fix'),
        snapshot('fixed'),
        step('account', 'account --json'),
      ],
      { session: true, profile },
    );
    expect(run.result.code, run.result.stderr).toBe(0);
    type Report = { checks: Array<{ check: string; status: string; message: string; fix?: string }> };
    const before = JSON.parse(run.read('doctor.out')) as Report;
    expect(run.code('doctor')).toBe(1);
    const kernel = before.checks.find((c) => c.message.includes('kernel keyring'));
    expect(kernel).toMatchObject({ status: 'failed', fix: expect.stringContaining('svc doctor --fix') });
    expect(kernel!.message).toContain(`${profile}:t1`);
    expect(kernel!.message).toContain(`${profile}:gone`);

    const after = (JSON.parse(run.read('fix.out')) as Report).checks;
    expect(after).toContainEqual({ check: 'keychain', status: 'ok', message: `moved ${profile}:t1 from the kernel keyring to credentials.json` });
    expect(after).toContainEqual({
      check: 'keychain',
      status: 'ok',
      message: `deleted ${profile}:gone from the kernel keyring (svc has it elsewhere, or no longer uses it)`,
    });
    expect(after.filter((c) => c.status === 'failed' && c.message.includes(profile))).toEqual([]);
    expect(svcKeysIn(run.read('fixed.keys'), profile), run.read('fixed.keys')).toEqual([]);

    // The key is usable again, from credentials.json.
    expect(run.code('account'), run.read('account.err')).toBe(0);
    expect(JSON.parse(readFileSync(join(run.svcDir, 'credentials.json'), 'utf8')).secrets[`${profile}:t1`]).toBe(emu.seed.keys.test);
    expect(JSON.parse(readFileSync(join(run.svcDir, 'config.json'), 'utf8')).profiles[profile].keys.t1.storage).toBe('file');
  }, 90_000);
});
