// Tables fit the terminal (issue 24): at 80 columns every list a person reads is cut to the
// width, never wrapped mid-word; ids stay whole; long cells end in …; piped output keeps
// every cell whole for scripts. Against the emulator, in-process at 80 columns.
import { beforeAll, describe, expect, it } from 'vitest';
import { stripVTControlCharacters as plain } from 'node:util';
import { createServer, type AddressInfo } from 'node:net';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { fitColumns } from '../../src/io/fit.js';
import { relativeTime, renderTable } from '../../src/io/output.js';
import { cutMiddle, displayWidth, wrapProse } from '../../src/io/width.js';

const LONG = 'Quarterly intake with the interpreting team about the new onboarding flow and its questions';

const emu = useTestEmulator();
let configDir: string;
const secrets = new MemorySecretStore();
let callId = '';
let chatId = '';

beforeAll(async () => {
  configDir = tempConfigDir();
  // A stored key (keys list, profiles list), then objects with long texts made through svc.
  const svc = (argv: string[], stdin?: string) => runCli(argv, { configDir, secrets, env: { SVC_BASE_URL: emu().url }, ...(stdin ? { stdin } : {}) });
  expect((await svc(['keys', 'add', '--base-url', emu().url], emu().seed.keys.test)).exitCode).toBe(0);
  const org = await emu().plane.createOrg(`Northwind Interpreting and Translation Services of the Pacific Northwest`);
  const key = await emu().plane.createKey(org.id, 'test');
  expect((await svc(['keys', 'add', '--base-url', emu().url, '--profile', 'northwind-interpreting'], key.key)).exitCode).toBe(0);
  callId = JSON.parse((await svc(['calls', 'start', '--languages', 'en,es', '--title', LONG, '--json'])).stdout).id;
  chatId = JSON.parse((await svc(['chats', 'start', '--language', 'fr', '--subject', LONG, '--json'])).stdout).id;
  expect((await svc(['chats', 'send', chatId, LONG])).exitCode).toBe(0);
});

const run = (argv: string[], tty: boolean, columns = 80) => runCli(argv, { configDir, secrets, env: { SVC_BASE_URL: emu().url }, tty, columns });

describe('tables at an 80-column terminal', () => {
  it.each([[['calls', 'list']], [['events', 'list']], [['keys', 'list']], [['profiles', 'list']], [['chats', 'list']], [['chats', 'messages', 'CHAT']]])(
    '%j fits in 80 columns, ids whole, long cells cut with …; piped keeps every cell',
    async (template) => {
      const argv = template.map((a) => (a === 'CHAT' ? chatId : a));
      const tty = await run(argv, true);
      expect(tty.exitCode, tty.stderr).toBe(0);
      const lines = plain(tty.stdout).trimEnd().split('\n');
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80);
      expect(tty.stdout).toContain('…');
      expect(tty.stdout).not.toContain(LONG);

      const piped = await run(argv, false);
      expect(piped.exitCode).toBe(0);
      const whole = {
        keys: 'calls:read calls:write sessions:read sessions:write translate events:read account:read',
        profiles: 'Pacific Northwest (org_',
        events: `"${LONG.slice(0, 47)}…"`, // the summary's own cut, as in a wide terminal
      };
      expect(piped.stdout).toContain(whole[argv[0] as keyof typeof whole] ?? LONG);
    },
  );

  it('keeps ids whole and the time readable ("just now") when it narrows', async () => {
    const calls = plain((await run(['calls', 'list'], true)).stdout);
    expect(calls).toMatch(new RegExp(`^${callId}  active\\s+en,es\\s+Quarterly.*…\\s+just now\\s*$`, 'm'));
    const messages = plain((await run(['chats', 'messages', chatId], true)).stdout);
    expect(messages.split('\n')[0]).toMatch(/^ID\s+KIND\s+LANGUAGE\s+TEXT\s+TRANSLATION\s+CREATED\s*$/);
    expect(messages.split('\n')[1]).toMatch(/^msg_\w{20}  text  fr\s+Quarterly.*…\s+-\s+just now\s*$/); // test mode: no translation
  });

  it('a wide terminal shows everything in full, as before', async () => {
    const calls = plain((await run(['calls', 'list'], true, 250)).stdout);
    expect(calls).toContain(LONG);
    expect(calls).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d \(just now\)/);
  });
});

/** Every line of a terminal's text within `columns` display columns, and none ending in a space. */
function expectFits(text: string, columns = 80): string[] {
  const lines = plain(text).replace(/\n$/, '').split('\n');
  for (const line of lines) {
    expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    expect(line, 'a trailing space').not.toMatch(/ $/);
  }
  return lines;
}

/** The words of a text, however it was wrapped. */
const words = (text: string) => plain(text).split(/\s+/).filter(Boolean).join(' ');

describe('what a person sees at an 80-column terminal (issue 32)', () => {
  it('an error and its hint wrap at words with a hanging indent; piped, each stays one line', async () => {
    const ended = JSON.parse((await run(['calls', 'start', '--languages', 'en,es', '--title', 'short', '--json'], false)).stdout).id;
    expect((await run(['calls', 'end', ended], false)).exitCode).toBe(0);
    const argv = ['calls', 'links', 'create', '--call', ended, '--language', 'es'];
    const tty = await run(argv, true, 60);
    expect(tty.exitCode).toBe(6);
    const lines = expectFits(tty.stderr, 60);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines[0]).toMatch(/^error: /);
    // The message's continuation starts under its text, the hint's two columns in from its own indent.
    const hint = lines.findIndex((line, i) => i > 0 && /^ {2}\S/.test(line));
    expect(lines.slice(1, hint).every((line) => line.startsWith(' '.repeat('error: '.length)))).toBe(true);
    expect(lines.slice(hint + 1).every((line) => line.startsWith('    '))).toBe(true);

    const piped = await run(argv, false);
    expect(piped.stderr.split('\n').filter(Boolean)).toHaveLength(2);
    expect(words(tty.stderr)).toBe(words(piped.stderr));
    // --json's error object stays one JSON document at a terminal too.
    const json = await run([...argv, '--json'], true, 60);
    expect(JSON.parse(json.stderr).error.code).toBe('conflict');
  });

  it("account's scopes and auth status's lines wrap within the width, every scope still there", async () => {
    const scopes = 'calls:read calls:write sessions:read sessions:write translate events:read account:read';
    const account = await run(['account'], true);
    expect(account.exitCode, account.stderr).toBe(0);
    const lines = expectFits(account.stdout);
    const at = lines.findIndex((line) => line.startsWith('scopes'));
    // The continuation sits under the value column.
    expect(lines[at + 1]).toMatch(/^ {14}\S/);
    expect(words(lines.slice(at, at + 2).join(' '))).toBe(`scopes ${scopes}`);

    const status = await run(['auth', 'status'], true);
    expect(status.exitCode, status.stderr).toBe(0);
    expectFits(status.stdout);
    expect(words(status.stdout)).toContain(`scopes ${scopes}`);
    // Piped, every line whole.
    expect((await run(['auth', 'status'], false)).stdout).toContain(`scopes ${scopes};`);
  });

  it('profiles list marks the default beside its name, keeps each address whole, and pipes the DEFAULT column', async () => {
    const tty = await run(['profiles', 'list'], true);
    const lines = expectFits(tty.stdout);
    expect(lines[0]).not.toContain('DEFAULT');
    expect(lines.some((line) => /^default \* /.test(line))).toBe(true);
    // The address with its port, or no ADDRESS column at all: never a cut one.
    if (lines[0]!.includes('ADDRESS')) expect(tty.stdout).toContain(emu().url);
    expect(tty.stdout).not.toMatch(/http:\/\/[\d.]*…/);
    const wide = await run(['profiles', 'list'], true, 200);
    expect(plain(wide.stdout)).toContain(emu().url);
    expect((await run(['profiles', 'list'], false)).stdout).toMatch(/^default\t\*\t/m);
  });

  it('calls links list at 80 columns keeps the URL whole: the ID and call columns give way first', async () => {
    const link = JSON.parse((await run(['calls', 'links', 'create', '--call', callId, '--language', 'es', '--json'], false)).stdout);
    const tty = await run(['calls', 'links', 'list'], true);
    expect(tty.exitCode, tty.stderr).toBe(0);
    const lines = expectFits(tty.stdout);
    expect(lines[0]).toMatch(/^URL +LANGUAGE +EXPIRES/);
    expect(lines.find((line) => line.startsWith(link.url))).toBeDefined();
    expect(tty.stdout).not.toContain('…');
    // Wide enough, every column is there; piped, every cell whole.
    const wide = plain((await run(['calls', 'links', 'list'], true, 200)).stdout);
    expect(wide.split('\n')[0]).toMatch(/^ID +URL +CALL +LANGUAGE +EXPIRES/);
    expect(wide).toContain(callId);
    expect((await run(['calls', 'links', 'list'], false)).stdout).toContain(`${link.id}\t${link.url}\t${callId}\tes\t`);
  });

  it('a URL too long for the terminal even alone is shortened in the middle, keeping its address and the id', () => {
    const url = `https://join.example.com/${'x'.repeat(80)}/link_abcdef123456`;
    const { columns } = fitColumns(
      [
        { header: 2, full: 25, fit: { drop: 1 } },
        { header: 3, full: url.length, fit: { shrink: 30, cutLast: true } },
        { header: 7, full: 7 },
      ],
      80,
      2,
    );
    expect(columns.map((c) => c.index)).toEqual([1, 2]);
    expect(columns[0]!.width).toBe(80 - 7 - 2);
    const cut = cutMiddle(url, columns[0]!.width);
    expect(cut.startsWith('https://join.example.com/')).toBe(true);
    expect(cut.endsWith('link_abcdef123456')).toBe(true);
  });

  it('bidirectional controls from the server are shown escaped, as control characters are (Trojan Source)', async () => {
    const chat = JSON.parse((await run(['chats', 'start', '--language', 'fr', '--json'], false)).stdout).id;
    const text = 'pay \u202eevil\u202c and \u2066isolated\u2069 \u202a\u202b\u202d\u2067\u2068';
    expect((await run(['chats', 'send', chat, text], false)).exitCode).toBe(0);
    for (const tty of [true, false]) {
      const shown = (await run(['chats', 'messages', chat], tty, 200)).stdout;
      expect(shown).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
      expect(shown).toContain('pay <U+202E>evil<U+202C> and <U+2066>isolated<U+2069>');
    }
    const json = (await run(['chats', 'messages', chat, '--json'], false)).stdout;
    expect(json).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(JSON.parse(json).data?.[0]?.text ?? JSON.parse(json)[0].text).toBe(text);
  });

  it('NO_COLOR turns colour off with a value, and leaves it on when set but empty (no-color.org)', async () => {
    const list = (env: Record<string, string>) =>
      runCli(['calls', 'list'], { configDir, secrets, env: { SVC_BASE_URL: emu().url, ...env }, tty: true, columns: 80 });
    expect((await list({})).stdout).toContain('\u001b[1mID');
    expect((await list({ NO_COLOR: '' })).stdout).toContain('\u001b[1mID');
    expect((await list({ NO_COLOR: '1' })).stdout).not.toContain('\u001b[');
  });

  it("a test-mode translation (already '[fr] …') is shown once tagged, not '[fr] [fr] …'", async () => {
    const chat = JSON.parse((await run(['chats', 'start', '--language', 'fr', '--json'], false)).stdout).id;
    const sent = await run(['api', 'POST', `/v1/chats/${chat}/messages`, '-f', 'text=hello there', '-f', 'language=en'], false);
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout).translation).toEqual({ language: 'fr', text: '[fr] hello there' });
    for (const tty of [true, false]) {
      const shown = (await run(['chats', 'messages', chat], tty, 200)).stdout;
      expect(shown).toContain('[fr] hello there');
      expect(shown).not.toContain('[fr] [fr]');
    }
  });

  it('events tail lines and events get rows fit; piped, whole', async () => {
    const events = JSON.parse((await run(['events', 'list', '--json', '--limit', '100'], false)).stdout) as Array<{
      id: string;
      type: string;
      data?: { text?: string };
    }>;
    const message = events.findIndex((e) => e.type === 'chat.message.created' && e.data?.text === LONG);
    const since = events[message + 1]!.id; // the event before it: tail replays from there
    const tail = await run(['events', 'tail', '--since', since, '--max-events', '1'], true);
    expect(tail.exitCode, tail.stderr).toBe(0);
    const [line] = expectFits(tail.stdout);
    expect(line).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d  chat\\.message\\.created +${events[message]!.id}  msg_.*…$`));
    expectFits(tail.stderr);
    const piped = await run(['events', 'tail', '--since', since, '--max-events', '1'], false);
    expect(piped.stdout).toMatch(new RegExp(`"${LONG.slice(0, 40)}[^"]*…"\\n$`)); // the summary's own cut (format.ts), not the terminal's

    const get = await run(['events', 'get', events[message]!.id], true);
    expect(get.exitCode, get.stderr).toBe(0);
    expectFits(get.stdout);
    expect((await run(['events', 'get', events[message]!.id], false)).stdout).toContain(LONG);
  });

  it('chats stream wraps a long message under its text at a terminal', async () => {
    const chat = JSON.parse((await run(['chats', 'start', '--language', 'fr', '--json'], false)).stdout).id;
    const baseline = (await emu().plane.stats()).open_streams;
    const streaming = run(['chats', 'stream', chat], true);
    await emu().plane.streamsOpen(baseline + 1);
    expect((await run(['chats', 'send', chat, LONG], false)).exitCode).toBe(0);
    expect((await run(['chats', 'close', chat], false)).exitCode).toBe(0);
    const { exitCode, stdout } = await streaming;
    expect(exitCode).toBe(0);
    const lines = expectFits(stdout);
    expect(lines.length).toBe(2);
    expect(lines[1]).toMatch(/^ {10}\S/);
    expect(words(stdout)).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${LONG}$`));
  });

  it('a lifetime has one unit: a day is "1 d" whether it is 24 h or a second short of it', () => {
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(relativeTime(now + 86_400_000, now)).toBe('in 1 d');
    expect(relativeTime(now + 86_399_000, now)).toBe('in 1 d');
    expect(relativeTime(now + 3_599_000, now)).toBe('in 1 h');
    expect(relativeTime(now - 59_000, now)).toBe('59 s ago');
  });

  it('emulator --open with no browser here says where to go', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const stop = new AbortController();
    const running = runCli(['emulator', '--port', String(port), '--open'], {
      env: {}, // no DISPLAY, no WAYLAND_DISPLAY, no BROWSER
      tty: true,
      columns: 80,
      signal: stop.signal,
      browser: {
        open: async () => {
          throw new Error('no browser was to be opened');
        },
      },
    });
    // Serving means the start-up lines (and the --open outcome, written with them) are out.
    await expect
      .poll(
        () =>
          fetch(`http://127.0.0.1:${port}/`).then(
            (r) => r.ok,
            () => false,
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
    stop.abort();
    const { stderr } = await running;
    expectFits(stderr);
    expect(words(stderr)).toContain(`no browser here (neither DISPLAY nor WAYLAND_DISPLAY is set): open http://127.0.0.1:${port}/ in a browser`);
  });

  it('the "showing the newest N" note comes after the table', async () => {
    const tty = await run(['calls', 'list', '--limit', '1'], true);
    expect(tty.exitCode).toBe(0);
    const screen = plain(tty.screen).trimEnd().split('\n');
    expect(screen[0]).toMatch(/^ID\s/);
    // The table's two lines, then the note (wrapped to the width).
    expect(screen[1]).toMatch(/^call_/);
    expect(screen[2]).toMatch(/^note: showing the newest 1;/);
    expect(screen.slice(3).every((line) => line.startsWith(' '))).toBe(true);
    expectFits(tty.screen);
  });
});

describe('fitColumns', () => {
  const col = (full: number, extra: object = {}) => ({ header: 2, full, ...extra });
  it('leaves a table that fits alone', () => {
    expect(fitColumns([col(10), col(20)], 40, 2).columns).toEqual([
      { index: 0, width: 10, narrow: false },
      { index: 1, width: 20, narrow: false },
    ]);
  });
  it('uses the narrow texts first, then cuts shrinkable columns, sharing the room', () => {
    expect(fitColumns([col(10), col(30, { narrow: 9 })], 30, 2).columns.map((c) => [c.width, c.narrow])).toEqual([
      [10, false],
      [9, true],
    ]);
    const cut = fitColumns([col(10), col(50, { fit: { shrink: 5 } }), col(8, { fit: { shrink: 5 } })], 40, 2).columns;
    expect(cut.map((c) => c.width)).toEqual([10, 18, 8]);
  });
  it('leaves out droppable columns, lowest first, only while the cut ones do not fit', () => {
    const shown = fitColumns([col(30), col(20, { fit: { drop: 2 } }), col(20, { fit: { drop: 1 } }), col(40, { fit: { shrink: 10 } })], 64, 2).columns;
    expect(shown.map((c) => c.index)).toEqual([0, 1, 3]);
    expect(shown.reduce((sum, c) => sum + c.width, 0) + 2 * (shown.length - 1)).toBeLessThanOrEqual(64);
  });
  it('counts wide characters as two columns', async () => {
    const rows = [{ t: '会議の議題について確認したいことがあります会議の議題について' }];
    const text = await renderTable(
      rows,
      [
        { header: 'ID', value: () => 'msg_1' },
        { header: 'TEXT', value: (r) => r.t, shrink: 4 },
      ],
      false,
      30,
    );
    const line = text.split('\n')[1]!;
    expect(line.endsWith('…')).toBe(true);
    expect([...line].reduce((w, ch) => w + (ch.charCodeAt(0) > 0x2e80 && ch !== '…' ? 2 : 1), 0)).toBeLessThanOrEqual(30);
  });
  it('aligns columns by display width: combining accents take none, skin-toned and joined emoji two', async () => {
    const rows = [{ t: 'Café 👍🏽' }, { t: 'Cafe\u0301 👨‍👩‍👧' }, { t: 'plain' }];
    const text = await renderTable(
      rows,
      [
        { header: 'TEXT', value: (r) => r.t },
        { header: 'END', value: () => 'x' },
      ],
      false,
    );
    // Each `x` in the same terminal column, and no line ending in spaces.
    const columns = text
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => displayWidth(line.slice(0, line.lastIndexOf('x'))));
    expect(new Set(columns).size).toBe(1);
    expect(columns[0]).toBe(9); // "Café " 5, the emoji 2, the gap 2
    expect(text).not.toMatch(/ \n/);
  });
});

describe('width.ts', () => {
  it('wraps prose at words, continuation under a label, a column, or two in from the indent; a word too long stays whole', () => {
    expect(wrapProse('error: one two three four five six', 20)).toEqual(['error: one two three', '       four five six']);
    expect(wrapProse('ok      the config dir is private', 24)).toEqual(['ok      the config dir', '        is private']);
    expect(wrapProse('  run it again with more words', 16)).toEqual(['  run it again', '    with more', '    words']);
    const url = 'http://127.0.0.1:4010/oauth/authorize?state=abcdefghijklmnop';
    expect(wrapProse(`visit ${url} now`, 30)).toEqual(['visit', `  ${url}`, '  now']);
  });
  it('measures wide, combining, joined and flag characters as a terminal draws them', () => {
    expect(displayWidth('会議')).toBe(4);
    expect(displayWidth('e\u0301')).toBe(1);
    expect(displayWidth('👍🏽')).toBe(2);
    expect(displayWidth('👨‍👩‍👧')).toBe(2);
    expect(displayWidth('🇫🇷')).toBe(2);
    expect(displayWidth('❤️')).toBe(2);
    expect(displayWidth('\u001b[1mID\u001b[22m')).toBe(2);
  });
  it("shortens in the middle keeping an address's origin and the end", () => {
    expect(cutMiddle('http://127.0.0.1:41747/join/link_06WAj9vzwzVBCm9j4DC9', 34)).toBe('http://127.0.0.1:41747/…VBCm9j4DC9');
    expect(cutMiddle('👍🏽👍🏽👍🏽👍🏽', 5)).toBe('👍🏽…👍🏽');
  });
});
