// `svc calls …`, `svc calls links …`, `svc calls lines …` in-process against the emulator
// on port 0, in test and live mode: happy paths, 404/409/422 from the service, 402,
// local validation that never reaches the network, pagination with --all.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { tsvRows, useEmulator } from './harness.js';

const h = useEmulator();

async function startCall(mode: 'test' | 'live' = 'test'): Promise<{ id: string; status: string; languages: string[]; livemode: boolean }> {
  const result = await h.svc(['calls', 'start', '--languages', 'en,es', '--json'], { mode });
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

describe('calls in test mode', () => {
  it('start, get, list, end: the API JSON with --json, free of charge and silent about billing', async () => {
    const start = await h.svc(['calls', 'start', '--languages', 'en,ES', '--title', 'Intake', '--json']);
    expect(start.exitCode, start.stderr).toBe(0);
    const call = JSON.parse(start.stdout);
    expect(call).toMatchObject({ object: 'call', status: 'active', languages: ['en', 'es'], title: 'Intake', livemode: false });
    expect(start.stderr).not.toContain('billed');

    const got = await h.svc(['calls', 'get', call.id, '--json']);
    expect(JSON.parse(got.stdout)).toEqual(call);

    const listed = await h.svc(['calls', 'list', '--status', 'active', '--json']);
    expect(listed.exitCode).toBe(0);
    expect((JSON.parse(listed.stdout) as Array<{ id: string }>).map((c) => c.id)).toContain(call.id);

    const ended = await h.svc(['calls', 'end', call.id, '--json']);
    expect(ended.exitCode, ended.stderr).toBe(0);
    expect(JSON.parse(ended.stdout)).toMatchObject({ id: call.id, status: 'ended' });

    const endedList = await h.svc(['calls', 'list', '--status', 'ended', '--json']);
    expect((JSON.parse(endedList.stdout) as Array<{ id: string }>).map((c) => c.id)).toContain(call.id);
    const activeList = await h.svc(['calls', 'list', '--status', 'active', '--json']);
    expect((JSON.parse(activeList.stdout) as Array<{ id: string }>).map((c) => c.id)).not.toContain(call.id);
  });

  it('piped output is tab-separated with the id first; one object is field<TAB>value lines', async () => {
    const call = await startCall();
    const list = await h.svc(['calls', 'list', '--limit', '5']);
    const rows = tsvRows(list.stdout);
    const row = rows.find((r) => r[0] === call.id);
    expect(row?.slice(0, 3)).toEqual([call.id, 'active', 'en,es']);
    expect(row?.[4]).toMatch(/^\d{4}-\d\d-\d\dT/); // ISO time for scripts
    expect(rows.length).toBeLessThanOrEqual(5);

    const got = await h.svc(['calls', 'get', call.id]);
    expect(tsvRows(got.stdout)).toContainEqual(['id', call.id]);
    expect(tsvRows(got.stdout)).toContainEqual(['status', 'active']);
  });

  it('a table on a terminal, with local and relative times', async () => {
    const call = await startCall();
    const list = await h.svc(['calls', 'list'], { tty: true });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(stripVTControlCharacters(list.stdout)).toMatch(/ID\s+STATUS\s+LANGUAGES\s+TITLE\s+CREATED/); // (the header is bold)
    expect(list.stdout).toContain(call.id);
    expect(list.stdout).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d \((just now|\d+ s ago)\)/);
  });

  it('ending an ended call is a conflict (exit 6); an unknown call is not found (exit 5)', async () => {
    const call = await startCall();
    expect((await h.svc(['calls', 'end', call.id])).exitCode).toBe(0);
    const again = await h.svc(['calls', 'end', call.id]);
    expect(again.exitCode).toBe(6);
    expect(again.stderr).toContain('already ended');

    const missing = await h.svc(['calls', 'get', 'call_doesnotexist']);
    expect(missing.exitCode).toBe(5);
    expect(missing.stderr).toContain('not found');
  });

  it('a test-mode call is invisible to a live key (404), and the other way round', async () => {
    const call = await startCall('test');
    expect((await h.svc(['calls', 'get', call.id], { mode: 'live' })).exitCode).toBe(5);
    const liveCall = await startCall('live');
    expect((await h.svc(['calls', 'get', liveCall.id], { mode: 'test' })).exitCode).toBe(5);
  });

  it('dialling in test mode fails before any request, saying phones cannot be dialled', async () => {
    const call = await startCall();
    const requests = await h.requestsDuring(async () => {
      const dial = await h.svc(['calls', 'dial', call.id, '--to', '+14155550100']);
      expect(dial.exitCode).toBe(1);
      expect(dial.stderr).toContain('phones cannot be dialled in test mode');
      expect(dial.stderr).toContain('SVC_API_KEY holds a test key');
    });
    expect(requests).toBe(0);
  });

  it('with a configured profile: test mode by flag, live by flag, and the dial hint names --live', async () => {
    const secrets = new MemorySecretStore();
    const configDir = mkdtempSync(join(tmpdir(), 'svc-profile-'));
    try {
      const asProfile = (argv: string[], stdin?: string) =>
        // No SVC_API_KEY: the credential comes from the profile the keys were added to.
        h.svc(argv, {
          extra: { secrets, configDir, env: { SVC_BASE_URL: h.emulator.url, SVC_CONFIG_DIR: configDir } },
          ...(stdin === undefined ? {} : { stdin }),
        });
      expect((await asProfile(['keys', 'add', '--name', 'test', '--stdin'], `${h.emulator.seed.keys.test}\n`)).exitCode).toBe(0);
      expect((await asProfile(['keys', 'add', '--name', 'live', '--stdin'], `${h.emulator.seed.keys.live}\n`)).exitCode).toBe(0);

      const testCall = await asProfile(['calls', 'start', '--languages', 'en,es', '--test', '--json']);
      expect(testCall.exitCode, testCall.stderr).toBe(0);
      const call = JSON.parse(testCall.stdout);
      expect(call.livemode).toBe(false);
      const dial = await asProfile(['calls', 'dial', call.id, '--to', '+14155550100', '--test']);
      expect(dial.exitCode).toBe(1);
      expect(dial.stderr).toContain('dial in live mode (--live)');

      const liveCall = await asProfile(['calls', 'start', '--languages', 'en,es', '--live', '--json']);
      expect(liveCall.exitCode, liveCall.stderr).toBe(0);
      expect(JSON.parse(liveCall.stdout).livemode).toBe(true);
      expect(liveCall.stderr).toContain('billed to Acme');
    } finally {
      rmSync(configDir, { recursive: true, force: true });
    }
  });

  it('bad input exits 2 with an example, without touching the network', async () => {
    const cases: Array<[string[], string]> = [
      [['calls', 'dial', 'call_1', '--to', '+12'], 'E.164 numbers have 7 to 15'],
      [['calls', 'start', '--languages', 'en'], 'exactly two'],
      [['calls', 'start', '--languages', 'en,english'], 'BCP 47'],
      [['calls', 'get', 'chat_123'], 'that is a chat id'],
      [['calls', 'end', 'nope'], 'call_Q3vX8kTz1mLp9RbW2cYd'],
      [['calls', 'dial', 'call_1', '--to', '4155550100'], 'must start with +'],
      [['calls', 'dial', 'call_1', '--to', '+14155550100', '--language', 'xx_YY'], 'did you mean xx-YY'],
      [['calls', 'list', '--limit', '0'], '1 to 100'],
      [['calls', 'links', 'create', '--expires-in', 'soon'], '90s, 15m, 1h'],
      [['calls', 'lines', 'add', '--country', 'USA'], 'two-letter'],
      [['calls', 'lines', 'release', 'call_1'], 'line_Q3vX8kTz1mLp9RbW2cYd'],
    ];
    const requests = await h.requestsDuring(async () => {
      for (const [argv, message] of cases) {
        const result = await h.svc(argv);
        expect(result.exitCode, argv.join(' ')).toBe(2);
        expect(result.stderr, argv.join(' ')).toContain(message);
        expect(result.stdout).toBe('');
      }
    });
    expect(requests).toBe(0);
  });

  it('the service refusing a body that passes local checks is exit 2 with its field and problem (422)', async () => {
    const long = await h.svc(['calls', 'start', '--languages', 'en,es', '--title', 'x'.repeat(300)]);
    expect(long.exitCode).toBe(2);
    expect(long.stderr).toContain('invalid request');
    expect(long.stderr).toContain('title');
  });
});

describe('calls in live mode', () => {
  it('start says it is billed (stderr) and, without a terminal, just runs', async () => {
    const result = await h.svc(['calls', 'start', '--languages', 'en,fr', '--json'], { mode: 'live' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/billed .*live mode/);
    expect(JSON.parse(result.stdout)).toMatchObject({ livemode: true, status: 'active' });
  });

  it('list and get see live calls only', async () => {
    const live = await startCall('live');
    const test = await startCall('test');
    const list = await h.svc(['calls', 'list', '--all', '--json'], { mode: 'live' });
    const ids = (JSON.parse(list.stdout) as Array<{ id: string; livemode: boolean }>).map((c) => c.id);
    expect(ids).toContain(live.id);
    expect(ids).not.toContain(test.id);
    expect(JSON.parse((await h.svc(['calls', 'get', live.id, '--json'], { mode: 'live' })).stdout).livemode).toBe(true);
  });

  it('on a terminal it asks; declining does nothing (exit 1), --yes skips the question', async () => {
    const asked: string[] = [];
    const no = await h.svc(['calls', 'start', '--languages', 'en,fr'], {
      mode: 'live',
      tty: true,
      extra: { prompter: { password: async () => '', confirm: async (message) => (asked.push(message), false) } },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toContain('Starting a call');
    expect(no.exitCode).toBe(1);
    expect(no.stderr).toContain('cancelled');
    expect(no.stdout).toBe('');

    const yes = await h.svc(['calls', 'start', '--languages', 'en,fr', '--yes', '--json'], { mode: 'live', tty: true });
    expect(yes.exitCode, yes.stderr).toBe(0); // the default test prompter would fail the run if asked
    expect(yes.stderr).toContain('billed');
  });

  it('dial: a ringing participant; dialling an ended call is a conflict; an unknown line is not found', async () => {
    const call = await startCall('live');
    const dial = await h.svc(['calls', 'dial', call.id, '--to', '+1 415 555 0100', '--language', 'es', '--json'], { mode: 'live' });
    expect(dial.exitCode, dial.stderr).toBe(0);
    expect(dial.stderr).toContain('billed');
    expect(JSON.parse(dial.stdout)).toMatchObject({ object: 'participant', call_id: call.id, phone: '+14155550100', language: 'es', status: 'ringing' });

    const noLine = await h.svc(['calls', 'dial', call.id, '--to', '+14155550100', '--line', 'line_nothere'], { mode: 'live' });
    expect(noLine.exitCode).toBe(5);

    expect((await h.svc(['calls', 'end', call.id], { mode: 'live' })).exitCode).toBe(0);
    const ended = await h.svc(['calls', 'dial', call.id, '--to', '+14155550100'], { mode: 'live' });
    expect(ended.exitCode).toBe(6);
  });

  it('an empty balance is exit 8 for start, dial and lines add, each naming the balance and a way that works with SVC_API_KEY', async () => {
    const call = await startCall('live'); // before the balance runs out
    await h.plane.setBalance(h.emulator.seed.org_id, 0);
    try {
      const attempts: string[][] = [
        ['calls', 'start', '--languages', 'en,es'],
        ['calls', 'dial', call.id, '--to', '+14155550100'],
        ['calls', 'lines', 'add', '--country', 'US', '--area-code', '415'],
      ];
      for (const argv of attempts) {
        const result = await h.svc(argv, { mode: 'live' });
        expect(result.exitCode, `${argv.join(' ')}: ${result.stderr}`).toBe(8);
        expect(result.stdout).toBe('');
        expect(result.stderr).toContain('balance has run out');
        // With a live SVC_API_KEY, `--test` is a usage error (exit 2): the advice names the variable,
        // except for dialling, which test mode refuses: no advice to try it there.
        if (argv[1] === 'dial') expect(result.stderr).not.toMatch(/test key|--test/);
        else {
          expect(result.stderr).toContain('set SVC_API_KEY to a test key (svc_test_');
          expect(result.stderr).toContain('Set SVC_API_KEY to a test key'); // the billing notice before it
        }
      }
      // Following that advice works: test mode is never billed, even now.
      expect((await h.svc(['calls', 'start', '--languages', 'en,es'])).exitCode).toBe(0);
      expect((await h.svc(['calls', 'start', '--languages', 'en,es', '--test'], { mode: 'live' })).exitCode).toBe(2);
    } finally {
      await h.plane.setBalance(h.emulator.seed.org_id, 10_000);
    }
  });

  it('an empty balance with a stored profile suggests --test, which then works', async () => {
    const secrets = new MemorySecretStore();
    const configDir = mkdtempSync(join(tmpdir(), 'svc-profile-'));
    const asProfile = (argv: string[], stdin?: string) =>
      h.svc(argv, {
        extra: { secrets, configDir, env: { SVC_BASE_URL: h.emulator.url, SVC_CONFIG_DIR: configDir } },
        ...(stdin === undefined ? {} : { stdin }),
      });
    try {
      expect((await asProfile(['keys', 'add', '--name', 'test', '--stdin'], `${h.emulator.seed.keys.test}\n`)).exitCode).toBe(0);
      expect((await asProfile(['keys', 'add', '--name', 'live', '--stdin'], `${h.emulator.seed.keys.live}\n`)).exitCode).toBe(0);
      await h.plane.setBalance(h.emulator.seed.org_id, 0);
      const live = await asProfile(['calls', 'lines', 'add', '--country', 'US', '--live']);
      expect(live.exitCode, live.stderr).toBe(8);
      expect(live.stderr).toContain('try it free in test mode with --test');
      expect(live.stderr).not.toContain('SVC_API_KEY');
      expect((await asProfile(['calls', 'lines', 'add', '--country', 'US', '--test'])).exitCode).toBe(0);
    } finally {
      await h.plane.setBalance(h.emulator.seed.org_id, 10_000);
      rmSync(configDir, { recursive: true, force: true });
    }
  });
});

describe('links', () => {
  it.each(['test', 'live'] as const)('create for a call and list them (%s mode)', async (mode) => {
    const call = await startCall(mode);
    const created = await h.svc(['calls', 'links', 'create', '--call', call.id, '--language', 'fr', '--expires-in', '2h', '--json'], { mode });
    expect(created.exitCode, created.stderr).toBe(0);
    const link = JSON.parse(created.stdout);
    expect(link).toMatchObject({ object: 'link', call_id: call.id, language: 'fr', livemode: mode === 'live' });
    expect(Date.parse(link.expires_at) - Date.parse(link.created_at)).toBe(7200 * 1000);

    const list = await h.svc(['calls', 'links', 'list'], { mode });
    expect(tsvRows(list.stdout).map((r) => r[0])).toContain(link.id);
  });

  it("a link for an unknown call is 404, for an ended call 409, and a lifetime past the service's limits is refused locally in days", async () => {
    expect((await h.svc(['calls', 'links', 'create', '--call', 'call_nothere'])).exitCode).toBe(5);
    const call = await startCall();
    await h.svc(['calls', 'end', call.id]);
    expect((await h.svc(['calls', 'links', 'create', '--call', call.id])).exitCode).toBe(6);
    const tooLong = await h.svc(['calls', 'links', 'create', '--expires-in', '400d']);
    expect(tooLong.exitCode).toBe(2);
    expect(tooLong.stderr).toContain('--expires-in "400d" is longer than 30d: give at least 1m and at most 30d');
  });
});

describe('phone lines', () => {
  it.each(['test', 'live'] as const)('add, list, release, and release again is a conflict (%s mode)', async (mode) => {
    const added = await h.svc(['calls', 'lines', 'add', '--country', 'us', '--area-code', '415', '--json'], { mode });
    expect(added.exitCode, added.stderr).toBe(0);
    expect(added.stderr.includes('billed')).toBe(mode === 'live');
    const line = JSON.parse(added.stdout);
    expect(line).toMatchObject({ object: 'line', country: 'US', status: 'active' });
    expect(line.number).toMatch(/^\+1415\d+$/);

    const list = await h.svc(['calls', 'lines', 'list', '--json'], { mode });
    expect((JSON.parse(list.stdout) as Array<{ id: string }>).map((l) => l.id)).toContain(line.id);

    const released = await h.svc(['calls', 'lines', 'release', line.id, '--json'], { mode });
    expect(released.exitCode, released.stderr).toBe(0);
    expect(JSON.parse(released.stdout)).toMatchObject({ id: line.id, status: 'released' });
    const again = await h.svc(['calls', 'lines', 'release', line.id], { mode });
    expect(again.exitCode).toBe(6);
    // A line has no `get` command: the hint names the one that shows its state.
    expect(again.stderr).toContain('the matching `list` command shows its current state');
    expect(again.stderr).not.toContain('`get`');
    expect((await h.svc(['calls', 'lines', 'release', 'line_nothere'], { mode })).exitCode).toBe(5);
  });
});

describe('pagination', () => {
  it('--all follows cursors past 100 objects; the default is one page', async () => {
    // A fresh mode-scoped set: the live calls made above do not matter, count test calls.
    const made: string[] = [];
    for (let i = 0; i < 105; i += 1) {
      const { status, body } = await h.direct('POST', '/v1/calls', { languages: ['en', 'de'], title: `bulk ${i}` });
      expect(status).toBe(201);
      made.push(body.id);
    }
    const all = await h.svc(['calls', 'list', '--all', '--json']);
    expect(all.exitCode, all.stderr).toBe(0);
    const ids = (JSON.parse(all.stdout) as Array<{ id: string }>).map((c) => c.id);
    expect(ids.length).toBeGreaterThanOrEqual(105);
    expect(new Set(ids).size).toBe(ids.length); // no page twice
    for (const id of made) expect(ids).toContain(id);
    // Newest first, as the service lists them.
    expect(ids.indexOf(made[104]!)).toBeLessThan(ids.indexOf(made[0]!));

    const onePage = await h.svc(['calls', 'list', '--json']);
    expect(JSON.parse(onePage.stdout)).toHaveLength(20);
    // The note is on stderr also when piped or with --json: stdout keeps exactly the page.
    expect(onePage.stderr).toContain('there are more results');
    const onTerminal = await h.svc(['calls', 'list', '--limit', '3'], { tty: true });
    expect(onTerminal.stderr).toContain('showing the newest 3; there are more');
    const piped = await h.svc(['calls', 'list', '--all']);
    expect(tsvRows(piped.stdout)).toHaveLength(ids.length);
    // The note names the next page's cursor; --cursor gives that page, and so on to the last, each call once.
    const paged: string[] = [];
    let next: string | undefined;
    do {
      const page = await h.svc(['calls', 'list', '--limit', '40', '--json', ...(next ? ['--cursor', next] : [])]);
      expect(page.exitCode, page.stderr).toBe(0);
      paged.push(...(JSON.parse(page.stdout) as Array<{ id: string }>).map((c) => c.id));
      next = /, or --cursor (\S+) for the next page\)$/m.exec(page.stderr)?.[1];
    } while (next);
    expect(paged).toEqual(ids);
    expect((await h.svc(['calls', 'list', '--all', '--cursor', 'x'])).exitCode).toBe(2);
  });
});
