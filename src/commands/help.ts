// `svc help [COMMAND…]` and `svc help <topic>`: a declaration only, so the command appears in
// the command list, in help and in completions (which offer the topic names). A command's help
// is commander's own --help, the one place help is made: src/cli/tree.ts's readHelpWord reads
// `svc help calls list` as `svc calls list --help` (at any depth, which commander's help
// command cannot do); a topic (docs/topics/) is printed by src/cli/help-topic.ts. Nothing runs here.
import { declaredOnly, defineCommand } from '../kit/define.js';
import { TOPICS } from '../help-topics/topics.js';

export const command = defineCommand({
  summary: 'help for a command or a topic, e.g. svc help calls list, svc help modes',
  args: [{ name: 'command', help: 'the command, or a topic', variadic: true, choices: TOPICS.map((topic) => topic.name) }],
  scopes: [],
});

export default declaredOnly(command);
