// Honest resume (issue 13, docs/contract.md "Events"): a Last-Event-ID that is no longer retained,
// or unknown, opens the stream with one `event: gap` frame (no id) naming it and the oldest
// retained id, then the retained events, then live ones. Also the chat stream, resumed by id.
import { describe, expect, it } from 'vitest';
import { call, openStream, useEmulator } from './helpers.js';

describe('gap on resume', () => {
  const emulator = useEmulator();

  it('an unknown (well-formed) event id: gap, then every retained event, then live ones', async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const key = emu.seed.keys.test;
    const published = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'call.started', count: 3 } })).body;
    const stream = await openStream(`${emu.url}/v1/events/stream`, key, { 'last-event-id': 'evt_zzzzzzzzzz' });
    await stream.waitFor(() => stream.messages.length >= 4);
    const [gap, ...events] = stream.messages;
    expect(gap).toMatchObject({ event: 'gap', id: undefined });
    expect(JSON.parse(gap!.data)).toEqual({ last_event_id: 'evt_zzzzzzzzzz', resumed_from: published.first_id });
    expect(events.map((m) => m.id)).toEqual([published.first_id, expect.any(String), published.last_id]);
    const live = (await call(emu, 'POST', '/v1/calls', { key, json: { languages: ['en', 'es'] } })).body;
    await stream.waitFor(() => stream.messages.length >= 5);
    expect(JSON.parse(stream.messages[4]!.data).data.id).toBe(live.id);
    expect(stream.messages.filter((m) => m.event === 'gap')).toHaveLength(1);
    stream.close();
  });

  it("another mode's event id is unknown to this log; an empty log answers resumed_from null", async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const live = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'live', type: 'call.started', count: 1 } })).body;
    const stream = await openStream(`${emu.url}/v1/events/stream`, emu.seed.keys.test, { 'last-event-id': live.last_id });
    await stream.waitFor(() => stream.messages.length >= 1);
    expect(stream.messages[0]!.event).toBe('gap');
    expect(JSON.parse(stream.messages[0]!.data)).toEqual({ last_event_id: live.last_id, resumed_from: null });
    stream.close();
  });

  it('a retained id resumes with no gap frame', async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const published = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'call.started', count: 3 } })).body;
    const stream = await openStream(`${emu.url}/v1/events/stream`, emu.seed.keys.test, { 'last-event-id': published.first_id });
    await stream.waitFor(() => stream.messages.length >= 2);
    expect(stream.messages.map((m) => m.event)).toEqual(['call.started', 'call.started']);
    expect(stream.messages[1]!.id).toBe(published.last_id);
    stream.close();
  });

  it('the chat stream resumes after a message id, and says gap for an id the chat does not have', async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const key = emu.seed.keys.test;
    const chat = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
    const sent = [];
    for (const text of ['one', 'two', 'three']) sent.push((await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key, json: { text } })).body);
    const resumed = await openStream(`${emu.url}/v1/chats/${chat.id}/stream`, key, { 'last-event-id': sent[0].id });
    await resumed.waitFor(() => resumed.messages.length >= 2);
    expect(resumed.messages.map((m) => [m.event, m.id])).toEqual([
      ['message', sent[1].id],
      ['message', sent[2].id],
    ]);
    resumed.close();

    const unknown = await openStream(`${emu.url}/v1/chats/${chat.id}/stream`, key, { 'last-event-id': 'msg_gone' });
    await unknown.waitFor(() => unknown.messages.length >= 4);
    expect(unknown.messages[0]).toMatchObject({ event: 'gap', id: undefined });
    expect(JSON.parse(unknown.messages[0]!.data)).toEqual({ last_event_id: 'msg_gone', resumed_from: sent[0].id });
    expect(unknown.messages.slice(1).map((m) => m.id)).toEqual(sent.map((m) => m.id));
    const later = (await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key, json: { text: 'four' } })).body;
    await unknown.waitFor(() => unknown.messages.length >= 5);
    expect(unknown.messages[4]!.id).toBe(later.id);
    unknown.close();
  });
});
