// svc's own Secret Service read (src/credentials/secret-service.ts) against a fake session bus
// of the test's own on a unix socket, speaking D-Bus as dbus-daemon and gnome-keyring would:
// the plain case (one unlocked item, or none) is answered in-process; anything else (a locked
// item, two items, an error reply) is left to the addon; a bus that never answers is ended by
// the caller's bound, and a hostile one never yields a wrong secret.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { tempConfigDir } from '../helpers/cli.js';
import { decodeMessages, encodeMessage, ERROR, FIELD, METHOD_CALL, METHOD_RETURN } from '../../src/credentials/dbus-wire.js';
import type { DbusValue } from '../../src/credentials/dbus-marshal.js';
import { readSecretService } from '../../src/credentials/secret-service.js';

interface Call {
  member?: string;
  path?: string;
  body: DbusValue[];
}
/** What the fake bus answers a call with: [signature, body], { error }, or 'silence'. */
type Answer = [string, DbusValue[]] | { error: string } | 'silence';

const servers: Server[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A session bus at a fresh socket path; `answer` decides each call after Hello. */
async function fakeBus(answer: (call: Call) => Answer): Promise<{ address: string; calls: Call[] }> {
  const path = join(tempConfigDir(), 'bus');
  const calls: Call[] = [];
  const server = createServer((socket: Socket) => {
    let buffered = Buffer.alloc(0);
    let began = false;
    let okSent = false;
    let serial = 1;
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (!began) {
        // SASL first: AUTH is answered OK; the messages start after BEGIN.
        const text = buffered.toString('latin1');
        if (!okSent && text.includes('AUTH EXTERNAL ')) {
          socket.write('OK 0123456789abcdef0123456789abcdef\r\n');
          okSent = true;
        }
        const begin = text.indexOf('BEGIN\r\n');
        if (begin < 0) return;
        buffered = buffered.subarray(begin + 'BEGIN\r\n'.length);
        began = true;
      }
      const { messages, used } = decodeMessages(buffered, [METHOD_CALL]);
      buffered = buffered.subarray(used);
      for (const call of messages) {
        const reply = (type: number, signature: string, body: DbusValue[], extra: [number, [string, DbusValue]][] = []) =>
          socket.write(encodeMessage(type, [[FIELD.replySerial, ['u', call.serial]], ...extra], serial++, signature, body));
        if (call.member === 'Hello') {
          reply(METHOD_RETURN, 's', [':1.42']);
          continue;
        }
        calls.push({ member: call.member, path: call.path, body: call.body });
        const given = answer(call);
        if (given === 'silence') continue;
        if ('error' in given) reply(ERROR, 's', ['refused'], [[FIELD.errorName, ['s', given.error]]]);
        else reply(METHOD_RETURN, given[0], given[1]);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { address: `unix:path=${path}`, calls };
}

const SESSION: Answer = ['vo', [['s', ''], '/org/freedesktop/secrets/session/1']];

/** A Secret Service holding `items` (unlocked paths, locked paths) and each item's secret. */
function secretService(unlocked: string[], locked: string[], secret: (path: string) => Answer) {
  return (call: Call): Answer => {
    if (call.member === 'OpenSession') return SESSION;
    if (call.member === 'SearchItems') return ['aoao', [unlocked, locked]];
    if (call.member === 'GetSecret') return secret(call.path!);
    return { error: 'org.freedesktop.DBus.Error.UnknownMethod' };
  };
}
const plain = (value: string): Answer => ['(oayays)', [['/org/freedesktop/secrets/session/1', Buffer.alloc(0), Buffer.from(value), 'text/plain']]];
const read = (address: string, signal = new AbortController().signal) =>
  readSecretService({ DBUS_SESSION_BUS_ADDRESS: address }, 'svc', 'default:key:test', signal);

describe("svc's own Secret Service read", () => {
  it('finds the item by the attributes the addon writes and reads its secret', async () => {
    const bus = await fakeBus(secretService(['/org/freedesktop/secrets/collection/login/7'], [], () => plain('svc_test_é')));
    expect(await read(bus.address)).toEqual({ value: 'svc_test_é' });
    const search = bus.calls.find((call) => call.member === 'SearchItems')!;
    expect(search.body).toEqual([
      [
        ['service', 'svc'],
        ['username', 'default:key:test'],
      ],
    ]);
    expect(bus.calls.find((call) => call.member === 'OpenSession')!.body[0]).toBe('plain');
    expect(bus.calls.find((call) => call.member === 'GetSecret')!.path).toBe('/org/freedesktop/secrets/collection/login/7');
  });

  it('no item: no secret (null), as the addon says', async () => {
    const bus = await fakeBus(secretService([], [], () => plain('x')));
    expect(await read(bus.address)).toEqual({ value: null });
  });

  it('a locked item (an unlock prompt), two items, or an error reply: left to the addon', async () => {
    const locked = await fakeBus(secretService([], ['/c/1'], () => plain('x')));
    expect(await read(locked.address)).toBe('ask-addon');
    const two = await fakeBus(secretService(['/c/1', '/c/2'], [], () => plain('x')));
    expect(await read(two.address)).toBe('ask-addon');
    const refused = await fakeBus(secretService(['/c/1'], [], () => ({ error: 'org.freedesktop.Secret.Error.IsLocked' })));
    expect(await read(refused.address)).toBe('ask-addon');
    const noService = await fakeBus(() => ({ error: 'org.freedesktop.DBus.Error.ServiceUnknown' }));
    expect(await read(noService.address)).toBe('ask-addon');
  });

  it('no unix socket to reach, or nothing listening there: left to the addon', async () => {
    expect(await read('tcp:host=127.0.0.1,port=1')).toBe('ask-addon');
    expect(await readSecretService({}, 'svc', 'default:key:test', new AbortController().signal)).toBe('ask-addon');
    expect(await read(`unix:path=${join(tempConfigDir(), 'nothing-here')}`)).toBe('ask-addon');
  });

  it('a bus that never answers is ended by the caller’s bound, with the bound’s reason', async () => {
    const bus = await fakeBus(() => 'silence');
    const bound = new AbortController();
    const reading = read(bus.address, bound.signal);
    setTimeout(() => bound.abort(new Error('the OS keychain did not answer within 3 s (read)')), 50);
    await expect(reading).rejects.toThrow('did not answer within 3 s');
  });

  it('hostile: a secret that is not UTF-8 is never returned mangled (the addon is asked)', async () => {
    const bus = await fakeBus(secretService(['/c/1'], [], () => ['(oayays)', [['/s', Buffer.alloc(0), Buffer.from([0xff, 0xfe]), 'text/plain']]]));
    expect(await read(bus.address)).toBe('ask-addon');
  });

  it('hostile: a reply of the wrong shape is left to the addon, never read as a secret', async () => {
    const bus = await fakeBus(secretService(['/c/1'], [], () => ['s', ['not a secret struct']]));
    expect(await read(bus.address)).toBe('ask-addon');
  });
});
