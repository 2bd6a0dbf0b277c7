// The process edge, with src/cli/process/process.ts (the real runtime, SIGINT and process.exitCode,
// never process.exit, so pending output drains): the only places that read process.argv/env
// or touch the real stdin/stdout/stderr. bin/svc.js calls main().
import type { Runtime } from './cli/context.js';
import type { RunF } from './cli/run.js';
import { svcVersion } from './shared/version.js';

export type { Runtime, RunF };

/**
 * In-process entry (tests, the demo): runs one command line, returns the exit code. With
 * `runF`, the command's parsed options go to it instead of its run().
 */
export async function execute(argv: readonly string[], runtime: Runtime, runF?: RunF): Promise<number> {
  const cli = await import('./cli/execute.js');
  // At a terminal every line on stderr, whoever writes it, fits it (src/io/fit-output.ts).
  // Piped or redirected, stderr stays whole, and the fitter and its width tables are not loaded.
  let { stdout, stderr } = runtime;
  // A terminal of a locale that is not UTF-8 gets svc's symbols (…, ✔, →) in ASCII (src/io/charset.ts),
  // before stderr is fitted, so the wider stand-ins wrap too.
  if (stdout.isTTY || stderr.isTTY) {
    const { asciiWhereNeeded } = await import('./io/charset.js');
    stdout = asciiWhereNeeded(stdout, runtime.env);
    stderr = asciiWhereNeeded(stderr, runtime.env);
  }
  if (stderr.isTTY) stderr = (await import('./io/fit-output.js')).fitToTerminal(stderr);
  return cli.execute(argv, { ...runtime, stdout, stderr }, svcVersion(), runF);
}

export async function main(): Promise<void> {
  const { runAsProcess } = await import('./cli/process/process.js');
  await runAsProcess((runtime) => execute(process.argv.slice(2), runtime));
}

/**
 * Every command's path (`['calls', 'links', 'list']`), groups and the root (`[]`) included:
 * the build writes each one's `--help` text (scripts/static-answers.mjs) for the launcher to print.
 */
export async function commandPaths(): Promise<string[][]> {
  const [{ ROOT }, { nameOf }] = await Promise.all([import('./commands/index.js'), import('./commands/define.js')]);
  const paths: string[][] = [[]];
  const walk = (nodes: typeof ROOT.commands, prefix: string[]): void => {
    for (const node of nodes) {
      const path = [...prefix, nameOf(node)];
      paths.push(path);
      if (node.kind === 'group') walk(node.commands, path);
    }
  };
  walk(ROOT.commands, []);
  return paths;
}
