// The emulator answers in the shapes the CLI checks (src/contract/answers.ts): every JSON
// endpoint asked once, in live mode (dialling is refused in test mode), each answer held to
// its row. A row the emulator does not fit, or an endpoint left unasked, fails here.
import { describe, expect, it } from 'vitest';
import { ANSWERS, ENDPOINTS, answerProblem, fillPath, type AnsweredEndpoint } from '../../src/contract/index.js';
import { call, useEmulator } from '../emulator/helpers.js';

describe("the emulator's answers fit the contract's shapes", () => {
  const emulator = useEmulator();

  it('every JSON endpoint, asked once', async () => {
    const emu = emulator();
    const key = emu.seed.keys.live;
    const asked = new Set<AnsweredEndpoint>();
    const ask = async (
      endpoint: AnsweredEndpoint,
      opts: { params?: Record<string, string>; json?: unknown; body?: Uint8Array; headers?: Record<string, string> } = {},
    ) => {
      const row = ENDPOINTS[endpoint];
      const answer = await call(emu, row.method, fillPath(row.path, opts.params), { key, ...opts });
      expect(answer.status, `${endpoint}: ${answer.text}`).toBeLessThan(300);
      expect(answerProblem(endpoint, answer.body), endpoint).toBeUndefined();
      asked.add(endpoint);
      return answer.body as { id: string };
    };
    await ask('account.get');
    await ask('balance.get');
    await ask('prices.list');
    const made = await ask('calls.create', { json: { languages: ['en', 'es'] } });
    await ask('calls.get', { params: { id: made.id } });
    await ask('calls.dial', { params: { id: made.id }, json: { to: '+14155550100' } });
    await ask('links.create', { json: { call_id: made.id } });
    await ask('links.list');
    await ask('calls.end', { params: { id: made.id } });
    await ask('calls.list');
    const line = await ask('lines.create', { json: { country: 'US' } });
    await ask('lines.list');
    await ask('lines.release', { params: { id: line.id } });
    const chat = await ask('chats.create', { json: { language: 'en' } });
    await ask('chats.get', { params: { id: chat.id } });
    await ask('chats.messages.create', { params: { id: chat.id }, json: { text: 'hola' } });
    await ask('chats.voice', { params: { id: chat.id }, body: new Uint8Array([1, 2, 3]), headers: { 'content-type': 'audio/wav' } });
    await ask('chats.messages.list', { params: { id: chat.id } });
    await ask('chats.close', { params: { id: chat.id } });
    await ask('chats.list');
    await ask('translate', { json: { text: 'hello', to: 'es' } });
    await ask('events.list');
    expect([...asked].sort()).toEqual(Object.keys(ANSWERS).sort());
  });
});
