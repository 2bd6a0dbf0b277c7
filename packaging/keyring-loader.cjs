// The standalone svc's `@napi-rs/keyring` (scripts/dist.mjs puts it at
// node_modules/@napi-rs/keyring/index.js inside the executable, with the names below filled
// in): the bundle requires the package by name as it does from node_modules, so nothing in
// svc knows it runs from a binary. The addon is loaded
// - for the .deb, from /usr/lib/svc/, a root-owned file dpkg installed (and `dpkg -V` checks);
// - else from inside the executable: Node (26.12, src/node_binding.cc's AddonImage) hands
//   dlopen an in-memory copy (a memfd, also on kernels before 6.3), so no file is written,
//   whatever the user's home or a read-only root allow; only where memfd is unavailable does
//   Node write a private temp file (mkdtemp 0700, O_EXCL), removed as soon as it is loaded.
// Either is checked against the build's SHA-256 before it is loaded. A damaged addon is a
// damaged install: svc stops and says so, rather than keeping secrets somewhere quieter. An
// addon that is whole but cannot be loaded (a kernel that forbids running memory as code)
// is the keychain failing: svc says why and uses credentials.json, as on a machine without one.
'use strict';
const { readFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

const ADDON = '@ADDON@';
const SHA256 = '@SHA256@';
const DEB_PROGRAM = '@DEB_PROGRAM@';

const packaged = process.execPath === DEB_PROGRAM;
const file = packaged ? join(dirname(DEB_PROGRAM), ADDON) : join(__dirname, ADDON);
let bytes = null;
try {
  bytes = readFileSync(file);
} catch (error) {
  if (error.code !== 'ENOENT') throw new Error(`the keychain addon ${file} cannot be read (${error.code || error.message})`);
}
if (bytes === null || require('node:crypto').createHash('sha256').update(bytes).digest('hex') !== SHA256) {
  const fix = packaged ? 'reinstall it (sudo apt install --reinstall svc)' : 'download svc again';
  process.stderr.write(`svc: the keychain addon ${file} is ${bytes === null ? 'missing' : 'damaged (its SHA-256 is not the build\'s)'}: ${fix}\n`);
  process.exit(1);
}
try {
  process.dlopen(module, file);
} catch (error) {
  throw new Error(`the keychain addon ${file} cannot be loaded (${error.message.split('\n')[0]})`);
}
