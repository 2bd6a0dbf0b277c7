// The entry of a command's start file, dist/start-<command>.cjs (scripts/bundle.mjs): the
// launcher (bin/svc.js) loads the one for the top-level command argv names. It holds that
// command's declaration and code and the core they run on, and no other command, no
// commander and no command tree: a valid line runs here (src/cli/fast-parse.ts, with the
// global flags and this one command as the tree), and any other (help, a usage error)
// is main.cjs's, which the launcher loads when this declines, before anything was done.
import type { Node, RootSpec } from './cli/define.js';
import { fastInvocation } from './cli/fast-parse.js';
import { runValid } from './cli/run-valid.js';
import { svcVersion } from './cli/version.js';
import { GLOBAL_FLAGS } from './commands/index.js';

/**
 * The tree a start file parses with: the global flags and its command. (The tree a command is
 * handed is this one too: svc completion, which describes the whole tree, has no start file.)
 */
export function startTree(node: Node): RootSpec {
  return { summary: '', examples: [], notes: '', globals: GLOBAL_FLAGS, commands: [node] };
}

/** Runs this process's command line if it is a valid line of `node`'s; null when it is not, with nothing done. */
export function startCommand(node: Node): Promise<void> | null {
  const argv = process.argv.slice(2);
  const invocation = fastInvocation(startTree(node), argv);
  if (!invocation) return null;
  return (async () => {
    const { runAsProcess } = await import('./cli/process.js');
    await runAsProcess((runtime) => runValid(invocation, argv, runtime, svcVersion()));
  })();
}
