// The version: a constant in the esbuild bundle; read from package.json when the
// sources run directly (vitest), which never happens in the installed CLI.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

export function svcVersion(): string {
  if (cached) return cached;
  if (typeof __SVC_VERSION__ === 'string') return (cached = __SVC_VERSION__);
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return (cached = pkg.version);
}

export function userAgent(version: string): string {
  return `svc/${version} node/${process.versions.node} ${process.platform}`;
}
