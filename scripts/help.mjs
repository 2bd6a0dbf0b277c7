// What every script here shares at its edge:
// - `--help` (or -h) prints the script's opening comment, which says what it does and how it is
//   run, and exits 0 before the script does anything;
// - runMain() turns a failure the script foresaw (a ReleaseError) into one line on stderr and
//   exit 1, never a stack trace; anything else is a bug and keeps its trace.
//   node scripts/<name>.mjs --help
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A failure the script foresaw: its message says what is wrong and how to fix it, on one line. */
export class ReleaseError extends Error {}

/** The comment lines a file opens with (after a #! line), without their `//` or `#`. */
export function openingComment(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const start = lines[0]?.startsWith('#!') ? 1 : 0;
  const comment = [];
  for (const line of lines.slice(start)) {
    const match = /^\s*(?:\/\/|#)(?: ?)(.*)$/.exec(line);
    if (!match) break;
    comment.push(match[1]);
  }
  return `${comment.join('\n')}\n`;
}

/** Prints the opening comment of the module at `moduleUrl` and exits, when it is the script run with --help. */
export function answerHelp(moduleUrl) {
  const file = fileURLToPath(moduleUrl);
  if (process.argv[1] !== file) return; // imported by another script
  if (!process.argv.slice(2).some((arg) => arg === '--help' || arg === '-h')) return;
  process.stdout.write(openingComment(file));
  process.exit(0);
}

/** Runs `main` (sync or async); a ReleaseError is one line `name: message` and exit 1. */
export async function runMain(name, main) {
  try {
    await main();
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    process.stderr.write(`${name}: ${error.message}\n`);
    process.exitCode = 1;
  }
}

answerHelp(import.meta.url);
