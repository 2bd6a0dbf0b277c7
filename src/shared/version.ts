// The version: a constant in the esbuild bundle; read from package.json when the
// sources run directly (vitest), which never happens in the installed CLI. shared/ imports
// nothing of svc's, so the sources make their own require here (node:module, only then).

export function svcVersion(): string {
  if (typeof __SVC_VERSION__ === 'string') return __SVC_VERSION__;
  const { createRequire } = process.getBuiltinModule('node:module') as typeof import('node:module');
  // (require keeps package.json parsed for the next call)
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version; // relative to src/shared/version.ts
}

export function userAgent(version: string): string {
  return `svc/${version} node/${process.versions.node} ${process.platform}`;
}

/**
 * How svc was installed: the standalone binary's loader (packaging/sea-main.cjs) sets
 * `globalThis.__SVC_INSTALL__` to `standalone`, or `deb` for the Debian package's
 * /usr/bin/svc; bin/svc.js from the npm package sets nothing.
 */
export function installMethod(): 'npm' | 'standalone' | 'deb' {
  const fromLoader = (globalThis as { __SVC_INSTALL__?: unknown }).__SVC_INSTALL__;
  return fromLoader === 'standalone' || fromLoader === 'deb' ? fromLoader : 'npm';
}
