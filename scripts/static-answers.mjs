// Help as svc prints it on a pipe or a file, written at build time by the bundle itself (so
// from the same declarations and code) for the launcher (bin/svc.js) to print without loading
// the bundle or commander: <outdir>/help/svc.calls.list.txt is `svc calls list --help` at 80
// columns. A terminal gets help wrapped to its own width, from commander at run time.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The file of a path's help: `help/svc.calls.list.txt`. Words are [a-z0-9-]. */
export const helpFileName = (path) => `${['svc', ...path].join('.')}.txt`;

export async function writeStaticAnswers(outdir) {
  const bundled = createRequire(import.meta.url)(join(outdir, 'main.cjs'));
  const dir = join(outdir, 'help');
  mkdirSync(dir, { recursive: true });
  const answers = [];
  for (const path of await bundled.commandPaths()) {
    // Hidden commands such as `__complete` have no help file: the launcher asks only for these words.
    if (path.every((word) => /^[a-z0-9][a-z0-9-]*$/.test(word))) answers.push({ argv: [...path, '--help'], file: helpFileName(path) });
  }
  for (const { argv, file } of answers) {
    let text = '';
    const output = { write: (chunk) => void (text += chunk), isTTY: false, columns: undefined };
    const code = await bundled.execute(argv, {
      env: {},
      stdout: output,
      stderr: { write: () => {}, isTTY: false, columns: undefined },
      stdin: { isTTY: false, readAll: async () => '', readAllBytes: async () => new Uint8Array(), lines: async function* () {} },
      clock: { now: () => 0, sleep: async () => {} },
      random: { bytes: (n) => new Uint8Array(n) },
      browser: { open: async () => {} },
      signal: new AbortController().signal,
    });
    if (code !== 0 || !text) throw new Error(`svc ${argv.join(' ')}: exit ${code}, ${text.length} characters`);
    writeFileSync(join(dir, file), text);
  }
}
