// The standalone svc's main script (Node's single executable application: scripts/dist.mjs
// builds it into a copy of Node). The binary holds the npm package's own files as SEA
// assets: bin/, dist/, completions/, package.json, and the keychain addon for its platform.
// On first run they are written to a folder of the user's own under svc's cache dir, named by
// their content hash; every run then starts bin/svc.js from there with an ordinary require, so
// the binary and the npm package run the same bundle, and Node's module loader, svc's code
// cache and Node's compile cache work on real files as they do for the npm install.
// __SVC_MANIFEST__ is replaced by the build: { id, launcher, files: { path: sha256 } }.
'use strict';
const { lstatSync, mkdirSync, renameSync, rmSync, writeFileSync, readdirSync, existsSync } = require('node:fs');
const { dirname, join } = require('node:path');

const MANIFEST = __SVC_MANIFEST__;

/** A folder that only this user can use: owned by them, no access for group or others. */
function ownPrivateDir(path) {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  return Boolean(stat && stat.isDirectory() && stat.uid === process.getuid() && (stat.mode & 0o077) === 0);
}

/** Makes `path` (mode 0700) if it is missing; throws unless it is then this user's own, private folder. */
function privateDir(path) {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  if (!ownPrivateDir(path)) throw new Error(`${path} is not a folder of this user's own with mode 0700 (fix: chmod 700 ${path}, or remove it)`);
  return path;
}

/** <cache home>/svc/standalone: $XDG_CACHE_HOME (absolute) or ~/.cache, as svc's code cache. */
function unpackRoot() {
  const env = process.env;
  const home = env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(env.HOME || require('node:os').homedir(), '.cache');
  return join(home, 'svc', 'standalone');
}

/**
 * The folder the files go in: the cache home's, else, where that cannot be written (the home
 * of a CI job or a service account), one of this user's own under the OS temp dir.
 */
function unpackBase() {
  try {
    return privateDir(unpackRoot());
  } catch (error) {
    if (!['EACCES', 'EPERM', 'EROFS', 'ENOENT', 'ENOTDIR'].includes(error.code)) throw error;
    try {
      return privateDir(join(privateDir(join(require('node:os').tmpdir(), `svc-${process.getuid()}`)), 'standalone'));
    } catch {
      throw error;
    }
  }
}

/**
 * Writes every embedded file into a fresh folder, each checked against the build's hash
 * first, then renames the folder into place: a folder under its id is complete, and two
 * first runs at once each write their own and one rename wins.
 */
function unpack(base, target) {
  const sea = require('node:sea');
  const { createHash } = require('node:crypto');
  const temp = join(base, `.unpack-${MANIFEST.id}-${process.pid}-${Date.now()}`);
  mkdirSync(temp, { mode: 0o700 });
  try {
    for (const [path, hash] of Object.entries(MANIFEST.files)) {
      const bytes = new Uint8Array(sea.getRawAsset(path));
      if (createHash('sha256').update(bytes).digest('hex') !== hash)
        throw new Error(`the embedded ${path} is damaged (its hash differs from the build's): download svc again`);
      mkdirSync(dirname(join(temp, path)), { recursive: true, mode: 0o700 });
      writeFileSync(join(temp, path), bytes, { mode: 0o600 });
    }
    try {
      renameSync(temp, target);
    } catch (error) {
      // Another first run renamed its folder in place first: use that one.
      if (!['ENOTEMPTY', 'EEXIST'].includes(error.code) || !ownPrivateDir(target)) throw error;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  // Folders of other builds are what a replaced binary left: svc no longer runs them.
  for (const name of readdirSync(base)) {
    if (name !== MANIFEST.id && !name.startsWith('.unpack-')) rmSync(join(base, name), { recursive: true, force: true });
  }
}

/** How this binary was installed, for `svc version --json`: the .deb's /usr/bin/svc, else standalone. */
function installMethod() {
  return process.execPath === '/usr/bin/svc' && existsSync('/var/lib/dpkg/info/svc.list') ? 'deb' : 'standalone';
}

let target;
try {
  const base = unpackBase();
  target = join(base, MANIFEST.id);
  if (!ownPrivateDir(target)) {
    if (existsSync(target)) throw new Error(`${target} is not a folder of this user's own with mode 0700 (fix: remove it)`);
    unpack(base, target);
  }
} catch (error) {
  process.stderr.write(
    `svc: cannot unpack its files into the cache dir: ${error.message}\nSet XDG_CACHE_HOME to a folder of your own (it holds svc's own files, safe to delete).\n`,
  );
  process.exit(1);
}
Object.defineProperty(globalThis, '__SVC_INSTALL__', { get: installMethod, configurable: true });
// The npm package's own launcher (package.json "bin"), run as Node runs it for the npm install.
const launcher = join(target, MANIFEST.launcher);
try {
  require('node:module').createRequire(launcher)(launcher);
} catch (error) {
  // An ES module launcher with a top-level await cannot be required: import it.
  if (error.code !== 'ERR_REQUIRE_ASYNC_MODULE') throw error;
  import(require('node:url').pathToFileURL(launcher).href);
}
