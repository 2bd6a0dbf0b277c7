// The position frame (issue 24, docs/contract.md "Events"): a stream opened without Last-Event-ID
// starts with `id: <newest retained id>` (or `id: start`) and a blank line, no data, so a client
// that drops before its first event still resumes with a Last-Event-ID; `Last-Event-ID: start`
// resumes from the first event ever published (with a gap frame once retention dropped some).
// The chat stream does the same with message ids.
import { describe, expect, it } from 'vitest';
import { call, openStream, useEmulator } from './helpers.js';

describe('position frame', () => {
  const emulator = useEmulator();

  it('an empty log: the stream opens with "id: start" and no data, then the live events', async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const stream = await openStream(`${emu.url}/v1/events/stream`, emu.seed.keys.live);
    await stream.waitFor(() => stream.text().length > 0);
    expect(stream.text()).toBe('id: start\n\n');
    expect(stream.messages).toEqual([]);
    const published = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'live', type: 'call.started', count: 2 } })).body;
    await stream.waitFor(() => stream.messages.length >= 2);
    expect(stream.messages.map((m) => m.id)).toEqual([published.first_id, published.last_id]);
    stream.close();
  });

  it('a log with events: the newest retained id, whatever the type filter', async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const published = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'call.started', count: 3 } })).body;
    const stream = await openStream(`${emu.url}/v1/events/stream?type=chat.`, emu.seed.keys.test);
    await stream.waitFor(() => stream.text().length > 0);
    expect(stream.text()).toBe(`id: ${published.last_id}\n\n`);
    stream.close();
  });

  it('what is published after the position is resumed from it, none lost and none repeated', async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const key = emu.seed.keys.test;
    await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'call.started', count: 2 } });
    const first = await openStream(`${emu.url}/v1/events/stream`, key);
    await first.waitFor(() => first.text().length > 0);
    const position = /^id: (\S+)\n\n$/.exec(first.text())![1]!;
    first.close();
    const missed = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'call.ended', count: 5 } })).body;
    const resumed = await openStream(`${emu.url}/v1/events/stream`, key, { 'last-event-id': position });
    await resumed.waitFor(() => resumed.messages.length >= 5);
    expect(resumed.messages.map((m) => m.event)).toEqual(Array(5).fill('call.ended'));
    expect([resumed.messages[0]!.id, resumed.messages[4]!.id]).toEqual([missed.first_id, missed.last_id]);
    // A resumed stream has its position already: no position frame.
    expect(resumed.text().startsWith('id: evt_')).toBe(true);
    expect(resumed.text()).not.toMatch(/^id: [^\n]*\n\n/);
    resumed.close();
  });

  it('Last-Event-ID: start resumes from the first event ever published, with no gap while all are retained', async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const key = emu.seed.keys.test;
    const published = (await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'call.started', count: 3 } })).body;
    const stream = await openStream(`${emu.url}/v1/events/stream`, key, { 'last-event-id': 'start' });
    await stream.waitFor(() => stream.messages.length >= 3);
    expect(stream.messages.map((m) => m.event)).toEqual(['call.started', 'call.started', 'call.started']);
    expect([stream.messages[0]!.id, stream.messages[2]!.id]).toEqual([published.first_id, published.last_id]);
    stream.close();
  });

  it('Last-Event-ID: start once retention dropped the first events: a gap frame naming start and the oldest retained', async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const key = emu.seed.keys.test;
    await call(emu, 'POST', '/_emulator/events', { json: { org_id: emu.seed.org_id, mode: 'test', type: 'call.started', count: 10_050 } });
    const oldest = (await call(emu, 'GET', '/v1/events?limit=100', { key })).body;
    expect(oldest.data).toHaveLength(100);
    const stream = await openStream(`${emu.url}/v1/events/stream`, key, { 'last-event-id': 'start' });
    await stream.waitFor(() => stream.messages.length >= 10_001, 30_000);
    const [gap, ...events] = stream.messages;
    expect(gap).toMatchObject({ event: 'gap', id: undefined });
    expect(JSON.parse(gap!.data)).toEqual({ last_event_id: 'start', resumed_from: events[0]!.id });
    expect(events).toHaveLength(10_000);
    expect(events.at(-1)!.id).toBe(oldest.data[0].id);
    stream.close();
  });

  it('the chat stream: "id: start" before the first message, then the newest message id', async () => {
    const emu = emulator();
    await call(emu, 'POST', '/_emulator/reset');
    const key = emu.seed.keys.test;
    const chat = (await call(emu, 'POST', '/v1/chats', { key, json: { language: 'en' } })).body;
    const empty = await openStream(`${emu.url}/v1/chats/${chat.id}/stream`, key);
    await empty.waitFor(() => empty.text().length > 0);
    expect(empty.text()).toBe('id: start\n\n');
    empty.close();

    const sent = [];
    for (const text of ['one', 'two']) sent.push((await call(emu, 'POST', `/v1/chats/${chat.id}/messages`, { key, json: { text } })).body);
    const later = await openStream(`${emu.url}/v1/chats/${chat.id}/stream`, key);
    await later.waitFor(() => later.text().length > 0);
    expect(later.text()).toBe(`id: ${sent[1].id}\n\n`);
    later.close();

    const fromStart = await openStream(`${emu.url}/v1/chats/${chat.id}/stream`, key, { 'last-event-id': 'start' });
    await fromStart.waitFor(() => fromStart.messages.length >= 2);
    expect(fromStart.messages.map((m) => [m.event, m.id])).toEqual([
      ['message', sent[0].id],
      ['message', sent[1].id],
    ]);
    fromStart.close();
  });
});
