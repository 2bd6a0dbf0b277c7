// The version: a constant in the esbuild bundle; read from package.json when the
// sources run directly (vitest), which never happens in the installed CLI.
// The sources get their require from src/node-require.ts, which in the bundle is the module's own.
import { requireNode } from '../node-require.js';

export function svcVersion(): string {
  if (typeof __SVC_VERSION__ === 'string') return __SVC_VERSION__;
  // (require keeps package.json parsed for the next call)
  return (requireNode('../package.json') as { version: string }).version; // relative to src/node-require.ts
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
