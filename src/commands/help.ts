// `svc help [COMMAND…]`: a declaration only, so the command appears in the command list,
// in help and in completions. Its help is commander's own --help, the one place help is
// made: src/cli/tree.ts's readHelpWord reads `svc help calls list` as `svc calls list
// --help` (at any depth, which commander's help command cannot do). Nothing runs here.
import { defineCommand } from './define.js';

export const command = defineCommand({
  name: 'help',
  summary: 'help for a command, e.g. svc help calls list',
  args: [{ name: 'command', help: 'the command', variadic: true }],
  scopes: [],
});
