// The signed apt repository (`npm run dist` writes release/<version>/apt/, scripts/apt-repo.mjs), used the
// way an admin uses it: apt-get pointed at it through the published svc.sources and keyring,
// with apt's whole configuration and state in a throwaway root (APT_CONFIG: Dir::Etc,
// Dir::State, Dir::Cache, the dpkg status a copy of this machine's so svc's Depends are met),
// and dpkg installing into that root (--root): the machine's own apt and dpkg are not touched.
// The only edits to the published files: URIs a file: address, Signed-By the root's keyring.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, copyFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aptMachine, aptProblem, standInDeb, type AptMachine } from '../helpers/apt.js';
import { builtFor } from '../helpers/release.js';
import { root, spawnCollect, spawnEmulator, type SpawnedEmulator } from '../helpers/spawn.js';

const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
const release = join(root, 'release', version);
const deb = join(release, `svc_${version}_amd64.deb`);
const published = join(release, 'apt');
const required = process.env.SVC_REQUIRE_REAL === '1';
const scratch = mkdtempSync(join(tmpdir(), 'svc-apt-'));
const problem = aptProblem();
/** Why the upgrade cannot also check a key kept in the Secret Service (run under scripts/test-standalone.sh), or null. */
const keychainProblem = spawnSync('secret-tool', ['--version']).error
  ? 'secret-tool (libsecret-tools) is not installed'
  : process.env.DBUS_SESSION_BUS_ADDRESS
    ? null
    : 'no D-Bus session (run under scripts/test-standalone.sh)';

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** A key of the test's own in a GNUPGHOME of its own, made at a fixed time before the release: the "release key". */
function testKey(): { GNUPGHOME: string; SVC_SIGNING_KEY: string } {
  const home = mkdtempSync(join(scratch, 'gnupg-'));
  const gpg = (...args: string[]) => spawnSync('gpg', ['--batch', '--no-tty', ...args], { env: { ...process.env, GNUPGHOME: home }, encoding: 'utf8' });
  expect(
    gpg('--faked-system-time', '1000000000!', '--passphrase', '', '--quick-gen-key', 'svc test release key <test@svc-cli.dev>', 'ed25519', 'sign', 'never')
      .status,
  ).toBe(0);
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(gpg('--with-colons', '--list-secret-keys').stdout)![1]!;
  return { GNUPGHOME: home, SVC_SIGNING_KEY: fingerprint };
}

/** Publishes `debs` into the repository `repo` (scripts/apt-repo.mjs), signed with `key`, dated `epoch`. */
function publish(repo: string, debs: string[], key: Record<string, string>, epoch: number): { stderr: string } {
  const made = spawnSync(process.execPath, [join(root, 'scripts/apt-repo.mjs'), '--repo', repo, ...debs], {
    env: { ...process.env, ...key, SOURCE_DATE_EPOCH: String(epoch) },
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`apt-repo.mjs failed: ${made.stderr}`);
  return { stderr: made.stderr };
}

/**
 * A throwaway machine (test/helpers/apt.ts) holding the admin's two files: `repo`'s svc.sources
 * (in etc/apt/sources.list.d/) and `keyring` (in etc/apt/keyrings/).
 */
function aptRoot(repo: string, keyring = join(repo, 'svc-archive-keyring.gpg')): AptMachine {
  const machine = aptMachine(scratch);
  copyFileSync(keyring, join(machine.dir, 'etc/apt/keyrings/svc-archive-keyring.gpg'));
  const sources = readFileSync(join(repo, 'svc.sources'), 'utf8')
    .replace(/^URIs: .*$/m, `URIs: file:${repo}`)
    .replace(/^Signed-By: \/(.*)$/m, `Signed-By: ${machine.dir}/$1`);
  writeFileSync(join(machine.dir, 'etc/apt/sources.list.d/svc.sources'), sources);
  return machine;
}

/** A copy of `repo` to spoil. */
function copyOf(repo: string): string {
  const copy = mkdtempSync(join(scratch, 'repo-'));
  cpSync(repo, copy, { recursive: true });
  return copy;
}

const releaseEpoch = () =>
  Math.floor(Date.parse(/^ -- .+? <[^>]+> {2}(.+)$/m.exec(readFileSync(join(root, 'packaging/debian/changelog'), 'utf8'))![1]!) / 1000);

/** The version after package.json's: its last number plus one. */
const nextVersion = version.replace(/(\d+)$/, (n) => String(Number(n) + 1));

/**
 * svc's next version built for real (scripts/dist.mjs --arch x64) from the same files in a
 * folder of its own, with package.json and the changelog saying `nextVersion`.
 */
function buildNextVersion(): string {
  const other = join(scratch, 'next');
  mkdirSync(join(other, 'scripts'), { recursive: true });
  for (const entry of ['bin', 'fixtures', 'node_modules', 'package-lock.json', 'LICENSE', 'README.md']) symlinkSync(join(root, entry), join(other, entry));
  cpSync(join(root, 'packaging'), join(other, 'packaging'), { recursive: true });
  for (const script of ['dist.mjs', 'nodes.mjs', 'apt-repo.mjs', 'help.mjs']) copyFileSync(join(root, 'scripts', script), join(other, 'scripts', script));
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(other, 'package.json'), JSON.stringify({ ...pkg, version: nextVersion }));
  const changelog = join(other, 'packaging/debian/changelog');
  const date = new Date((releaseEpoch() + 86_400) * 1000).toUTCString().replace('GMT', '+0000');
  writeFileSync(
    changelog,
    `svc (${nextVersion}) unstable; urgency=medium\n\n  * The next release.\n\n -- ${pkg.author as string}  ${date}\n\n${readFileSync(changelog, 'utf8')}`,
  );
  builtFor(other, nextVersion, new Date((releaseEpoch() + 86_400) * 1000).toISOString().slice(0, 10));
  const made = spawnSync(process.execPath, [join(other, 'scripts/dist.mjs'), '--arch', 'x64'], {
    cwd: other,
    encoding: 'utf8',
    env: { ...process.env, SVC_THROWAWAY_KEY: '1' },
  });
  if (made.status !== 0) throw new Error(`building ${nextVersion} failed: ${made.stderr}`);
  return join(other, 'release', nextVersion, `svc_${nextVersion}_amd64.deb`);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `svc emulator --port PORT --state FILE --json` of an installed svc; its first line says it is up. */
function startEmulator(svc: string, port: number, state: string, env: Record<string, string>): Promise<SpawnedEmulator> {
  return spawnEmulator(svc, ['emulator', '--port', String(port), '--state', state, '--json'], env);
}

/** The environment of the installed svc (and of the npm one beside it): a HOME of its own, the file store, the emulator at `port`. */
function installedEnv(home: string, port: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    SVC_CONFIG_DIR: join(home, 'config'),
    SVC_CREDENTIAL_STORE: 'file',
    NO_COLOR: '1',
    SVC_BASE_URL: `http://127.0.0.1:${port}`,
  };
}

describe.skipIf(problem !== null && !required)(`the apt repository, as an admin uses it${problem && !required ? ` (skipped: ${problem})` : ''}`, () => {
  let key: { GNUPGHOME: string; SVC_SIGNING_KEY: string };
  beforeAll(() => {
    expect(problem).toBeNull();
    if (!existsSync(deb) || !existsSync(join(published, 'dists/stable/InRelease'))) {
      const made = spawnSync(process.execPath, ['scripts/dist.mjs', '--arch', 'x64'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, SVC_THROWAWAY_KEY: '1' },
      });
      if (made.status !== 0) throw new Error(`npm run dist failed: ${made.stderr}`);
    }
    key = testKey();
  }, 600_000);

  it("npm run dist's repository: apt-get update checks its InRelease against the published keyring, and svc installs from it", () => {
    expect(readFileSync(join(published, 'svc.sources'), 'utf8')).toMatch(
      /^Types: deb\nURIs: \S+\nSuites: stable\nComponents: main\nSigned-By: \/etc\/apt\/keyrings\/svc-archive-keyring\.gpg\n$/,
    );
    expect(readFileSync(join(published, 'dists/stable/InRelease'), 'utf8')).toMatch(
      /^-----BEGIN PGP SIGNED MESSAGE-----\n[^]*^Suite: stable$[^]*-----BEGIN PGP SIGNATURE-----/m,
    );
    const machine = aptRoot(published);
    const updated = machine.apt('update');
    expect(updated.status, updated.out).toBe(0);
    expect(updated.out).not.toMatch(/^[WE]:/m);
    const installed = machine.apt('install', '-y', 'svc');
    expect(installed.status, installed.out).toBe(0);
    expect(spawnSync(machine.svc, ['--version'], { encoding: 'utf8' }).stdout).toBe(`${version}\n`);
    // dpkg's record in the root, not the machine's
    expect(readFileSync(join(machine.dir, 'var/lib/dpkg/status'), 'utf8')).toMatch(
      new RegExp(`^Package: svc\nStatus: install ok installed\n[^]*?^Version: ${version.replace(/\./g, '\\.')}$`, 'm'),
    );
  });

  it('is the same bytes when published twice from the same .deb with the same key', () => {
    const [a, b] = [mkdtempSync(join(scratch, 'same-')), mkdtempSync(join(scratch, 'same-'))];
    for (const repo of [a, b]) publish(repo, [deb], key, releaseEpoch());
    for (const file of [
      'dists/stable/Release',
      'dists/stable/InRelease',
      'dists/stable/Release.gpg',
      'dists/stable/main/binary-amd64/Packages.gz',
      'svc-archive-keyring.gpg',
    ])
      expect(readFileSync(join(a, file)).equals(readFileSync(join(b, file))), file).toBe(true);
  });

  it('indexes each architecture in the pool: Packages per arch, every one in Release; an amd64 machine takes its own', () => {
    const repo = mkdtempSync(join(scratch, 'arches-'));
    publish(repo, [deb, standInDeb(scratch, version, 'arm64')], key, releaseEpoch());
    const release = readFileSync(join(repo, 'dists/stable/Release'), 'utf8');
    expect(release).toMatch(/^Architectures: amd64 arm64$/m);
    for (const arch of ['amd64', 'arm64']) {
      for (const file of ['Packages', 'Packages.gz']) expect(release).toContain(` main/binary-${arch}/${file}\n`);
      expect(readFileSync(join(repo, `dists/stable/main/binary-${arch}/Packages`), 'utf8')).toMatch(
        new RegExp(`^Architecture: ${arch}$[^]*^Filename: pool/main/s/svc/svc_${version.replace(/\./g, '\\.')}_${arch}\\.deb$`, 'm'),
      );
    }
    const machine = aptRoot(repo);
    expect(machine.apt('update').status).toBe(0);
    const installed = machine.apt('install', '-y', 'svc');
    expect(installed.status, installed.out).toBe(0);
    expect(spawnSync(machine.svc, ['--version'], { encoding: 'utf8' }).stdout).toBe(`${version}\n`);
    expect(readFileSync(join(machine.dir, 'var/lib/dpkg/status'), 'utf8')).toMatch(/^Package: svc\nStatus: install ok installed\n[^]*?^Architecture: amd64$/m);
  });

  it('refuses a tampered Packages file: the package it lists is not offered', () => {
    const repo = copyOf(published);
    const packages = join(repo, 'dists/stable/main/binary-amd64/Packages');
    const tampered = readFileSync(packages, 'utf8').replace(/^Version: .*$/m, 'Version: 99.0.0');
    writeFileSync(packages, tampered);
    writeFileSync(`${packages}.gz`, gzipSync(tampered));
    const machine = aptRoot(repo);
    const updated = machine.apt('update');
    expect(updated.status).not.toBe(0);
    expect(updated.out).toMatch(/Hash Sum mismatch|unexpected size/);
    expect(machine.apt('install', '-y', '--simulate', 'svc').out).toMatch(/Unable to locate package svc|has no installation candidate/);
  });

  it('refuses an unsigned repository, and one signed by a key not in the keyring', () => {
    const unsigned = copyOf(published);
    rmSync(join(unsigned, 'dists/stable/InRelease'));
    rmSync(join(unsigned, 'dists/stable/Release.gpg'));
    const updated = aptRoot(unsigned).apt('update');
    expect(updated.status).not.toBe(0);
    expect(updated.out).toMatch(/is not signed/);

    const stranger = mkdtempSync(join(scratch, 'stranger-'));
    publish(stranger, [deb], key, releaseEpoch());
    const refused = aptRoot(stranger, join(published, 'svc-archive-keyring.gpg')).apt('update');
    expect(refused.status).not.toBe(0);
    expect(refused.out).toMatch(new RegExp(`NO_PUBKEY ${key.SVC_SIGNING_KEY.slice(-16)}`));
  });

  it('during a key rotation (SVC_SIGNING_KEY "<old> <new>") verifies with the old keyring and with the new one', () => {
    const next = testKey();
    // Both keys in one GNUPGHOME, as the maintainer's is during the rotation.
    const exported = spawnSync('gpg', ['--batch', '--export-secret-keys', next.SVC_SIGNING_KEY], {
      env: { ...process.env, GNUPGHOME: next.GNUPGHOME },
    }).stdout;
    expect(spawnSync('gpg', ['--batch', '--import'], { env: { ...process.env, GNUPGHOME: key.GNUPGHOME }, input: exported }).status).toBe(0);
    const keyringOf = (fingerprint: string) => {
      const file = join(scratch, `keyring-${fingerprint}.gpg`);
      writeFileSync(file, spawnSync('gpg', ['--batch', '--export', fingerprint], { env: { ...process.env, GNUPGHOME: key.GNUPGHOME } }).stdout);
      return file;
    };
    const repo = mkdtempSync(join(scratch, 'rotation-'));
    publish(repo, [deb], { GNUPGHOME: key.GNUPGHOME, SVC_SIGNING_KEY: `${key.SVC_SIGNING_KEY} ${next.SVC_SIGNING_KEY}` }, releaseEpoch());
    for (const keyring of [keyringOf(key.SVC_SIGNING_KEY), keyringOf(next.SVC_SIGNING_KEY), join(repo, 'svc-archive-keyring.gpg')]) {
      const updated = aptRoot(repo, keyring).apt('update');
      expect(updated.status, updated.out).toBe(0);
      expect(updated.out).not.toMatch(/^[WE]:/m);
    }
    // The published keyring holds both keys.
    const listed = spawnSync('gpg', ['--batch', '--with-colons', '--no-default-keyring', '--keyring', join(repo, 'svc-archive-keyring.gpg'), '--list-keys'], {
      encoding: 'utf8',
    }).stdout;
    expect(listed).toContain(key.SVC_SIGNING_KEY);
    expect(listed).toContain(next.SVC_SIGNING_KEY);
  });

  it('the .deb and the npm install side by side share config.json and credentials.json: each reads and changes what the other wrote', async () => {
    const machine = aptRoot(published);
    expect(machine.apt('update').status).toBe(0);
    expect(machine.apt('install', '-y', 'svc').status).toBe(0);
    const home = mkdtempSync(join(scratch, 'home-'));
    const port = await freePort();
    const env = installedEnv(home, port);
    const fromDeb = (args: string[], stdin?: string) => spawnCollect(machine.svc, args, { env, ...(stdin === undefined ? {} : { stdin }) });
    const fromNpm = (args: string[], stdin?: string) =>
      spawnCollect(process.execPath, [join(root, 'bin/svc.js'), ...args], { env, ...(stdin === undefined ? {} : { stdin }) });
    const emulator = await startEmulator(machine.svc, port, join(home, 'state.jsonl'), env);
    try {
      const { test, live } = emulator.keys;
      expect((await fromDeb(['keys', 'add', '--name', 'ci'], test)).code).toBe(0);
      expect((await fromNpm(['keys', 'add', '--name', 'prod'], live)).code).toBe(0);
      const listed = async (run: typeof fromDeb) =>
        (JSON.parse((await run(['keys', 'list', '--json'])).stdout) as { name: string }[]).map((k) => k.name).sort();
      expect(await listed(fromDeb)).toEqual(['ci', 'prod']);
      expect(await listed(fromNpm)).toEqual(['ci', 'prod']);
      // Both at once, each many times: every run reads the other's files.
      const runs = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? fromDeb : fromNpm)(['account', '--json'])));
      expect(runs.filter((ran) => ran.code !== 0).map((ran) => ran.stderr)).toEqual([]);
      expect((await fromNpm(['keys', 'remove', 'ci', '--yes'])).code).toBe(0);
      expect(await listed(fromDeb)).toEqual(['prod']);
      expect(JSON.parse(readFileSync(join(home, 'config/credentials.json'), 'utf8'))).toMatchObject({ version: 1, secrets: { 'default:prod': live } });
    } finally {
      await emulator.stop();
    }
  });

  it(`upgrades to ${nextVersion} published to the same repository; the config, credentials.json, a key in the Secret Service and the emulator's --state file of ${version} work unchanged${keychainProblem && !required ? ` (the keychain part skipped: ${keychainProblem})` : ''}`, async () => {
    if (required) expect(keychainProblem).toBeNull();
    const repo = mkdtempSync(join(scratch, 'repo-'));
    publish(repo, [deb], key, releaseEpoch());
    const machine = aptRoot(repo);
    expect(machine.apt('update').status).toBe(0);
    const installed = machine.apt('install', '-y', 'svc');
    expect(installed.status, installed.out).toBe(0);

    const home = mkdtempSync(join(scratch, 'home-'));
    const port = await freePort();
    const env = installedEnv(home, port);
    const state = join(home, 'emulator-state.jsonl');
    const svc = (...args: string[]) => spawnCollect(machine.svc, args, { env });
    let emulator = await startEmulator(machine.svc, port, state, env);
    const orgId = emulator.org_id;
    const added = await spawnCollect(machine.svc, ['keys', 'add', '--name', 'ci'], { env, stdin: emulator.keys.test });
    expect(added.code, added.stderr).toBe(0);
    // A key in the real Secret Service too (scripts/test-standalone.sh runs under a D-Bus session of its own).
    const keychainProfile = `apt-upgrade-${process.pid}`;
    const keychainEnv = { ...env, SVC_CREDENTIAL_STORE: 'keychain', DBUS_SESSION_BUS_ADDRESS: process.env.DBUS_SESSION_BUS_ADDRESS ?? '' };
    if (keychainProblem === null) {
      const inKeychain = await spawnCollect(machine.svc, ['keys', 'add', '--name', 'ci', '--profile', keychainProfile], {
        env: keychainEnv,
        stdin: emulator.keys.test,
      });
      expect(inKeychain.code, inKeychain.stderr).toBe(0);
    }
    const chat = await svc('chats', 'start', '--language', 'en', '--subject', 'before the upgrade', '--json');
    expect(chat.code, chat.stderr).toBe(0);
    const chatId = (JSON.parse(chat.stdout) as { id: string }).id;
    await emulator.stop();

    publish(repo, [buildNextVersion()], key, releaseEpoch() + 86_400);
    expect(machine.apt('update').status).toBe(0);
    const upgraded = machine.apt('upgrade', '-y');
    expect(upgraded.status, upgraded.out).toBe(0);
    expect(upgraded.out).toContain(`Unpacking svc (${nextVersion}) over (${version})`);
    expect((await svc('--version')).stdout).toBe(`${nextVersion}\n`);

    emulator = await startEmulator(machine.svc, port, state, env);
    try {
      const account = await svc('account', '--json');
      expect(account.code, account.stderr).toBe(0);
      expect(JSON.parse(account.stdout)).toMatchObject({ id: orgId });
      if (keychainProblem === null) {
        const fromKeychain = await spawnCollect(machine.svc, ['account', '--json', '--profile', keychainProfile], { env: keychainEnv });
        expect(fromKeychain.code, fromKeychain.stderr).toBe(0);
        expect(JSON.parse(fromKeychain.stdout)).toMatchObject({ id: orgId });
      }
      const found = await svc('chats', 'get', chatId, '--json');
      expect(found.code, found.stderr).toBe(0);
      expect(JSON.parse(found.stdout)).toMatchObject({ id: chatId, subject: 'before the upgrade' });
    } finally {
      await emulator.stop();
      if (keychainProblem === null) spawnSync('secret-tool', ['clear', 'service', 'svc', 'username', `${keychainProfile}:ci`]);
    }
  }, 600_000);
});
