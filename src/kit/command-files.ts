// The files of src/commands/, listed here once: every one is a command at its path, or a
// group's index.ts (src/kit/manifest.ts reads them into the tree and refuses anything else).
// src/cli/declared.ts (a command line run from the sources) and scripts/generated.mjs (the
// build's manifest, man pages and completions) both ask this module, so the build and the
// tests can never find different commands.
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Every module under `commandsDir` (src/commands/) by its path without extension (`calls/list`); throws on a file that is not TypeScript. */
export function commandFiles(commandsDir: string): string[] {
  return readdirSync(commandsDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(commandsDir, join(entry.parentPath, entry.name)).replace(/\\/g, '/'))
    .map((file) => {
      if (!file.endsWith('.ts') || file.endsWith('.d.ts'))
        throw new Error(`src/commands/${file}: only commands live in src/commands/, each a .ts file at its command line's path`);
      return file.slice(0, -'.ts'.length);
    })
    .sort();
}
