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
