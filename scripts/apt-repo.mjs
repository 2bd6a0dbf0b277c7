// The signed apt repository `npm run dist` writes (release/<version>/apt/):
//   dists/stable/Release, InRelease (clearsigned), Release.gpg (detached)
//   dists/stable/main/binary-<arch>/Packages and Packages.gz
//   pool/main/s/svc/svc_<version>_<arch>.deb
//   svc-archive-keyring.gpg   the public key(s), binary, for /etc/apt/keyrings/
//   svc-archive-keyring.gpg.asc   its detached signature by the signing key(s): an admin
//                             checks a renewed or rotated keyring with the one they have
//   svc.sources               DEB822, Signed-By that keyring
// Publishing adds the given .debs to pool/ and indexes every .deb there, so a repository
// that already holds older versions keeps them (apt picks the newest).
// Signing: SVC_SIGNING_KEY names the key(s) by fingerprint in the current GNUPGHOME (several,
// space-separated, sign together during a key rotation: each is in the keyring). Nothing is
// signed without it: a throwaway Ed25519 key signs only when SVC_THROWAWAY_KEY=1 says so
// (tests), and stderr says so. A key with a passphrase: SVC_SIGNING_PASSPHRASE_FILE names a
// file holding it (gpg's loopback pinentry), or, in a terminal, GPG_TTY=$(tty) lets gpg-agent
// ask; else gpg is never left waiting for a prompt nobody can answer: checkSigningKeys() says
// so at once, naming both fixes. It also refuses a key that has expired or expires within
// 90 days, naming the renewal command (RELEASING.md, "Renewing the key").
// Publishing into a repository that already has a keyring (--repo over a copy of the published
// one) refuses, whatever the environment, unless a signing key is one that keyring holds;
// a key it does not hold (a rotation's new key) must be certified by one it does.
// Reproducible: Date: is the release's epoch, files and fields are sorted, gzip carries no
// name or time, and the signatures are made at a fixed time (gpg --faked-system-time
// "<epoch>!") with Ed25519, whose signatures are deterministic (RFC 8032): the same .debs and
// key give the same bytes.
//   node scripts/apt-repo.mjs [--repo DIR] [--url URL] [--keyring-path PATH] DEB...
//   node scripts/apt-repo.mjs --help
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { releaseDir, releaseEpoch } from './dist.mjs';
import { answerHelp, ReleaseError, runMain } from './help.mjs';

export const SUITE = 'stable';
export const COMPONENT = 'main';
export const KEYRING = 'svc-archive-keyring.gpg';
/** Where the README tells an admin to put the keyring; svc.sources' Signed-By names it. */
export const KEYRING_PATH = `/etc/apt/keyrings/${KEYRING}`;
/** Where the repository is published; SVC_APT_URL (or --url) names another. */
export const DEFAULT_URL = 'https://svc-cli.dev/apt';

/** The last line a tool wrote on stderr: what it says went wrong, on one line. */
const lastLine = (text) =>
  String(text ?? '')
    .trim()
    .split('\n')
    .at(-1) ?? '';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 1 << 26, ...options });
  if (result.status !== 0)
    throw new ReleaseError(`${command} ${args[args.length - 1]} failed (${result.error?.message ?? `exit ${result.status}: ${lastLine(result.stderr)}`})`);
  return result.stdout;
}

const digest = (algorithm, bytes) => createHash(algorithm).update(bytes).digest('hex');

/** Debian's Architecture of a .deb and its control paragraph. */
function controlOf(deb) {
  const control = run('dpkg-deb', ['-f', deb]).replace(/\n+$/, '');
  const field = (name) => new RegExp(`^${name}: (.+)$`, 'm').exec(control)?.[1];
  const [pkg, version, arch] = [field('Package'), field('Version'), field('Architecture')];
  if (!pkg || !version || !arch) throw new Error(`${deb} has no Package, Version or Architecture in its control file`);
  return { control, pkg, version, arch };
}

/** The pool path Debian's archives use: pool/<component>/<first letter>/<package>/<file>. */
const poolPath = (pkg, file) => `pool/${COMPONENT}/${pkg[0]}/${pkg}/${file}`;

/** Each architecture's Packages text, from every .deb in the pool, in file-name order. */
function packagesByArch(repo) {
  const pool = join(repo, 'pool');
  const debs = existsSync(pool)
    ? readdirSync(pool, { recursive: true })
        .filter((f) => String(f).endsWith('.deb'))
        .map((f) => join(pool, String(f)))
        .sort()
    : [];
  const byArch = new Map();
  for (const deb of debs) {
    const { control, arch } = controlOf(deb);
    const bytes = readFileSync(deb);
    const stanza = [
      control,
      `Filename: ${relative(repo, deb)}`,
      `Size: ${bytes.length}`,
      `MD5sum: ${digest('md5', bytes)}`,
      `SHA1: ${digest('sha1', bytes)}`,
      `SHA256: ${digest('sha256', bytes)}`,
    ].join('\n');
    byArch.set(arch, [...(byArch.get(arch) ?? []), stanza]);
  }
  return new Map([...byArch].sort(([a], [b]) => a.localeCompare(b)));
}

/** RFC 2822 in UTC, as apt-ftparchive writes Date:. */
const releaseDate = (epoch) => new Date(epoch * 1000).toUTCString().replace('GMT', 'UTC');

function releaseText(indexes, archs, epoch) {
  const sums = (algorithm) => indexes.map(({ path, bytes }) => ` ${digest(algorithm, bytes)} ${String(bytes.length).padStart(9)} ${path}`).join('\n');
  return `${[
    'Origin: svc',
    'Label: svc',
    `Suite: ${SUITE}`,
    `Codename: ${SUITE}`,
    `Date: ${releaseDate(epoch)}`,
    `Architectures: ${archs.join(' ')}`,
    `Components: ${COMPONENT}`,
    'Description: svc, the command-line tool for the calling, chat and interpretation API',
    `MD5Sum:\n${sums('md5')}`,
    `SHA256:\n${sums('sha256')}`,
  ].join('\n')}\n`;
}

/** gpg with a fixed home and no terminal. */
const gpg = (home, args, options = {}) => run('gpg', ['--batch', '--no-tty', '--quiet', ...args], { env: { ...process.env, GNUPGHOME: home }, ...options });

/** What to do when no key is named: one line, the fix (a new shell has none of the release block's exports). */
const NO_KEY =
  "SVC_SIGNING_KEY is not set, and nothing is signed without the release key: export GNUPGHOME=~/.svc-release-gnupg and SVC_SIGNING_KEY=<the key's fingerprint> (RELEASING.md's release block), or SVC_THROWAWAY_KEY=1 for a test build signed by a throwaway key";

/** Days before the key's expiry within which no release is made: renew it first. */
export const EXPIRY_MARGIN_DAYS = 90;

/** A throwaway Ed25519 signing key in a new temp GNUPGHOME: `{ home, fingerprints, cleanup }`. */
function throwawayKey(epoch) {
  const home = mkdtempSync(join(tmpdir(), 'svc-apt-gnupg-'));
  gpg(home, [
    '--faked-system-time',
    `${epoch}!`,
    '--passphrase',
    '',
    '--quick-gen-key',
    'svc archive (throwaway build key) <maintainers@svc-cli.dev>',
    'ed25519',
    'sign',
    'never',
  ]);
  const fingerprint = /^fpr:+([0-9A-F]{40}):/m.exec(gpg(home, ['--with-colons', '--list-secret-keys']))?.[1];
  return { home, fingerprints: [fingerprint], passphrase: [], cleanup: () => rmSync(home, { recursive: true, force: true }) };
}

/** The signing keys: SVC_SIGNING_KEY's in GNUPGHOME, else (SVC_THROWAWAY_KEY=1, tests) a throwaway one, said on stderr. */
export function signingKeys(env, epoch) {
  const named = (env.SVC_SIGNING_KEY ?? '').split(/[\s,]+/).filter(Boolean);
  if (!named.length) {
    if (env.SVC_THROWAWAY_KEY !== '1') throw new ReleaseError(NO_KEY);
    const key = throwawayKey(epoch);
    process.stderr.write(
      `SVC_THROWAWAY_KEY=1: signed with a throwaway key made for this build (${key.fingerprints[0]}), for tests only; machines that trust the published key will refuse it.\n`,
    );
    return key;
  }
  const home = env.GNUPGHOME ?? join(env.HOME ?? '', '.gnupg');
  for (const fingerprint of named)
    if (!/^[0-9A-Fa-f]{40}$/.test(fingerprint)) throw new ReleaseError(`SVC_SIGNING_KEY holds ${JSON.stringify(fingerprint)}, not a 40-digit key fingerprint`);
  return { home, fingerprints: named.map((f) => f.toUpperCase()), passphrase: passphraseMode(env), cleanup: () => {} };
}

/**
 * How gpg gets a key's passphrase: from SVC_SIGNING_PASSPHRASE_FILE (loopback pinentry), from
 * gpg-agent's prompt on GPG_TTY when that is this terminal, else never asked ("error": a key
 * that needs one fails at once instead of waiting for a pinentry that cannot show).
 */
function passphraseMode(env) {
  if (env.SVC_SIGNING_PASSPHRASE_FILE) return ['--pinentry-mode', 'loopback', '--passphrase-file', env.SVC_SIGNING_PASSPHRASE_FILE];
  if (env.GPG_TTY && process.stdin.isTTY) return [];
  return ['--pinentry-mode', 'error'];
}

/**
 * Before anything is built: the keys SVC_SIGNING_KEY names exist in GNUPGHOME with their secret
 * part and sign without a prompt nobody can answer (a test signature, which also leaves a
 * passphrase given on GPG_TTY in gpg-agent's cache for the signing at the end). Throws a
 * ReleaseError naming the fix.
 */
export function checkSigningKeys(env = process.env, now = Date.now()) {
  const keys = signingKeysNamed(env);
  if (!keys) return;
  const passphraseFile = env.SVC_SIGNING_PASSPHRASE_FILE;
  if (passphraseFile && !existsSync(passphraseFile)) throw new ReleaseError(`SVC_SIGNING_PASSPHRASE_FILE names ${passphraseFile}, which does not exist`);
  for (const fingerprint of keys.fingerprints) {
    const listed = spawnSync('gpg', ['--batch', '--no-tty', '--with-colons', '--list-secret-keys', fingerprint], {
      env: { ...process.env, GNUPGHOME: keys.home },
      encoding: 'utf8',
    });
    if (listed.error) throw new ReleaseError('gpg is missing (Debian package gnupg): the release cannot be signed without it');
    if (listed.status !== 0)
      throw new ReleaseError(
        `SVC_SIGNING_KEY names ${fingerprint}, which is not a secret key in GNUPGHOME=${keys.home}: set GNUPGHOME to the folder holding the release key, or import it there`,
      );
    checkExpiry(fingerprint, listed.stdout, now);
    // The signature goes to stdout, dropped: gpg --output replaces the file it names, even /dev/null.
    const signed = spawnSync('gpg', ['--batch', '--no-tty', ...keys.passphrase, '--local-user', `${fingerprint}!`, '--detach-sign'], {
      env: { ...process.env, GNUPGHOME: keys.home },
      input: 'svc release: can this key sign?\n',
      encoding: 'utf8',
    });
    if (signed.status === 0) continue;
    const said = lastLine(signed.stderr);
    if (passphraseFile)
      throw new ReleaseError(
        `the signing key ${fingerprint} did not sign with the passphrase in SVC_SIGNING_PASSPHRASE_FILE=${passphraseFile} (${said}): put the key's passphrase in that file`,
      );
    if (/pinentry|passphrase|Inappropriate ioctl|cancel/i.test(said))
      throw new ReleaseError(
        `the signing key ${fingerprint} needs its passphrase and nothing here can ask for it (${said}): set SVC_SIGNING_PASSPHRASE_FILE to a file holding it (gpg's loopback pinentry), or run in a terminal with GPG_TTY=$(tty) exported`,
      );
    throw new ReleaseError(
      `the signing key ${fingerprint} cannot sign (${said}): check it with gpg --list-secret-keys ${fingerprint} (expired? no signing subkey?)`,
    );
  }
}

/** SVC_SIGNING_KEY's keys, or null when it names none and SVC_THROWAWAY_KEY=1 (a throwaway key signs then); else a ReleaseError. */
function signingKeysNamed(env) {
  if ((env.SVC_SIGNING_KEY ?? '').trim() !== '') return signingKeys(env, 0);
  if (env.SVC_THROWAWAY_KEY === '1') return null;
  throw new ReleaseError(NO_KEY);
}

const day = (seconds) => new Date(seconds * 1000).toISOString().slice(0, 10);

/**
 * An expired or revoked key is named as such (gpg's own words are a passphrase or "unusable
 * key" failure); one that expires within EXPIRY_MARGIN_DAYS is refused too, so the renewed key
 * is published, and reaches machines, well before the old date.
 */
function checkExpiry(fingerprint, listing, now) {
  const sec = /^sec:([^:]*):(?:[^:]*:){4}(\d*):/m.exec(listing);
  if (!sec) return;
  const [, validity, expires] = sec;
  const renew = `gpg --quick-set-expire ${fingerprint} 2y, then publish the renewed key (RELEASING.md, "Renewing the key")`;
  if (validity === 'r')
    throw new ReleaseError(`the signing key ${fingerprint} is revoked: sign with the key that replaced it (RELEASING.md, "Rotating the key")`);
  if (!expires) return;
  const left = Number(expires) - now / 1000;
  if (validity === 'e' || left <= 0) throw new ReleaseError(`the signing key ${fingerprint} expired on ${day(Number(expires))}: renew it with ${renew}`);
  if (left < EXPIRY_MARGIN_DAYS * 86_400)
    throw new ReleaseError(
      `the signing key ${fingerprint} expires on ${day(Number(expires))}, in ${Math.ceil(left / 86_400)} days (under ${EXPIRY_MARGIN_DAYS}): renew it first with ${renew}`,
    );
}

/** The latest creation time of the keys (and subkeys): gpg will not sign at a time before it. */
function newestKeyTime(home, fingerprints) {
  const listing = gpg(home, ['--with-colons', '--list-secret-keys', ...fingerprints]);
  return Math.max(...[...listing.matchAll(/^(?:sec|ssb):(?:[^:]*:){4}(\d+):/gm)].map((m) => Number(m[1])));
}

/** gpg's options that sign with every key at the fixed time (the release's, or the newest key's if later). */
function signerArgs(keys, epoch) {
  const at = Math.max(epoch, newestKeyTime(keys.home, keys.fingerprints));
  return ['--faked-system-time', `${at}!`, '--digest-algo', 'SHA512', ...keys.passphrase, ...keys.fingerprints.flatMap((f) => ['--local-user', `${f}!`])];
}

/** Release.gpg and InRelease, each signed by every key, at the fixed time; returns the public keyring. */
function sign(dists, keys, epoch) {
  const common = signerArgs(keys, epoch);
  const release = join(dists, 'Release');
  for (const file of ['Release.gpg', 'InRelease']) rmSync(join(dists, file), { force: true });
  gpg(keys.home, [...common, '--armor', '--detach-sign', '--output', join(dists, 'Release.gpg'), release]);
  gpg(keys.home, [...common, '--clearsign', '--output', join(dists, 'InRelease'), release]);
  return publicKeyring(keys);
}

/** The keys' public parts, binary: what /etc/apt/keyrings/ holds and `gpg --verify` checks against. */
export const publicKeyring = (keys) => gpg(keys.home, ['--export', ...keys.fingerprints], { encoding: 'buffer' });

/** `file`.asc: an armoured detached signature by every key, at the fixed time (SHA256SUMS.asc). */
export function detachSign(file, keys, epoch) {
  rmSync(`${file}.asc`, { force: true });
  gpg(keys.home, [...signerArgs(keys, epoch), '--armor', '--detach-sign', '--output', `${file}.asc`, file]);
  return `${file}.asc`;
}

/** The .sources file an admin puts in /etc/apt/sources.list.d/. */
export function sourcesText(url, keyringPath = KEYRING_PATH) {
  return `Types: deb\nURIs: ${url}\nSuites: ${SUITE}\nComponents: ${COMPONENT}\nSigned-By: ${keyringPath}\n`;
}

/** The primary keys' fingerprints in a binary keyring file. */
function keyringFingerprints(file) {
  // A home of its own: gpg would otherwise make ~/.gnupg to read a file.
  const home = mkdtempSync(join(tmpdir(), 'svc-apt-keyring-'));
  let listed;
  try {
    listed = spawnSync('gpg', ['--batch', '--no-tty', '--with-colons', '--show-keys', file], { env: { ...process.env, GNUPGHOME: home }, encoding: 'utf8' });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const fingerprints = [];
  let primary = false;
  for (const line of listed.stdout.split('\n')) {
    if (line.startsWith('pub:')) primary = true;
    else if (line.startsWith('fpr:') && primary) {
      fingerprints.push(line.split(':')[9]);
      primary = false;
    } else if (!line.startsWith('fpr:')) primary = false;
  }
  return fingerprints;
}

/**
 * Publishing into a repository machines already trust: a signing key must be one its
 * published keyring holds (else every installed machine stops updating, and new ones trust a
 * key that replaced it unannounced), and any other signing key (a rotation's new one) must be
 * certified by such a key, so an admin can check the new keyring against the old.
 */
export function checkPublishedKeyring(repo, keys) {
  const keyring = join(repo, KEYRING);
  if (!existsSync(keyring)) {
    if (existsSync(join(repo, 'dists')))
      throw new ReleaseError(`${repo} holds a repository but no ${KEYRING}: publish into a copy of the whole published folder, keyring included`);
    return;
  }
  const published = keyringFingerprints(keyring);
  const known = keys.fingerprints.filter((f) => published.includes(f));
  if (!known.length)
    throw new ReleaseError(
      `the signing key ${keys.fingerprints.join(' ')} is not in ${keyring} (${published.join(' ') || 'no key'}), which installed machines trust: sign with the release key (GNUPGHOME and SVC_SIGNING_KEY as RELEASING.md's release block sets them), or rotate: SVC_SIGNING_KEY="<published key> <new key>" with the new key certified by the published one (RELEASING.md, "Rotating the key")`,
    );
  for (const fingerprint of keys.fingerprints.filter((f) => !published.includes(f))) {
    const sigs = spawnSync('gpg', ['--batch', '--no-tty', '--with-colons', '--check-sigs', fingerprint], {
      env: { ...process.env, GNUPGHOME: keys.home },
      encoding: 'utf8',
    }).stdout;
    const certifiers = [...String(sigs).matchAll(/^sig:!:(?:[^:]*:){2}([0-9A-F]{16}):/gm)].map((m) => m[1]);
    if (!known.some((old) => certifiers.includes(old.slice(-16))))
      throw new ReleaseError(
        `the new signing key ${fingerprint} is not certified by the published key ${known[0]}, so machines cannot check it against the key they trust: gpg --local-user ${known[0]} --quick-sign-key ${fingerprint} (RELEASING.md, "Rotating the key")`,
      );
  }
}

/**
 * Adds `debs` to the repository at `repo` and writes its indexes, signatures, keyring and
 * .sources. Returns the paths written.
 */
export function publish({ repo, debs, epoch, url = DEFAULT_URL, keyringPath = KEYRING_PATH, env = process.env, keys: given }) {
  // A throwaway key is never one the published keyring holds: refused before one is made.
  if (!given && (env.SVC_SIGNING_KEY ?? '').trim() === '' && existsSync(join(repo, KEYRING)))
    throw new ReleaseError(
      `SVC_SIGNING_KEY is not set, and ${join(repo, KEYRING)} is the key installed machines trust, never a throwaway one: export GNUPGHOME=~/.svc-release-gnupg and SVC_SIGNING_KEY=<the release key's fingerprint> (RELEASING.md's publish block)`,
    );
  const keys = given ?? signingKeys(env, epoch);
  try {
    checkPublishedKeyring(repo, keys);
    return publishWith({ repo, debs, epoch, url, keyringPath, keys });
  } finally {
    if (!given) keys.cleanup();
  }
}

function publishWith({ repo, debs, epoch, url, keyringPath, keys }) {
  for (const deb of debs) {
    const { pkg } = controlOf(deb);
    const target = join(repo, poolPath(pkg, basename(deb)));
    mkdirSync(resolve(target, '..'), { recursive: true });
    copyFileSync(deb, target);
  }
  const dists = join(repo, 'dists', SUITE);
  rmSync(join(dists, COMPONENT), { recursive: true, force: true });
  const byArch = packagesByArch(repo);
  if (!byArch.size) throw new Error(`${repo}/pool holds no .deb: nothing to publish`);
  const indexes = [];
  for (const [arch, stanzas] of byArch) {
    const dir = `${COMPONENT}/binary-${arch}`;
    mkdirSync(join(dists, dir), { recursive: true });
    const text = Buffer.from(`${stanzas.join('\n\n')}\n`);
    const gz = gzipSync(text, { level: 9 });
    writeFileSync(join(dists, dir, 'Packages'), text);
    writeFileSync(join(dists, dir, 'Packages.gz'), gz);
    indexes.push({ path: `${dir}/Packages`, bytes: text }, { path: `${dir}/Packages.gz`, bytes: gz });
  }
  writeFileSync(join(dists, 'Release'), releaseText(indexes, [...byArch.keys()], epoch));
  writeFileSync(join(repo, KEYRING), sign(dists, keys, epoch));
  detachSign(join(repo, KEYRING), keys, epoch);
  writeFileSync(join(repo, 'svc.sources'), sourcesText(url, keyringPath));
  return ['Release', 'InRelease', 'Release.gpg']
    .map((f) => join(dists, f))
    .concat(join(repo, KEYRING), join(repo, `${KEYRING}.asc`), join(repo, 'svc.sources'));
}

function main() {
  const args = process.argv.slice(2);
  const unknown = args.find((arg) => arg.startsWith('-') && !['--repo', '--url', '--keyring-path'].includes(arg));
  if (unknown) throw new ReleaseError(`unknown option ${unknown} (node scripts/apt-repo.mjs --help)`);
  const option = (name) => (args.includes(name) ? args.splice(args.indexOf(name), 2)[1] : undefined);
  const repo = resolve(option('--repo') ?? join(releaseDir, 'apt'));
  const url = option('--url') ?? process.env.SVC_APT_URL ?? DEFAULT_URL;
  // Where the keyring is on the machines (a test's throwaway root); /etc/apt/keyrings/ by default.
  const keyringPath = option('--keyring-path') ?? KEYRING_PATH;
  if (!args.length) throw new ReleaseError('no .deb given (node scripts/apt-repo.mjs --help)');
  checkSigningKeys();
  const epoch = releaseEpoch();
  for (const file of publish({ repo, debs: args.map((d) => resolve(d)), epoch, url, keyringPath })) process.stdout.write(`${file}\n`);
}

answerHelp(import.meta.url);
if (process.argv[1] === fileURLToPath(import.meta.url)) runMain('apt-repo', main);
