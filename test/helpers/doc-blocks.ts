// The shell blocks of a Markdown document that tests run word for word: a block opened with
// ```sh NAME (indented or not, as in a list item), its lines as typed, blank lines dropped.
import { flagTerm, nameOf, type FlagSpecs, type Node } from '../../src/kit/define.js';
import { declaredTree } from '../../src/cli/declared.js';

/** The command tree, as the sources declare it. */
const ROOT = await declaredTree();

/** The lines of the block marked ```sh NAME```, without the block's own indentation. */
export function blockLines(markdown: string, name: string): string[] {
  const match = new RegExp(`^( *)\`\`\`sh ${name}\\n([\\s\\S]*?)^\\1\`\`\`$`, 'm').exec(markdown);
  const indent = match?.[1] ?? '';
  return (match?.[2] ?? '')
    .split('\n')
    .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
    .filter((line) => line.trim() !== '');
}

/** The command lines of the blocks marked ```sh runnable```, comments dropped, in order. */
export function runnableLines(markdown: string): string[] {
  const blocks = [...markdown.matchAll(/^```sh runnable\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
  return blocks.flatMap((block) =>
    block
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== ''),
  );
}

/** Shell words: spaces split, single or double quotes group (all the documents' lines use). */
export function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** Every line of every ```sh block (named or not), comments and continuation lines as written. */
export function shellLines(markdown: string): string[] {
  return [...markdown.matchAll(/^ *```sh[^\n]*\n([\s\S]*?)^ *```$/gm)].flatMap((m) => m[1]!.split('\n').filter((line) => line.trim() !== ''));
}

/** The command a line's words name, and the flags it and the root accept (`--x`, `--no-x`, `-x`). */
export function commandOf(argv: string[]): { path: string[]; flags: Set<string>; rest: string[] } | string {
  const flagsOf = (specs: FlagSpecs | undefined) =>
    Object.entries(specs ?? {}).flatMap(([key, spec]) =>
      flagTerm(key, spec)
        .split(/,? /)
        .filter((w) => w.startsWith('-')),
    );
  const valued = (specs: FlagSpecs | undefined) =>
    Object.entries(specs ?? {}).flatMap(([key, spec]) =>
      spec.value
        ? flagTerm(key, spec)
            .split(/,? /)
            .filter((w) => w.startsWith('-'))
        : [],
    );
  const flags = new Set(['--help', '-h', '--version', ...flagsOf(ROOT.globals)]);
  const takesValue = new Set(valued(ROOT.globals));
  let nodes: readonly Node[] = ROOT.commands;
  const path: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const word = argv[i]!;
    if (word.startsWith('-')) {
      if (takesValue.has(word)) i++;
      continue;
    }
    const node = nodes.find((n) => nameOf(n) === word);
    if (!node) break;
    path.push(word);
    const spec = node.kind === 'leaf' ? node.decl : node.self?.decl;
    for (const flag of flagsOf(spec?.flags)) flags.add(flag);
    for (const flag of valued(spec?.flags)) takesValue.add(flag);
    if (node.kind === 'leaf') {
      i++;
      break;
    }
    nodes = node.commands;
  }
  if (!path.length) return i < argv.length ? `no command \`${argv[i]}\`` : { path, flags, rest: argv };
  return { path, flags, rest: argv.slice(i) };
}

/** The `svc …` lines of `markdown`'s shell blocks that name no command, or a flag the command does not take. */
export function svcLineProblems(markdown: string): string[] {
  const wrong: string[] = [];
  for (const line of shellLines(markdown)) {
    const command = /^(?:[A-Z_]+=\S+ )*svc (.*)$/.exec(line.replace(/\s+#.*$/, '').trim())?.[1];
    if (command === undefined || command.includes('…')) continue;
    const argv = words(command.split(/ (?:\||<|>|&&|;) /)[0]!);
    const found = commandOf(argv);
    if (typeof found === 'string') wrong.push(`${line}: ${found}`);
    else for (const word of found.rest) if (/^--?[a-z]/i.test(word) && !found.flags.has(word.split('=')[0]!)) wrong.push(`${line}: ${word}`);
  }
  return wrong;
}
