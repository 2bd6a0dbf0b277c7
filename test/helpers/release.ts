// A small release signed the way `npm run dist` signs one: scripts/dist.mjs's own writeSums (the
// step the build ends with) over a folder of stand-in files, so the signing and its checks are
// tested without the build's minutes.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './spawn.js';

/** SHA256SUMS, its signature and the keyring for the files in `folder`, by dist.mjs's own writeSums (the step npm run dist ends with). */
export function signRelease(folder: string, env: NodeJS.ProcessEnv): { status: number | null; stderr: string } {
  const code = `
    import { readdirSync } from 'node:fs';
    import { join } from 'node:path';
    import { writeSums } from ${JSON.stringify(join(root, 'scripts/dist.mjs'))};
    import { signingKeys } from ${JSON.stringify(join(root, 'scripts/apt-repo.mjs'))};
    const folder = process.argv[1];
    const keys = signingKeys(process.env, 1700000000);
    try { writeSums(folder, readdirSync(folder).map((f) => join(folder, f)), keys, 1700000000); } finally { keys.cleanup(); }
  `;
  const ran = spawnSync(process.execPath, ['--input-type=module', '-e', code, folder], { env, encoding: 'utf8' });
  return { status: ran.status, stderr: ran.stderr };
}

/**
 * `dir`/dist: a copy of the build's dist/ with its man pages as the build writes them
 * for `version` dated `date` (YYYY-MM-DD; the changelog's top entry's): what a build of another
 * version than package.json's has made.
 */
export function builtFor(dir: string, version: string, date?: string): void {
  const built = join(root, 'dist');
  mkdirSync(join(dir, 'dist', 'man'), { recursive: true });
  // Copied, not linked: the standalone build packs the files it finds, and a link is not one.
  for (const entry of readdirSync(built).filter((name) => name !== 'man')) cpSync(join(built, entry), join(dir, 'dist', entry), { recursive: true });
  for (const page of readdirSync(join(built, 'man')).filter((f) => /\.[17]$/.test(f))) {
    const text = readFileSync(join(built, 'man', page), 'utf8').replace(
      /^(\.TH "[^"]*" "[17]" )"([^"]*)" "svc [^"]*"/m,
      (_, head: string, was: string) => `${head}"${date ?? was}" "svc ${version}"`,
    );
    writeFileSync(join(dir, 'dist', 'man', page), text);
  }
}
