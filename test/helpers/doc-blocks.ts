// The shell blocks of a Markdown document that tests run word for word: a block opened with
// ```sh NAME (indented or not, as in a list item), its lines as typed, blank lines dropped.

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
