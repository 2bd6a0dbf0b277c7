// Tables fit the terminal (issue 24): at 80 columns every list a person reads is cut to the
// width, never wrapped mid-word; ids stay whole; long cells end in …; piped output keeps
// every cell whole for scripts. Against the emulator, in-process at 80 columns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stripVTControlCharacters as plain } from 'node:util';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { fitColumns } from '../../src/io/fit.js';
import { renderTable } from '../../src/io/output.js';

const LONG = 'Quarterly intake with the interpreting team about the new onboarding flow and its questions';

let emu: TestEmulator;
let configDir: string;
const secrets = new MemorySecretStore();
let callId = '';
let chatId = '';

beforeAll(async () => {
  emu = await testEmulator();
  configDir = tempConfigDir();
  // A stored key (keys list, profiles list), then objects with long texts made through svc.
  const svc = (argv: string[], stdin?: string) => runCli(argv, { configDir, secrets, env: { SVC_BASE_URL: emu.url }, ...(stdin ? { stdin } : {}) });
  expect((await svc(['keys', 'add', '--base-url', emu.url], emu.seed.keys.test)).exitCode).toBe(0);
  const org = await emu.plane.createOrg(`Northwind Interpreting and Translation Services of the Pacific Northwest`);
  const key = await emu.plane.createKey(org.id, 'test');
  expect((await svc(['keys', 'add', '--base-url', emu.url, '--profile', 'northwind-interpreting'], key.key)).exitCode).toBe(0);
  callId = JSON.parse((await svc(['calls', 'start', '--languages', 'en,es', '--title', LONG, '--json'])).stdout).id;
  chatId = JSON.parse((await svc(['chats', 'start', '--language', 'fr', '--subject', LONG, '--json'])).stdout).id;
  expect((await svc(['chats', 'send', chatId, LONG])).exitCode).toBe(0);
});
afterAll(async () => {
  await emu?.close();
});

const run = (argv: string[], tty: boolean, columns = 80) => runCli(argv, { configDir, secrets, env: { SVC_BASE_URL: emu.url }, tty, columns });

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
});
