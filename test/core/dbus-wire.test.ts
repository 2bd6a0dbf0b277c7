// svc's own D-Bus wire code (src/credentials/dbus-wire.ts, dbus-marshal.ts), which reads the Secret Service on
// Linux: what it writes is what the specification lays out, what a bus sends back is read
// whole or not at all, and a hostile or broken bus is an error, never a wrong secret.
import { describe, expect, it } from 'vitest';
import { decodeMessages, encodeCall, encodeMessage, ERROR, FIELD, METHOD_RETURN, unixSocketOf } from '../../src/credentials/dbus-wire.js';
import { splitSignature, type DbusValue } from '../../src/credentials/dbus-marshal.js';

/** A reply (or error) as a bus sends it. */
function replyTo(serial: number, signature: string, body: DbusValue[], errorName?: string): Buffer {
  const fields: [number, [string, DbusValue]][] = [[FIELD.replySerial, ['u', serial]]];
  if (errorName) fields.push([FIELD.errorName, ['s', errorName]]);
  return encodeMessage(errorName ? ERROR : METHOD_RETURN, fields, 99, signature, body);
}

describe('D-Bus signatures', () => {
  it('splits into complete types', () => {
    expect(splitSignature('sa{ss}(oayays)v')).toEqual(['s', 'a{ss}', '(oayays)', 'v']);
  });
  it('refuses what it cannot read', () => {
    expect(() => splitSignature('(s')).toThrow('not closed');
    expect(() => splitSignature('z')).toThrow('not supported');
  });
});

describe('a method call', () => {
  it('is laid out as the specification says', () => {
    const bytes = encodeCall(
      {
        destination: 'org.freedesktop.secrets',
        path: '/org/freedesktop/secrets',
        interface: 'org.freedesktop.Secret.Service',
        member: 'OpenSession',
        signature: 'sv',
        body: ['plain', ['s', '']],
      },
      7,
    );
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0x6c, 1, 0, 1]));
    expect(bytes.readUInt32LE(8)).toBe(7);
    // Body: "plain" (length, bytes, NUL), then the variant: signature "s", pad to 4, an empty string (length, NUL).
    const body = bytes.subarray(bytes.length - bytes.readUInt32LE(4));
    expect(body).toEqual(Buffer.from([5, 0, 0, 0, ...Buffer.from('plain'), 0, 1, 0x73, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    expect((bytes.length - body.length) % 8).toBe(0);
  });
});

describe('replies', () => {
  it('a secret struct is read back whole', () => {
    const reply = replyTo(3, '(oayays)', [['/s/1', Buffer.alloc(0), Buffer.from('sk_live_é'), 'text/plain']]);
    const { messages: replies, used } = decodeMessages(reply);
    expect(used).toBe(reply.length);
    expect(replies).toMatchObject([{ type: METHOD_RETURN, replySerial: 3, body: [['/s/1', Buffer.alloc(0), Buffer.from('sk_live_é'), 'text/plain']] }]);
  });

  it('a message not all there yet is left for the next chunk', () => {
    const reply = replyTo(3, 'ao', [['/a', '/b']]);
    for (let cut = 0; cut < reply.length; cut++) expect(decodeMessages(reply.subarray(0, cut)).used).toBe(0);
  });

  it('an error reply carries its name', () => {
    const reply = replyTo(4, 's', ['no such thing'], 'org.freedesktop.DBus.Error.ServiceUnknown');
    expect(decodeMessages(reply).messages[0]).toMatchObject({ replySerial: 4, errorName: 'org.freedesktop.DBus.Error.ServiceUnknown' });
  });

  it('hostile: an unknown byte order, or lengths that run past the message, are errors', () => {
    const reply = replyTo(3, 's', ['x']);
    expect(() => decodeMessages(Buffer.concat([Buffer.from('X'), reply.subarray(1)]))).toThrow('byte order');
    const lying = Buffer.from(reply);
    lying.writeUInt32LE(1_000, lying.length - 6); // the string's length, past the body's end
    expect(() => decodeMessages(lying)).toThrow('ends early');
  });
});

describe('bus addresses', () => {
  it('a unix path or abstract socket, percent-escapes decoded; any other kind is not taken', () => {
    expect(unixSocketOf('unix:path=/run/user/1000/bus')).toBe('/run/user/1000/bus');
    expect(unixSocketOf('unix:abstract=/tmp/dbus-x%2cy,guid=12')).toBe('\0/tmp/dbus-x,y');
    expect(unixSocketOf('tcp:host=127.0.0.1,port=1;unix:path=/b')).toBe('/b');
    expect(unixSocketOf('tcp:host=127.0.0.1,port=1')).toBeUndefined();
    expect(unixSocketOf('')).toBeUndefined();
  });
});
