// V8's code cache of svc's own bundle files (main.cjs, start-*.cjs, run.cjs, cmd-*.cjs), made at the end
// of a run: it then holds every function that run compiled. Node's compile cache (22+)
// is made right after compiling, so it holds only what V8 compiles eagerly, and every
// function a command calls is compiled again on each run; Node 20 has no cache at all.
// Measured on `svc auth status`: 1.72× → 1.38× `node -e 0` on Node 26, 1.28× → 1.10× on 20.
// Built on its own into dist/code-cache.cjs; bin/svc.js installs it before loading main.cjs.
//
// Where: <cache home>/svc/v8/<node version>-<arch>/, a folder only this user can use (if it
// is anyone else's or open to others, nothing is read or written there). A file per bundle
// file and kind of run: the command's path and credential source (`svc calls list` and
// `svc calls start` call different functions, and so does a key from the keychain),
// named with the bundle file's content hash (the build writes it on the file's first line):
// a new build never runs an old build's code, and writing a file removes the ones it replaces.
// SVC_CODE_CACHE=0 turns it off.
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

/** The first line of each bundle file the build writes: `//svc-build <hash>`. */
export const BUILD_HASH_LINE = /^\/\/svc-build ([0-9a-f]{16})\n/;

/**
 * How the build ends each bundle file (scripts/bundle.mjs finishStartFile): the file is its
 * own CommonJS wrapper, called. What precedes this is the function expression, compiled
 * here as it stands in the file's text, without the copy Module.wrap would make V8 take.
 */
export const SELF_CALL = '\n}).apply(this, arguments);\n';
const CALL = '.apply(this, arguments);\n';

interface ModuleLike {
  exports: unknown;
  require(id: string): unknown;
}

interface ModuleConstructor {
  prototype: { _compile(this: ModuleLike, content: string, filename: string): unknown };
  wrap(source: string): string;
  _resolveFilename(request: string, parent: ModuleLike, isMain: boolean, options?: unknown): string;
  _cache: Record<string, unknown>;
  _extensions: Record<string, unknown>;
}

export interface CodeCacheOptions {
  /** The launcher's module's constructor (`module.constructor`): node:module without loading it. */
  Module: ModuleConstructor;
  /** The bundle's folder: only its main.cjs, start-*.cjs, run.cjs and cmd-*.cjs are compiled here. */
  distDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The kind of run (bin/svc.js): the command's path and credential source (`calls+list@env`), or `other`. */
  command: string;
  /** The launcher's module, as require.main. */
  main: unknown;
}

/** <cache home>/svc/v8/<node>-<arch>, made if need be; null where there is none safe to use. */
export function cacheDirectory(env: Readonly<Record<string, string | undefined>>): string | null {
  if (env.SVC_CODE_CACHE === '0') return null;
  const home =
    env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/')
      ? env.XDG_CACHE_HOME
      : process.platform === 'win32'
        ? env.LOCALAPPDATA
        : env.HOME
          ? join(env.HOME, '.cache')
          : undefined;
  if (!home) return null;
  const dir = join(home, 'svc', 'v8', `${process.version}-${process.arch}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (process.platform !== 'win32') {
      // Code from this folder runs as this user: it must be this user's and open to no one else.
      const stat = lstatSync(dir);
      if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0) return null;
    }
    return dir;
  } catch {
    return null;
  }
}

/**
 * Compiles the bundle's files through node:vm with the cached code when there is some, and
 * at exit writes the cache of each file that had none (or whose cache V8 refused: another
 * V8 flag, say). Anything going wrong with the cache only costs the time it would save.
 * False when there is no cache to use (SVC_CODE_CACHE=0, no safe folder): nothing installed.
 */
export function installCodeCache(options: CodeCacheOptions): boolean {
  const dir = cacheDirectory(options.env);
  if (!dir) return false;
  const kind = /^[a-z0-9+@-]+$/.test(options.command) ? options.command : 'other'; // (it names a file)
  const { Module } = options;
  const compile = Module.prototype._compile;
  const toWrite: { script: Script; file: string; stale: string }[] = [];
  const ours = (filename: string) => dirname(filename) === options.distDir && /^(main|run|(start|cmd)-[a-z0-9-]+)\.cjs$/.test(basename(filename));

  Module.prototype._compile = function (this: ModuleLike, content: string, filename: string): unknown {
    const hash = BUILD_HASH_LINE.exec(content)?.[1];
    if (!hash || !ours(filename)) return compile.call(this, content, filename);
    const prefix = `${basename(filename, '.cjs')}.${kind}.`;
    const file = join(dir, `${prefix}${hash}.v8`);
    let cachedData: Buffer | undefined;
    try {
      cachedData = readFileSync(file);
    } catch {
      // none yet
    }
    // (A slice of the source shares its text: V8 compiles it without copying.)
    const source = content.endsWith(SELF_CALL) ? content.slice(0, content.length - CALL.length) : Module.wrap(content);
    const script = new Script(source, { filename, ...(cachedData ? { cachedData } : {}) });
    if (!cachedData || script.cachedDataRejected) toWrite.push({ script, file, stale: prefix });
    const module = this;
    const require = Object.assign((id: string) => module.require(id), {
      resolve: (request: string, opts?: unknown) => Module._resolveFilename(request, module, false, opts),
      main: options.main,
      cache: Module._cache,
      extensions: Module._extensions,
    });
    const wrapper = script.runInThisContext() as (...args: unknown[]) => unknown;
    return wrapper.call(module.exports, module.exports, require, module, filename, dirname(filename));
  };

  process.once('exit', () => {
    for (const { script, file, stale } of toWrite) {
      try {
        const partial = `${file}.${process.pid}`;
        writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
        renameSync(partial, file); // whole or not at all, for a run at the same moment
        for (const old of readdirSync(dir)) if (old.startsWith(stale) && join(dir, old) !== file) rmSync(join(dir, old), { force: true });
      } catch {
        // a full disk, a read-only home: the next run compiles as this one did
      }
    }
  });
  return true;
}
