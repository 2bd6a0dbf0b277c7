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
