// The small surprises of issue 44 ("Low"), each as a user meets it: the built svc spawned
// from a HOME that does not exist yet (or, where a sign-in is needed, a command run in
// process against the emulator), asserting what the person reads and the exit code.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { spawnCollect, svcCommand, svcPath } from '../helpers/spawn.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { envFor, scriptedBrowser } from '../auth/support.js';
import { parseCli } from '../helpers/parse.js';

const emu = useTestEmulator({ resetEach: true });

/** The built svc from a HOME that does not exist yet, with the file store and the emulator. */
function svc(args: string[], extra: Record<string, string> = {}, stdin?: string) {
  const home = join(tempConfigDir(), 'home');
  const [command, argv] = svcCommand(args);
  return spawnCollect(command, argv, { env: { PATH: svcPath(), HOME: home, SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: emu().url, ...extra }, stdin });
}

describe("usage errors in svc's words", () => {
  it('`profiles switch` points to `auth switch`', async () => {
    const r = await svc(['profiles', 'switch', 'work']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: svc profiles has no command 'switch'");
    expect(r.stderr).toContain('did you mean `svc auth switch`?');
  });

  it('`calls links list --call` is an unknown flag, with no suggestion of --all; a typo of a flag still gets one', async () => {
    const call = await svc(['calls', 'links', 'list', '--call', 'call_x']);
    expect(call.code).toBe(2);
    expect(call.stderr).toContain("error: unknown option '--call'");
    expect(call.stderr).not.toContain('--all');
    const typo = await svc(['calls', 'links', 'list', '--lmit', '3']);
    expect(typo.stderr).toContain('(Did you mean --limit?)');
  });

  it('extra arguments name what the command takes, not commander\'s "Expected 1 argument"', async () => {
    const r = await svc(['calls', 'get', 'call_a', 'call_b']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error: too many arguments: svc calls get takes one argument (<id>), not 2');
    expect(r.stderr).not.toContain('Expected 1 argument');
    // Counted from what commander read, not its words: a flag's value is no argument, a negative number is.
    const counted = await svc(['calls', 'get', 'call_a', '--json', 'call_b', '-5']);
    expect(counted.stderr).toContain('"message":"too many arguments: svc calls get takes one argument (<id>), not 3"');
  });

  it('a malformed id is refused with an example shaped like a real id', async () => {
    const r = await svc(['calls', 'get', 'nope']);
    expect(r.code).toBe(2);
    const example = /call ids look like (call_\S+)/.exec(r.stderr)?.[1];
    expect(example, r.stderr).toMatch(/^call_[A-Za-z0-9]{20}$/);
  });
});

describe('keys add --org', () => {
  it('a key that cannot read its organization is said once by its id, not as "org_X (org_X)"', async () => {
    const { key } = await emu().makeKey('test', ['calls:read']);
    const org = emu().seed.org_id;
    const r = await svc(['keys', 'add', '--stdin', '--org', org], {}, key);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`for ${org} to profile "default"`);
    expect(r.stdout).not.toContain(`${org} (${org})`);
  });
});

describe('durations in the user’s units', () => {
  it('`links create --expires-in 60d` is refused locally, with the limits in days and minutes; nothing is sent', async () => {
    const before = (await emu().plane.stats()).requests;
    const r = await svc(['calls', 'links', 'create', '--expires-in', '60d'], { SVC_API_KEY: emu().seed.keys.test });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--expires-in "60d" is longer than 30d: give at least 1m and at most 30d');
    expect(r.stderr).not.toContain('2,592,000');
    // (The stats call itself is counted once.)
    expect((await emu().plane.stats()).requests - before).toBeLessThanOrEqual(1);
  });

  it('`login --timeout 0` says what is allowed; `events tail --idle-timeout 0` turns the silence limit off', async () => {
    const login = await svc(['login', '--timeout', '0']);
    expect(login.code).toBe(2);
    expect(login.stderr).toContain('--timeout "0" must be longer than zero: give a duration such as 90s or 5m');
    expect(login.stderr).not.toContain('not a duration');
    const tail = await parseCli(['events', 'tail', '--idle-timeout', '0']);
    expect(tail.opts).toMatchObject({ idleTimeoutMs: Infinity });
    expect((await parseCli(['events', 'tail', '--timeout', '0'])).opts).not.toHaveProperty('deadlineMs');
  });
});

describe('auth status and an ended sign-in', () => {
  it('exits 3 (not authenticated) with --profile and without it alike', async () => {
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const env = envFor(emu().emulator);
    // The default profile holds a test key; profile "ops" a sign-in.
    const key = await runCli(['keys', 'add', '--stdin'], { env, secrets, configDir, stdin: emu().seed.keys.test });
    expect(key.exitCode, key.stderr).toBe(0);
    const login = await runCli(['login', '--profile', 'ops'], { env, browser: scriptedBrowser(emu().emulator), secrets, configDir });
    expect(login.exitCode, login.stderr).toBe(0);
    // The organization disconnects the app; an hour on, the refresh is refused and the sign-in has ended.
    await emu().plane.disconnect(emu().seed.org_id, 'svc_app_cli');
    await emu().plane.advanceClock(3700);
    const ended = await runCli(['account', '--profile', 'ops'], { env, secrets, configDir });
    expect(ended.exitCode, ended.stdout + ended.stderr).toBe(3);

    const named = await runCli(['auth', 'status', '--profile', 'ops'], { env, secrets, configDir });
    const all = await runCli(['auth', 'status'], { env, secrets, configDir });
    expect(named.exitCode, named.stderr).toBe(3);
    expect(all.exitCode, all.stderr).toBe(3);
  });
});
