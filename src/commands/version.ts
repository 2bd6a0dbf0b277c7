// `svc version`: the same as `svc --version` (gh has both); with --json, an object
// that also names the Node.js version, the platform and how svc was installed (npm,
// standalone, deb), for bug reports.
import { commandModule, defineCommand } from '../kit/define.js';
import type { Context } from '../context.js';
import { installMethod } from '../shared/version.js';
import { textResult, type CommandResult } from '../kit/result.js';

export const command = defineCommand({
  summary: 'print the version (with --json: also Node.js and the platform)',
  examples: ['svc version', 'svc version --json'],
  scopes: [],
});

export function parse(): Record<string, never> {
  return {};
}

export async function run(_opts: unknown, ctx: Context): Promise<CommandResult> {
  return textResult(
    { version: ctx.version, node: process.versions.node, platform: `${process.platform}/${process.arch}`, install: installMethod() },
    ctx.version,
  );
}

export default commandModule({ command, parse, run });
