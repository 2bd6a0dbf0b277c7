// The version: a constant in the esbuild bundle; read from package.json when the
// sources run directly (vitest), which never happens in the installed CLI.
// No `node:fs` import here: this module is on every start-up path, and an ESM import of
// node:fs builds a facade of all its exports, which loads fs streams and their deps.
import { createRequire } from 'node:module';

export function svcVersion(): string {
  if (typeof __SVC_VERSION__ === 'string') return __SVC_VERSION__;
  // (require keeps package.json parsed for the next call)
  return (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
}

export function userAgent(version: string): string {
  return `svc/${version} node/${process.versions.node} ${process.platform}`;
}
