// A help topic's source (docs/topics/<name>.md) as blocks, and those blocks as a terminal's
// text: `svc help <topic>` prints this, and scripts/gen-man.mjs makes svc-<topic>(7) from the
// same blocks, so the two never say different things. The Markdown is the small part the
// topics use: one `# name: summary` title, `##` headings, paragraphs, `-` lists, fenced code
// and pipe tables.

export type TopicBlock =
  | { kind: 'heading'; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'item'; text: string }
  | { kind: 'code'; lines: string[] }
  | { kind: 'table'; rows: string[][] };

export interface ParsedTopic {
  name: string;
  summary: string;
  blocks: TopicBlock[];
}

const TITLE = /^# ([a-z][a-z-]*): (.+)$/;

/** The topic in `markdown`; throws when its first line is not `# name: summary`. */
export function parseTopic(markdown: string): ParsedTopic {
  const lines = markdown.replace(/\r\n/g, '\n').split('\n');
  const title = TITLE.exec(lines[0] ?? '');
  if (!title) throw new Error(`a topic begins with "# name: summary", not ${JSON.stringify(lines[0])}`);
  const blocks: TopicBlock[] = [];
  let i = 1;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '') {
      i++;
    } else if (line.startsWith('```')) {
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) code.push(lines[i]!);
      i++;
      blocks.push({ kind: 'code', lines: code });
    } else if (line.startsWith('## ')) {
      blocks.push({ kind: 'heading', text: line.slice(3).trim() });
      i++;
    } else if (line.startsWith('|')) {
      const rows: string[][] = [];
      for (; i < lines.length && lines[i]!.startsWith('|'); i++) {
        const cells = splitRow(lines[i]!);
        if (!cells.every((cell) => /^:?-+:?$/.test(cell))) rows.push(cells);
      }
      blocks.push({ kind: 'table', rows });
    } else if (/^- /.test(line)) {
      const text = [line.slice(2)];
      for (i++; i < lines.length && /^ {2}\S/.test(lines[i]!); i++) text.push(lines[i]!.trim());
      blocks.push({ kind: 'item', text: text.join(' ') });
    } else {
      const text = [line.trim()];
      for (i++; i < lines.length && lines[i]!.trim() !== '' && !/^(```|## |\||- )/.test(lines[i]!); i++) text.push(lines[i]!.trim());
      blocks.push({ kind: 'paragraph', text: text.join(' ') });
    }
  }
  return { name: title[1]!, summary: title[2]!, blocks };
}

/** A table row's cells; `\|` inside a cell is a literal bar. */
function splitRow(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/\|\s*$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim().replace(/\\\|/g, '|'));
}

/** Running text as read: code spans and emphasis lose their marks, a link keeps its words. */
export function plainText(text: string): string {
  return text
    .replace(/\[([^\]]+)\]\([^)]+\)/g, '$1')
    .replace(/\*\*([^*]+)\*\*/g, '$1')
    .replace(/`([^`]+)`/g, '$1');
}

/** `text` in lines of at most `width` characters (a longer word stands alone), the first after `first`, the rest after `rest`. */
export function wrapText(text: string, width: number, first: string, rest: string): string[] {
  const lines: string[] = [];
  let current = first;
  let empty = true;
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (!empty && current.length + 1 + word.length > width) {
      lines.push(current);
      current = rest + word;
    } else current = empty ? current + word : `${current} ${word}`;
    empty = false;
  }
  lines.push(current);
  return lines;
}

/** The topic as `svc help <topic>` prints it, wrapped to `width` (code lines stay as written). */
export function topicText(topic: ParsedTopic, width: number): string {
  const out: string[] = wrapText(`svc help ${topic.name}: ${topic.summary}`, width, '', '  ');
  for (const block of topic.blocks) {
    out.push('');
    if (block.kind === 'heading') out.push(plainText(block.text).toUpperCase());
    else if (block.kind === 'paragraph') out.push(...wrapText(plainText(block.text), width, '  ', '  '));
    else if (block.kind === 'item') out.push(...wrapText(plainText(block.text), width, '  - ', '    '));
    else if (block.kind === 'code') out.push(...block.lines.map((line) => (line ? `    ${line}` : '')));
    else {
      const rows = block.rows.slice(1);
      const term = (cells: string[]) => plainText(cells[0] ?? '');
      const label = (cells: string[]) => plainText(cells.slice(1).join('; '));
      // Short terms sit beside their descriptions, as help's flags do; long ones above them.
      const termWidth = Math.max(0, ...rows.map((cells) => term(cells).length));
      for (const cells of rows)
        if (termWidth <= 22) {
          const indent = ' '.repeat(termWidth + 4);
          out.push(...wrapText(label(cells), width, `  ${term(cells).padEnd(termWidth)}  `, indent));
        } else {
          out.push(...wrapText(term(cells), width, '  ', '  '));
          out.push(...wrapText(label(cells), width, '      ', '      '));
        }
    }
  }
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n')}\n`;
}
