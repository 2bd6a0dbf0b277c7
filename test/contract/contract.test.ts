// The contract module is the one source of the API's facts: the emulator's routes are
// wired from its endpoint rows, and the CLI's local checks and the emulator's 422s run
// the same rules, so a value one side accepts the other accepts too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, LIMITS } from '../../src/contract/index.js';
import { isDashboardPath } from '../../src/emulator/dashboard/index.js';
import { createApp } from '../../src/emulator/server.js';
import { createState } from '../../src/emulator/state.js';
import { advancingClock } from '../../src/emulator/clock.js';
import { parseE164, parseLanguageTag, parseText } from '../../src/validate/index.js';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';

/** The emulator's own pages and control plane: not API endpoints, so not contract rows. */
const EMULATOR_ONLY = [/^\/_emulator(\/|$)/, /^\/oauth\/(?!authorize$)/, /^\/oauth\/authorize$/];

// The dashboard's pages and actions (src/emulator/dashboard/) are the emulator's own too.
describe('the endpoint table and the emulator routes', () => {
  const app = createApp(createState(advancingClock(), 15_000));
  const routes = app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
  const rows = Object.values(ENDPOINTS).map((e) => `${e.method} ${e.path}`);

  it('every contract row has a route in the emulator', () => {
    expect(rows.filter((row) => !routes.includes(row))).toEqual([]);
  });

  it('every emulator route outside its own pages and control plane has a contract row', () => {
    const extra = routes.filter((route) => {
      const path = route.split(' ')[1]!;
      return !rows.includes(route) && !EMULATOR_ONLY.some((re) => re.test(path)) && !isDashboardPath(path);
    });
    expect(extra).toEqual([]);
  });

  it('reads the routes it compares (a Hono upgrade that hid them would make both checks vacuous)', () => {
    expect(routes).toEqual(expect.arrayContaining(['POST /v1/calls/{id}/dial', 'GET /v1/events/stream', 'POST /oauth2/token']));
    expect(routes.length).toBeGreaterThanOrEqual(rows.length);
  });
});

describe('the CLI and the emulator accept the same values', () => {
  let emu: TestEmulator;
  let call: string;
  beforeAll(async () => {
    emu = await testEmulator();
    call = await post('/v1/calls', { languages: ['en', 'es'] }).then((r) => r.body.id as string);
  });
  afterAll(() => emu?.close());

  async function post(path: string, json: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(emu.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${emu.seed.keys.live}`, 'content-type': 'application/json' },
      body: JSON.stringify(json),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const cliAccepts = (parse: () => unknown) => {
    try {
      parse();
      return true;
    } catch {
      return false;
    }
  };

  it.each(['+14155550100', '+6834002', '+683400', '+123456789012345', '+1234567890123456', '+0123456789', '+1415abc0100'])('phone number %s', async (to) => {
    const emulator = (await post(`/v1/calls/${call}/dial`, { to })).status;
    expect(emulator === 201, `emulator answered ${emulator}`).toBe(cliAccepts(() => parseE164(to)));
  });

  it.each(['en', 'pt-BR', 'zh-Hant', 'english', 'not a tag!', 'x-private', 'en-'])('language tag %s', async (language) => {
    const emulator = (await post('/v1/chats', { language })).status;
    expect(emulator === 201, `emulator answered ${emulator}`).toBe(cliAccepts(() => parseLanguageTag(language)));
  });

  it.each([1, LIMITS.textCharacters, LIMITS.textCharacters + 1])('a text of %i characters (emoji, counted as people count them)', async (length) => {
    const text = '🙂'.repeat(length);
    const emulator = (await post('/v1/translate', { text, to: 'es' })).status;
    expect(emulator === 200, `emulator answered ${emulator}`).toBe(cliAccepts(() => parseText(text, 'the text', LIMITS.textCharacters)));
  });
});
