// The keychain's fast path on Linux (src/credentials/secret-service.ts): one secret read from
// the Secret Service over the session bus with a plain session. Here against a session bus of
// the test's own on a unix socket, which answers as dbus-daemon and gnome-keyring would, or
// misbehaves on demand; test/real/keychain.test.ts reads what the real addon wrote in the real
// gnome-keyring. Whatever the fast path cannot settle must come back `undefined` (the addon's
// turn), never a wrong answer.
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  decodeMessages,
  encodeMessage,
  encodeMethodCall,
  ERROR,
  METHOD_RETURN,
  readSecretServiceItem,
  sessionBusPath,
  type Message,
  type Value,
} from '../../src/credentials/secret-service.js';
import { osKeychain } from '../../src/credentials/store.js';
import { workingKeychain } from '../helpers/keychains.js';

interface FakeItem {
  path: string;
  attributes: Record<string, string>;
  secret: Buffer;
  locked?: boolean;
}

interface FakeBus {
  address: string;
  /** Every method call received, in order. */
  calls: Message[];
  close(): Promise<void>;
}

/**
 * A session bus with a Secret Service behind it. `answer` may replace the reply to a call
 * (return null to never answer it).
 */
async function fakeBus(
  items: FakeItem[],
  options: { authReply?: string; answer?: (call: Message) => Buffer | null | undefined; /** every reply a byte a write */ drip?: boolean } = {},
): Promise<FakeBus> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bus-'));
  const path = join(dir, 'bus');
  const calls: Message[] = [];
  const sockets = new Set<Socket>();
  let serial = 1000;
  const reply = (call: Message, signature: string, body: Value[]) =>
    encodeMessage({ type: METHOD_RETURN, serial: ++serial, replySerial: call.serial, destination: ':1.7', signature, body });
  const error = (call: Message, name: string) =>
    encodeMessage({ type: ERROR, serial: ++serial, replySerial: call.serial, errorName: name, signature: 's', body: [name] });
  const matches = (item: FakeItem, query: [string, string][]) => query.every(([key, value]) => item.attributes[key] === value);

  function defaultAnswer(call: Message): Buffer {
    switch (call.member) {
      case 'Hello':
        // and the NameAcquired signal dbus-daemon sends right after, which the reader must skip
        return Buffer.concat([
          reply(call, 's', [':1.7']),
          encodeMessage({
            type: 4,
            serial: ++serial,
            path: '/org/freedesktop/DBus',
            interface: 'org.freedesktop.DBus',
            member: 'NameAcquired',
            signature: 's',
            body: [':1.7'],
          }),
        ]);
      case 'OpenSession':
        return (call.body[0] as string) === 'plain'
          ? reply(call, 'vo', [{ signature: 's', value: '' }, '/org/freedesktop/secrets/session/s1'])
          : error(call, 'org.freedesktop.DBus.Error.NotSupported');
      case 'SearchItems': {
        const query = call.body[0] as [string, string][];
        const found = items.filter((item) => matches(item, query));
        return reply(call, 'aoao', [found.filter((i) => !i.locked).map((i) => i.path), found.filter((i) => i.locked).map((i) => i.path)]);
      }
      case 'Get': {
        const item = items.find((i) => i.path === call.path)!;
        return reply(call, 'v', [{ signature: 'a{ss}', value: Object.entries(item.attributes) }]);
      }
      case 'GetSecret': {
        const item = items.find((i) => i.path === call.path)!;
        if (item.locked) return error(call, 'org.freedesktop.Secret.Error.IsLocked');
        return reply(call, '(oayays)', [[call.body[0] as string, Buffer.alloc(0), item.secret, 'text/plain']]);
      }
      default:
        return error(call, 'org.freedesktop.DBus.Error.UnknownMethod');
    }
  }

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    let buffer = Buffer.alloc(0);
    let authenticated = false;
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      while (!authenticated) {
        const end = buffer.indexOf('\r\n');
        if (end < 0) return;
        const line = buffer.subarray(0, end).toString('latin1');
        buffer = buffer.subarray(end + 2);
        if (line.startsWith('\0AUTH EXTERNAL ')) socket.write(options.authReply ?? 'OK 0123456789abcdef0123456789abcdef\r\n');
        else if (line === 'BEGIN') authenticated = true;
      }
      const { messages, used } = decodeMessages(buffer);
      buffer = buffer.subarray(used);
      for (const call of messages) {
        calls.push(call);
        const custom = options.answer?.(call);
        if (custom === null) continue;
        const answer = custom ?? defaultAnswer(call);
        if (!options.drip) socket.write(answer);
        else for (const byte of answer) socket.write(Buffer.of(byte));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    address: `unix:path=${path},guid=0123456789abcdef0123456789abcdef`,
    calls,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const item = (n: number, attributes: Record<string, string>, secret: string | Buffer, locked = false): FakeItem => ({
  path: `/org/freedesktop/secrets/collection/login/${n}`,
  attributes,
  secret: Buffer.isBuffer(secret) ? secret : Buffer.from(secret),
  locked,
});
const svcItem = (n: number, account: string, secret: string, extra: Record<string, string> = {}) =>
  item(n, { service: 'svc', username: account, target: 'default', application: 'rust-keyring', ...extra }, secret);

let buses: FakeBus[] = [];
afterEach(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  buses = [];
});
async function bus(...args: Parameters<typeof fakeBus>): Promise<FakeBus> {
  const made = await fakeBus(...args);
  buses.push(made);
  return made;
}
const read = (address: string, account = 'default:dev', signal = new AbortController().signal) =>
  readSecretServiceItem('svc', account, { busAddress: address, uid: 1000, signal });

describe('reading a secret from the Secret Service over the session bus', () => {
  it('reads the one matching item through a plain session, authenticated as this uid', async () => {
    const b = await bus([svcItem(1, 'default:dev', 'svc_test_ünïcode'), svcItem(2, 'default:other', 'not this one')]);
    expect(await read(b.address)).toBe('svc_test_ünïcode');
    expect(b.calls.map((c) => c.member)).toEqual(['Hello', 'OpenSession', 'SearchItems', 'GetSecret']);
    expect(b.calls[1]!.body[0]).toBe('plain');
    expect(b.calls[2]!.body[0]).toEqual([
      ['service', 'svc'],
      ['username', 'default:dev'],
    ]);
    // GetSecret names the session OpenSession returned
    expect(b.calls[3]!.body[0]).toBe('/org/freedesktop/secrets/session/s1');
  });

  it('puts together replies that arrive a byte at a time, and a secret larger than its read buffer', async () => {
    const large = `svc_test_${'x'.repeat(40_000)}`;
    const dripped = await bus([svcItem(1, 'default:dev', 'svc_test_dripped')], { drip: true });
    expect(await read(dripped.address)).toBe('svc_test_dripped');
    const b = await bus([svcItem(1, 'default:dev', large)]);
    expect(await read(b.address)).toBe(large);
  });

  it('answers null when no item matches, without asking for any secret', async () => {
    const b = await bus([svcItem(1, 'default:other', 'x')]);
    expect(await read(b.address)).toBeNull();
    expect(b.calls.map((c) => c.member)).not.toContain('GetSecret');
  });

  it('counts an item whatever its other attributes (written by another client, or for another target), as the addon does', async () => {
    const b = await bus([item(1, { service: 'svc', username: 'default:dev', target: 'work' }, 'from-secret-tool')]);
    expect(await read(b.address)).toBe('from-secret-tool');
  });

  it('leaves two matching items (the addon reports them as ambiguous) to the addon', async () => {
    const b = await bus([svcItem(1, 'default:dev', 'a'), item(2, { service: 'svc', username: 'default:dev' }, 'b')]);
    expect(await read(b.address)).toBeUndefined();
    expect(b.calls.map((c) => c.member)).not.toContain('GetSecret');
  });

  it('leaves a locked item (unlocking may prompt) to the addon', async () => {
    const b = await bus([{ ...svcItem(1, 'default:dev', 'locked'), locked: true }]);
    expect(await read(b.address)).toBeUndefined();
    expect(b.calls.map((c) => c.member)).not.toContain('GetSecret');
  });

  it('leaves a secret that is not UTF-8 to the addon', async () => {
    const b = await bus([item(1, { service: 'svc', username: 'default:dev', target: 'default' }, Buffer.from([0xff, 0xfe, 0x00]))]);
    expect(await read(b.address)).toBeUndefined();
  });

  it('leaves it to the addon when there is no Secret Service on the bus', async () => {
    const b = await bus([], {
      answer: (call) =>
        call.destination === 'org.freedesktop.secrets'
          ? encodeMessage({ type: ERROR, serial: 9, replySerial: call.serial, errorName: 'org.freedesktop.DBus.Error.ServiceUnknown', body: [] })
          : undefined,
    });
    expect(await read(b.address)).toBeUndefined();
  });

  it('leaves it to the addon when the bus refuses the authentication', async () => {
    const b = await bus([svcItem(1, 'default:dev', 'x')], { authReply: 'REJECTED EXTERNAL\r\n' });
    expect(await read(b.address)).toBeUndefined();
  });

  it('leaves it to the addon when the bus hangs up mid-way', async () => {
    const b = await bus([svcItem(1, 'default:dev', 'x')], {
      answer: (call) => (call.member === 'SearchItems' ? Buffer.from('garbage that is no D-Bus message') : undefined),
    });
    expect(await read(b.address)).toBeUndefined();
  });

  it('stops when its signal aborts, however long the Secret Service takes', async () => {
    const b = await bus([svcItem(1, 'default:dev', 'x')], { answer: (call) => (call.member === 'GetSecret' ? null : undefined) });
    const controller = new AbortController();
    const reading = read(b.address, 'default:dev', controller.signal);
    await expect.poll(() => b.calls.some((c) => c.member === 'GetSecret')).toBe(true);
    controller.abort();
    expect(await reading).toBeUndefined();
  });

  it('has no answer without a unix session bus address', async () => {
    expect(await read('tcp:host=localhost,port=1234')).toBeUndefined();
    expect(await read('')).toBeUndefined();
  });
});

describe('session bus addresses (D-Bus Specification, "Server Addresses")', () => {
  it('takes the first unix address: a path, or an abstract name, %-unescaped', () => {
    expect(sessionBusPath('unix:path=/run/user/1000/bus')).toBe('/run/user/1000/bus');
    expect(sessionBusPath('unix:path=/tmp/a%20b,guid=ab')).toBe('/tmp/a b');
    expect(sessionBusPath('unix:abstract=/tmp/dbus-XYZ,guid=ab')).toBe('\0/tmp/dbus-XYZ');
    expect(sessionBusPath('tcp:host=x,port=1;unix:path=/second')).toBe('/second');
  });
  it('has none for other transports, nothing, or a malformed escape', () => {
    expect(sessionBusPath(undefined)).toBeNull();
    expect(sessionBusPath('tcp:host=localhost,port=5')).toBeNull();
    expect(sessionBusPath('unix:path=/tmp/%zz')).toBeNull();
  });
});

describe('the wire format', () => {
  it('decodes what it encodes, across alignment: strings, variants, dicts, arrays of paths, bytes, structs', () => {
    const body: Value[] = [
      'plain',
      {
        signature: 'a{ss}',
        value: [
          ['k', 'v'],
          ['ü', ''],
        ],
      },
      [['service', 'svc']],
      ['/a', '/b/c'],
      [['/o', Buffer.from([1, 2, 3]), Buffer.from('secret'), 'text/plain']],
      7,
    ];
    const bytes = encodeMethodCall({ destination: 'd.e', path: '/p', interface: 'i.f', member: 'M', signature: 'sva{ss}aoa(oayays)u', body }, 42);
    const { messages, used } = decodeMessages(bytes);
    expect(used).toBe(bytes.length);
    expect(messages[0]).toMatchObject({ type: 1, serial: 42, path: '/p', interface: 'i.f', member: 'M', destination: 'd.e', body });
  });
  it('waits for the rest of a message cut in two', () => {
    const bytes = encodeMethodCall({ destination: 'd', path: '/p', interface: 'i', member: 'M', signature: 's', body: ['x'.repeat(100)] }, 1);
    expect(decodeMessages(bytes.subarray(0, 60))).toEqual({ messages: [], used: 0 });
  });
});

describe('the OS keychain on Linux', () => {
  it.skipIf(process.platform !== 'linux' || process.getuid === undefined)(
    'reads through the bus when it can, and asks the addon otherwise; writes and deletes are the addon’s',
    async () => {
      const b = await bus([svcItem(1, 'default:dev', 'from-the-bus'), { ...svcItem(2, 'default:locked', 'x'), locked: true }]);
      const addon = workingKeychain();
      addon.entries.set('svc/default:locked', 'from-the-addon');
      const keychain = osKeychain({ DBUS_SESSION_BUS_ADDRESS: b.address }, addon);
      const signal = new AbortController().signal;
      expect(await keychain.get('svc', 'default:dev', signal)).toBe('from-the-bus');
      expect(await keychain.get('svc', 'default:locked', signal)).toBe('from-the-addon');
      expect(await keychain.get('svc', 'default:none', signal)).toBeNull();
      expect(addon.calls).toEqual(['get svc default:locked']);
      await keychain.set('svc', 'default:new', 'v', signal);
      expect(addon.entries.get('svc/default:new')).toBe('v');
      // no session bus: the addon alone
      const without = osKeychain({}, addon);
      expect(await without.get('svc', 'default:new', signal)).toBe('v');
    },
  );
});
