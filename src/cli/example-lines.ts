// An example command line wrapped to a width as the shell reads it, for help (src/cli/tree.ts)
// and the man pages (scripts/gen-man.mjs) alike: each line but the last ends in ` \`, so the
// example still pastes as one command, and a quoted argument is one word, never broken.

/** `line` as lines of at most `width` characters where its words allow: the first after `first`, the rest after `rest`. */
export function exampleLines(line: string, width: number, first: string, rest: string): string[] {
  const [command = '', ...words] = line.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [];
  const lines = [`${first}${command}`];
  for (const word of words) {
    const current = lines[lines.length - 1]!;
    if (current.length + 1 + word.length + ' \\'.length <= width) lines[lines.length - 1] = `${current} ${word}`;
    else lines.push(`${rest}${word}`);
  }
  return lines.map((text, i) => (i < lines.length - 1 ? `${text} \\` : text));
}
