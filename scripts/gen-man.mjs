// The man pages, made from the manifest (the command declarations as data,
// src/kit/manifest.ts), which help and completions come from too (cli/cli's
// script/gen-docs does the same from cobra's tree), and from docs/topics/*.md: svc.1,
// svc-<command>.1, svc-<group>-<verb>.1 … and svc-<topic>.7. The build writes them to dist/man/
// (scripts/bundle.mjs: they are never committed); the npm package and the .deb ship them.
// Run as a script (`npm run generate`), it writes what the build cannot make and git keeps:
// src/help-topics/{topics,sources}.ts (compiled into svc) and package.json's "man" list
// (npm links that list only: its `directories.man` links nothing, npm/bin-links#25).
//   node scripts/gen-man.mjs          write them
//   node scripts/gen-man.mjs --check  exit 1 when one differs (test/core/man.test.ts)
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { changelogTop } from './dist.mjs';
import { declaredManifest, root, writeFiles } from './generated.mjs';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

/** The help topics' sources: docs/topics/<name>.md, by name. */
const TOPICS_DIR = join(root, 'docs/topics');
const topicSources = () =>
  Object.fromEntries(
    readdirSync(TOPICS_DIR)
      .filter((file) => file.endsWith('.md'))
      .sort()
      .map((file) => [file.slice(0, -3), readFileSync(join(TOPICS_DIR, file), 'utf8')]),
  );

/**
 * What every page says about the exit status: the table of `svc help exit-codes`
 * (docs/topics/exit-codes.md, its codes src/errors.ts's EXIT), so the two never differ.
 */
function exitMeanings(source) {
  const rows = [...source.matchAll(/^\| (\d+) +\| (.+?) +\|$/gm)];
  if (!rows.length) throw new Error('docs/topics/exit-codes.md has no exit-code table');
  return rows.map(([, code, meaning]) => [code, meaning.replace(/`/g, '')]);
}

/** The version's date (packaging/debian/changelog's top entry, which must be this version's): YYYY-MM-DD. */
function versionDate(version) {
  const top = changelogTop();
  if (top.version !== version) throw new Error(`packaging/debian/changelog's top entry is ${top.version}, package.json says ${version}: add an entry`);
  return new Date(top.epoch * 1000).toISOString().slice(0, 10);
}

/** The files svc reads and writes (src/config/paths.ts, the standalone loader). */
const FILES = [
  [
    '$SVC_CONFIG_DIR/config.json, else $XDG_CONFIG_HOME/svc/config.json, else ~/.config/svc/config.json',
    'profiles, organizations, modes, key ids and their last four characters, scopes and expiry; never a secret',
  ],
  [
    'credentials.json in that folder',
    'secrets, mode 0600, beside config.json only where no OS keychain (Secret Service) can be used or SVC_CREDENTIAL_STORE=file; svc warns before it first writes there',
  ],
  ['locks/ in that folder', 'per-profile lock files, so parallel svc processes refresh a sign-in once'],
  ['$TMPDIR/svc-<uid>/', 'the config folder where there is no home folder (a container user with no passwd entry, no HOME)'],
  ['/usr/lib/svc/', 'the Debian package: the program and its keychain addon'],
];

/** Characters outside ASCII as troff's own names: troff in the C locale prints no UTF-8. */
const TROFF_CHARS = {
  '…': '.\\|.\\|.',
  '–': '\\(en',
  '—': '\\(em',
  '‘': '\\(oq',
  '’': '\\(cq',
  '“': '\\(lq',
  '”': '\\(rq',
  '≤': '\\(<=',
  '≥': '\\(>=',
  '→': '\\(->',
  '×': '\\(mu',
};

/** roff text: backslashes, a line starting with . or ' would be a request, and no byte outside ASCII. */
function esc(text) {
  return String(text)
    .replace(/\\/g, '\\e')
    .replace(/-/g, '\\-')
    .replace(/^([.'])/gm, '\\&$1')
    .replace(/[^\x00-\x7f]/gu, (c) => TROFF_CHARS[c] ?? `\\[u${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}]`);
}

/** A command's name in running text: \% keeps troff from hyphenating it (svc-doc- tor). */
const commandName = (name) => `\\%${esc(name)}`;

/** The widest example line: the EXAMPLES section indents 11 columns, and a page is read at 80 (wrapped as help wraps, src/cli/example-lines.ts). */
const EXAMPLE_WIDTH = 80 - 11;

/** An option's term as bold flag and italic value: `\fB\-\-languages\fR \fI<a,b>\fR`. */
function optionTerm(flagTerm, key, flag) {
  const term = flagTerm(key, { ...flag, value: undefined });
  return `\\fB${esc(term)}\\fR${flag.value ? ` \\fI${esc(flag.value)}\\fR` : ''}`;
}

function optionText(flag) {
  const extra = [];
  if (flag.choices) extra.push(`one of: ${flag.choices.join(', ')}`);
  if (flag.default !== undefined) extra.push(`default: ${flag.default}`);
  if (flag.env) extra.push(`env ${flag.env}`);
  if (flag.required) extra.push('required');
  if (flag.repeatable) extra.push('may be repeated');
  return esc(`${flag.help}${extra.length ? ` (${extra.join('; ')})` : ''}`);
}

function optionsSection(title, flags, flagTerm) {
  const entries = Object.entries(flags ?? {});
  if (!entries.length) return [];
  return [`.SH ${title}`, ...entries.flatMap(([key, flag]) => ['.TP', optionTerm(flagTerm, key, flag), optionText(flag)])];
}

function argsUsage(args) {
  return (args ?? []).map((a) => {
    const name = `${a.name}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
}

/** The pages of the tree: `{ name: 'svc-calls-start', text }` each, `svc` first. */
function commandPages(ROOT, { isHidden, nameOf, flagTerm, exampleLines }) {
  const pages = [];
  const header = (name, summary) => [
    `.\\" generated by scripts/gen-man.mjs from the command declarations (src/commands/); do not edit`,
    `.TH "${name.toUpperCase()}" "1" "${DATE}" "svc ${VERSION}" "svc manual"`,
    // No hyphenation: a command name split over two lines is not one a reader can type.
    '.nh',
    '.SH NAME',
    `${esc(name)} \\- ${esc(summary)}`,
  ];
  const examples = (list) =>
    list?.length ? ['.SH EXAMPLES', '.nf', ...list.map((e) => `.RS 4\n${exampleLines(e, EXAMPLE_WIDTH, '', '  ').map(esc).join('\n')}\n.RE`), '.fi'] : [];
  const seeAlso = (names) => (names.length ? ['.SH SEE ALSO', names.map((n) => `\\fB${commandName(n)}\\fR(1)`).join(', ')] : []);
  const common = () => [
    '.SH ENVIRONMENT',
    esc(ROOT.notes.replace(/^Environment:\s*/, '')),
    '.SH EXIT STATUS',
    ...EXIT.map(([code, meaning]) => ['.TP', `\\fB${code}\\fR`, esc(meaning)]).flat(),
    '.SH FILES',
    ...FILES.flatMap(([path, what]) => ['.TP', `\\fI${esc(path)}\\fR`, esc(what)]),
  ];
  let EXIT, DATE, VERSION;

  const walk = (node, path, parentPage, siblings) => {
    const words = [...path, nameOf(node)];
    const name = ['svc', ...words].join('-');
    const spec = node.kind === 'leaf' ? node.decl : node.self?.decl;
    const summary = node.kind === 'leaf' ? node.decl.summary : node.summary;
    const subs = node.kind === 'group' ? node.commands.filter((c) => !isHidden(c)) : [];
    const synopsis = [];
    if (spec) synopsis.push(`\\fBsvc ${esc(words.join(' '))}\\fR ${esc([...argsUsage(spec.args), '[options]'].join(' '))}`);
    if (subs.length) synopsis.push(`\\fBsvc ${esc(words.join(' '))}\\fR \\fIcommand\\fR [options]`);
    const description = [esc(summary.charAt(0).toUpperCase() + summary.slice(1)) + '.'];
    if (spec?.notes) description.push('.PP', esc(spec.notes));
    if (spec?.scopes?.length) description.push('.PP', esc(`Scopes its requests need: ${spec.scopes.join(', ')}.`));
    const args = spec?.args?.length
      ? [
          '.SH ARGUMENTS',
          ...spec.args.flatMap((a) => ['.TP', `\\fI${esc(a.name)}\\fR`, esc(`${a.help}${a.choices ? ` (one of: ${a.choices.join(', ')})` : ''}`)]),
        ]
      : [];
    const commands = subs.length
      ? [
          '.SH COMMANDS',
          ...subs.flatMap((c) => ['.TP', `\\fB${commandName(`${name}-${nameOf(c)}`)}\\fR(1)`, esc(c.kind === 'leaf' ? c.decl.summary : c.summary)]),
        ]
      : [];
    const exampleList = spec?.examples ?? (node.kind === 'group' ? node.examples : undefined);
    const text = [
      ...header(name, summary),
      '.SH SYNOPSIS',
      synopsis.join('\n.br\n'),
      '.SH DESCRIPTION',
      ...description,
      ...commands,
      ...args,
      ...optionsSection('OPTIONS', spec?.flags, flagTerm),
      ...optionsSection('GLOBAL OPTIONS', ROOT.globals, flagTerm),
      ...examples(exampleList),
      ...common(),
      ...seeAlso([parentPage, ...siblings.filter((n) => n !== name), ...subs.map((c) => `${name}-${nameOf(c)}`)]),
    ];
    pages.push({ name, text: `${text.join('\n')}\n` });
    for (const sub of subs)
      walk(
        sub,
        words,
        name,
        subs.map((c) => `${name}-${nameOf(c)}`),
      );
  };

  return (exitCodes, version, topics) => {
    EXIT = exitCodes;
    VERSION = version;
    DATE = versionDate(version);
    const top = ROOT.commands.filter((c) => !isHidden(c));
    const text = [
      ...header(
        'svc',
        ROOT.summary.replace(/\.$/, '').replace(/^./, (c) => c.toLowerCase()),
      ),
      '.SH SYNOPSIS',
      '\\fBsvc\\fR \\fIcommand\\fR [options]',
      '.br',
      '\\fBsvc\\fR \\-\\-version',
      '.SH DESCRIPTION',
      esc(ROOT.summary),
      '.PP',
      esc('Each command has a page of its own: svc-<command>(1), e.g. svc-calls-start(1). `svc <command> --help` prints the same summary.'),
      '.SH COMMANDS',
      ...top.flatMap((c) => ['.TP', `\\fB${commandName(`svc-${nameOf(c)}`)}\\fR(1)`, esc(c.kind === 'leaf' ? c.decl.summary : c.summary)]),
      // The topics `svc help <topic>` prints, each a page of section 7.
      '.SH HELP TOPICS',
      ...topics.flatMap((t) => ['.TP', `\\fB${commandName(`svc-${t.name}`)}\\fR(7)`, esc(t.summary)]),
      ...optionsSection('GLOBAL OPTIONS', ROOT.globals, flagTerm),
      ...examples(ROOT.examples),
      ...common(),
      ...seeAlso(top.map((c) => `svc-${nameOf(c)}`)),
    ];
    pages.push({ name: 'svc', text: `${text.join('\n')}\n` });
    for (const node of top)
      walk(
        node,
        [],
        'svc',
        top.map((c) => `svc-${nameOf(c)}`),
      );
    return pages;
  };
}

/** A topic's page, svc-<topic>(7), from the blocks `svc help <topic>` prints. */
function topicPage(topic, version, plainText) {
  const name = `svc-${topic.name}`;
  const text = [
    `.\\" generated by scripts/gen-man.mjs from docs/topics/${topic.name}.md; do not edit`,
    `.TH "${name.toUpperCase()}" "7" "${versionDate(version)}" "svc ${version}" "svc manual"`,
    '.nh',
    '.SH NAME',
    `${esc(name)} \\- ${esc(topic.summary)}`,
    '.SH DESCRIPTION',
    esc(`svc help ${topic.name} prints this page.`),
  ];
  for (const block of topic.blocks) {
    if (block.kind === 'heading') text.push(`.SH ${esc(plainText(block.text).toUpperCase())}`);
    else if (block.kind === 'paragraph') text.push('.PP', esc(plainText(block.text)));
    else if (block.kind === 'item') text.push('.IP \\(bu 2', esc(plainText(block.text)));
    else if (block.kind === 'code') text.push('.PP', '.nf', ...block.lines.map(esc), '.fi');
    else for (const cells of block.rows.slice(1)) text.push('.TP', `\\fB${esc(plainText(cells[0] ?? ''))}\\fR`, esc(plainText(cells.slice(1).join('; '))));
  }
  text.push('.SH SEE ALSO', '\\fBsvc\\fR(1)');
  return { name, text: `${text.join('\n')}\n` };
}

/** src/help-topics/topics.ts (the names and summaries help lists) and sources.ts (what `svc help <topic>` renders). */
async function topicModules(topics, sources) {
  const { format } = await import('prettier');
  const header = '// generated by scripts/gen-man.mjs from docs/topics/*.md; do not edit\n';
  const list = `${header}/** The help topics, \`svc help <name>\`, and what each is about. */\nexport const TOPICS: readonly { name: string; summary: string }[] = ${JSON.stringify(
    topics.map(({ name, summary }) => ({ name, summary })),
  )};\n`;
  const texts = `${header}/** Each topic's Markdown, rendered when asked for (src/help-topics/markdown.ts). */\nexport const TOPIC_SOURCES: Readonly<Record<string, string>> = ${JSON.stringify(sources)};\n`;
  const options = { parser: 'typescript', singleQuote: true, printWidth: 160 };
  return [
    { file: join(root, 'src/help-topics/topics.ts'), text: await format(list, options) },
    { file: join(root, 'src/help-topics/sources.ts'), text: await format(texts, options) },
  ];
}

/** What the manifest's bundle must export for manPages (scripts/generated.mjs's declaredManifest). */
export const MAN_EXPORTS =
  "export { isHidden, nameOf, flagTerm } from './src/kit/define.ts'; export { exampleLines } from './src/cli/example-lines.ts'; export { EXIT } from './src/errors.ts'; export { parseTopic, plainText } from './src/help-topics/markdown.ts';";

/** The topics, parsed from docs/topics/*.md (each file named after its topic), with their sources. */
function readTopics(parseTopic) {
  const sources = topicSources();
  const topics = Object.entries(sources).map(([file, source]) => {
    const topic = parseTopic(source);
    if (topic.name !== file) throw new Error(`docs/topics/${file}.md is titled "${topic.name}": name the file after its topic`);
    return topic;
  });
  return { sources, topics };
}

/** Every page, `{ file, text }`: svc(1), one per visible command, and one per topic (7). */
export function manPages(declared) {
  const { manifest, isHidden, nameOf, flagTerm, exampleLines, EXIT, parseTopic, plainText } = declared;
  const { sources, topics } = readTopics(parseTopic);
  const exits = exitMeanings(sources['exit-codes'] ?? '');
  const undocumented = Object.values(EXIT).filter((code) => !exits.some(([listed]) => Number(listed) === code));
  if (undocumented.length) throw new Error(`docs/topics/exit-codes.md's table lacks ${undocumented.join(', ')} (src/errors.ts's EXIT)`);
  const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
  return [
    ...commandPages(manifest, { isHidden, nameOf, flagTerm, exampleLines })(exits, version, topics).map((page) => ({
      file: `${page.name}.1`,
      text: page.text,
    })),
    ...topics.map((topic) => topicPage(topic, version, plainText)).map((page) => ({ file: `${page.name}.7`, text: page.text })),
  ];
}

/** package.json's "man": every page the build writes, as npm links them from dist/man/. */
const manList = (pages) => pages.map(({ file }) => `./dist/man/${file}`).sort();

/** Writes (or, with `check`, checks) src/help-topics' modules and package.json's "man" list. */
async function writeGenerated(check) {
  const declared = await declaredManifest(MAN_EXPORTS);
  const { sources, topics } = readTopics(declared.parseTopic);
  let stale = writeFiles(await topicModules(topics, sources), { check, fix: 'npm run generate' });
  const pkgFile = join(root, 'package.json');
  const pkg = JSON.parse(readFileSync(pkgFile, 'utf8'));
  const listed = manList(manPages(declared));
  if (JSON.stringify(pkg.man) !== JSON.stringify(listed)) {
    if (check) {
      process.stderr.write(`${pkgFile}'s "man" does not list the pages the build writes: run npm run generate\n`);
      stale++;
    } else {
      const entries = Object.entries(pkg).filter(([key]) => key !== 'man');
      const at = entries.findIndex(([key]) => key === 'bin') + 1;
      entries.splice(at, 0, ['man', listed]);
      writeFileSync(pkgFile, `${JSON.stringify(Object.fromEntries(entries), null, 2)}\n`);
      process.stderr.write(`wrote ${pkgFile} ("man")\n`);
    }
  }
  return stale;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = (await writeGenerated(process.argv.includes('--check'))) ? 1 : 0;
