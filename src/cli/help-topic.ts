// `svc help <topic>`: a topic's page (docs/topics/<name>.md, generated into
// src/help-topics/), wrapped to the terminal. Its text is loaded only here.
import { TOPICS } from '../help-topics/topics.js';
import type { Runtime } from './context.js';

/** The topic `argv` asks for (`help <topic>`, nothing else on the line), if it names one. */
export function topicAsked(argv: readonly string[]): string | undefined {
  if (argv.length !== 2 || argv[0] !== 'help') return undefined;
  return TOPICS.some((topic) => topic.name === argv[1]) ? argv[1] : undefined;
}

/** Prints the topic `name` on stdout: at most 80 columns, fewer on a narrower terminal. */
export async function printTopic(name: string, runtime: Pick<Runtime, 'stdout'>): Promise<number> {
  const [{ TOPIC_SOURCES }, { parseTopic, topicText }] = await Promise.all([import('../help-topics/sources.js'), import('../help-topics/markdown.js')]);
  runtime.stdout.write(topicText(parseTopic(TOPIC_SOURCES[name]!), Math.min(runtime.stdout.columns ?? 80, 80)));
  return 0;
}
