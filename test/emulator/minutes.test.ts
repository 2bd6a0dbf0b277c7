// The emulator bills a live call for every minute it runs (docs/contract.md "Billing"): the
// first when it starts, then one at each minute boundary after its created_at, on the emulator's
// clock (moved here by POST /_emulator/clock); a dialled phone the same way; a call whose next
// minute the balance cannot cover is ended at that boundary with ended_reason "balance_exhausted".
import { describe, expect, it } from 'vitest';
import { useTestEmulator } from '../helpers/emulator.js';

const emulator = useTestEmulator({ resetEach: true });

async function api(method: string, path: string, mode: 'live' | 'test' = 'live', body?: unknown): Promise<any> {
  const answer = await fetch(`${emulator().url}${path}`, {
    method,
    headers: { authorization: `Bearer ${emulator().seed.keys[mode]}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return answer.json();
}

const balance = async () => (await api('GET', '/v1/balance')).available as number;
const startCall = (mode: 'live' | 'test' = 'live') => api('POST', '/v1/calls', mode, { languages: ['en', 'es'] });
const advance = (seconds: number) => emulator().plane.advanceClock(seconds);

describe('a live call is billed for every minute it runs', () => {
  it('its first minute when it starts, then one at each minute boundary after created_at, and none once ended', async () => {
    const before = await balance();
    const call = await startCall();
    expect(before - (await balance())).toBe(2);
    // created_at is to the second: 58 s later the second minute has not begun yet.
    await advance(58);
    expect(before - (await balance())).toBe(2);
    await advance(2);
    expect(before - (await balance())).toBe(4);
    // A clock moved past several boundaries draws each of them.
    await advance(180);
    expect(before - (await balance())).toBe(10);
    expect((await api('POST', `/v1/calls/${call.id}/end`)).ended_reason).toBe('requested');
    await advance(600);
    expect(before - (await balance())).toBe(10);
  });

  it('a test-mode call is never billed, however long it runs', async () => {
    const before = await balance();
    await startCall('test');
    await advance(600);
    expect(await balance()).toBe(before);
  });

  it('a dialled phone draws its own minutes, from when it was dialled', async () => {
    const before = await balance();
    const call = await startCall();
    await api('POST', `/v1/calls/${call.id}/dial`, 'live', { to: '+14155550100' });
    expect(before - (await balance())).toBe(5);
    await advance(61);
    expect(before - (await balance())).toBe(10);
  });

  it('a minute the balance cannot cover ends the call at its boundary: call.ended with ended_reason "balance_exhausted", the balance never negative', async () => {
    await emulator().plane.setBalance(emulator().seed.org_id, 3);
    const call = await startCall();
    expect(await balance()).toBe(1);
    await advance(600);
    const ended = await api('GET', `/v1/calls/${call.id}`);
    expect(ended).toMatchObject({
      status: 'ended',
      ended_reason: 'balance_exhausted',
      ended_at: new Date(Date.parse(call.created_at) + 60_000).toISOString().replace('.000Z', 'Z'),
    });
    expect(await balance()).toBe(1);
    const events = await api('GET', '/v1/events?type=call.ended');
    expect(events.data[0].data).toMatchObject({ id: call.id, ended_reason: 'balance_exhausted' });
  });

  it('several calls are billed minute by minute in time order: the balance ends the call whose minute comes first', async () => {
    await emulator().plane.setBalance(emulator().seed.org_id, 6);
    const first = await startCall();
    await advance(30);
    const second = await startCall();
    expect(await balance()).toBe(2);
    await advance(60);
    // The first call's second minute came first and was drawn; the second's found nothing left.
    expect((await api('GET', `/v1/calls/${first.id}`)).status).toBe('active');
    expect(await api('GET', `/v1/calls/${second.id}`)).toMatchObject({ status: 'ended', ended_reason: 'balance_exhausted' });
    expect(await balance()).toBe(0);
  });
});
