// Which files declare a command, decided here once: a .ts file under src/commands/ with a line
// that begins `export const command`. src/cli/declared.ts (a command line run from the
// sources) and scripts/generated.mjs (the build's manifest, man pages and completions) both ask
// this module, so the build and the tests can never find different commands.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DECLARES_A_COMMAND = /^export const command\b/m;

/** The modules under `commandsDir` (src/commands/) that declare a command, by their path without extension. */
export function commandModulePaths(commandsDir: string): string[] {
  return readdirSync(commandsDir, { recursive: true })
    .map(String)
    .filter((file) => file.endsWith('.ts') && DECLARES_A_COMMAND.test(readFileSync(join(commandsDir, file), 'utf8')))
    .map((file) => file.replace(/\\/g, '/').replace(/\.ts$/, ''))
    .sort();
}
