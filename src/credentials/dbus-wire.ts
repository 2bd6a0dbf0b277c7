// The D-Bus wire format (the D-Bus specification, "Message Protocol"), as much of it as a
// Secret Service read needs: method calls out, their replies in, on a session bus reached by
// a unix socket; its values are marshalled by dbus-marshal.ts. Written here rather than taken
// from dbus-next or @homebridge/dbus-native: those load XML parsers and stream libraries for
// introspection svc never uses, and loading them costs more than the whole keychain read is
// allowed (README "The OS keychain").
import type { Socket } from 'node:net';
import { lazyRequire } from '../node-require.js';
import { Reader, splitSignature, Writer, type DbusValue } from './dbus-marshal.js';

/** A method call, as the connection sends it. */
export interface MethodCall {
  destination: string;
  path: string;
  interface: string;
  member: string;
  signature?: string;
  body?: DbusValue[];
}

export const METHOD_CALL = 1;
export const METHOD_RETURN = 2;
export const ERROR = 3;
/** Header field codes (the specification's table). */
export const FIELD = { path: 1, interface: 2, member: 3, errorName: 4, replySerial: 5, destination: 6, signature: 8 } as const;

/** One message's bytes: its type, header fields (code, [signature, value]) and body. */
export function encodeMessage(type: number, fields: [number, [string, DbusValue]][], serial: number, signature = '', body: DbusValue[] = []): Buffer {
  const bodyBytes = new Writer();
  splitSignature(signature).forEach((bodyType, index) => bodyBytes.write(bodyType, body[index]!));
  const message = new Writer();
  for (const byte of [0x6c /* 'l' */, type, 0, 1]) message.uint8(byte);
  message.uint32(bodyBytes.length);
  message.uint32(serial);
  message.write('a(yv)', signature ? [...fields, [FIELD.signature, ['g', signature]]] : fields);
  message.align(8);
  message.bytes(bodyBytes.result());
  return message.result();
}

/** One method call's bytes. */
export function encodeCall(call: MethodCall, serial: number): Buffer {
  const fields: [number, [string, DbusValue]][] = [
    [FIELD.path, ['o', call.path]],
    [FIELD.interface, ['s', call.interface]],
    [FIELD.member, ['s', call.member]],
    [FIELD.destination, ['s', call.destination]],
  ];
  return encodeMessage(METHOD_CALL, fields, serial, call.signature, call.body);
}

/** One message as read: a reply or error names the call it answers (replySerial); a call names its member. */
export interface Message {
  type: number;
  serial: number;
  replySerial?: number;
  errorName?: string;
  path?: string;
  member?: string;
  body: DbusValue[];
}

/** The longest message the specification allows (128 MiB): a length past it is a broken or hostile bus. */
const MAX_MESSAGE_BYTES = 1 << 27;

/**
 * Takes whole messages off the front of `buffer`: those of the kinds in `types` (replies and
 * errors unless told), and how many bytes they used (a message not yet all there is left for
 * the next chunk).
 */
export function decodeMessages(buffer: Buffer, types: readonly number[] = [METHOD_RETURN, ERROR]): { messages: Message[]; used: number } {
  const messages: Message[] = [];
  let used = 0;
  while (buffer.length - used >= 16) {
    const start = used;
    const littleEndian = buffer[start] === 0x6c;
    if (!littleEndian && buffer[start] !== 0x42 /* 'B' */) throw new Error('D-Bus message of unknown byte order');
    const u32 = (at: number) => (littleEndian ? buffer.readUInt32LE(start + at) : buffer.readUInt32BE(start + at));
    const bodyLength = u32(4);
    const fieldsLength = u32(12);
    const headerEnd = 16 + fieldsLength + ((8 - (fieldsLength % 8)) % 8);
    const total = headerEnd + bodyLength;
    if (total > MAX_MESSAGE_BYTES) throw new Error('D-Bus message longer than the specification allows');
    if (buffer.length - start < total) break;
    used = start + total;
    const type = buffer[start + 1]!;
    if (!types.includes(type)) continue;
    const reader = new Reader(buffer.subarray(start, used), littleEndian);
    reader.offset = 12;
    const fields = new Map((reader.read('a(yv)') as [number, [string, DbusValue]][]).map(([code, [, value]]) => [code, value]));
    reader.offset = headerEnd;
    const body = splitSignature((fields.get(FIELD.signature) as string | undefined) ?? '').map((bodyType) => reader.read(bodyType));
    messages.push({
      type,
      serial: u32(8),
      replySerial: fields.get(FIELD.replySerial) as number | undefined,
      errorName: fields.get(FIELD.errorName) as string | undefined,
      path: fields.get(FIELD.path) as string | undefined,
      member: fields.get(FIELD.member) as string | undefined,
      body,
    });
  }
  return { messages, used };
}

/** The unix socket of a D-Bus address (`unix:path=…` or `unix:abstract=…`); undefined for any other kind. */
export function unixSocketOf(address: string): string | undefined {
  for (const entry of address.split(';')) {
    const colon = entry.indexOf(':');
    if (entry.slice(0, colon) !== 'unix') continue;
    const keys = new Map(
      entry
        .slice(colon + 1)
        .split(',')
        .map((pair) => {
          const equals = pair.indexOf('=');
          return [pair.slice(0, equals), decodeURIComponent(pair.slice(equals + 1))] as const;
        }),
    );
    if (keys.get('path')) return keys.get('path');
    if (keys.get('abstract')) return `\0${keys.get('abstract')}`;
  }
  return undefined;
}

/** A D-Bus error reply, by its name (org.freedesktop.DBus.Error.ServiceUnknown, …). */
export class DbusError extends Error {
  constructor(
    readonly errorName: string,
    message: string,
  ) {
    super(`${errorName}: ${message}`);
  }
}

/**
 * A connection to the bus at `socketPath`, authenticated (SASL EXTERNAL, as this user) and
 * said hello to. `signal` ends it: nothing here waits beyond the caller's own timer.
 */
export class DbusConnection {
  private serial = 1;
  private readonly pending = new Map<number, { resolve: (body: DbusValue[]) => void; reject: (error: Error) => void }>();
  private received: Buffer = Buffer.alloc(0);
  private authenticated = false;
  private failure: Error | undefined;
  private readonly queued: Buffer[] = [];

  private constructor(private readonly socket: Socket) {}

  static open(socketPath: string, signal: AbortSignal): DbusConnection {
    const socket = lazyRequire('node:net').createConnection({ path: socketPath });
    const connection = new DbusConnection(socket);
    const uid = String(process.getuid?.() ?? 0);
    socket.write(`\0AUTH EXTERNAL ${Buffer.from(uid).toString('hex')}\r\n`);
    socket.on('data', (chunk: Buffer) => connection.onData(chunk));
    socket.on('error', (error) => connection.fail(error));
    socket.on('close', () => connection.fail(new Error('the D-Bus connection closed')));
    const onAbort = () => connection.fail(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    socket.once('close', () => signal.removeEventListener('abort', onAbort));
    // The bus's first message to a client must be Hello; it is answered before any other.
    void connection
      .call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'Hello' })
      .catch(() => {});
    return connection;
  }

  /** One method call's reply body; an error reply rejects with a DbusError. */
  call(call: MethodCall): Promise<DbusValue[]> {
    if (this.failure) return Promise.reject(this.failure);
    const serial = this.serial++;
    const bytes = encodeCall(call, serial);
    return new Promise((resolve, reject) => {
      this.pending.set(serial, { resolve, reject });
      if (this.authenticated) this.socket.write(bytes);
      else this.queued.push(bytes);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.received = this.received.length ? Buffer.concat([this.received, chunk]) : chunk;
    try {
      if (!this.authenticated) {
        const lineEnd = this.received.indexOf('\r\n');
        if (lineEnd < 0) return;
        const line = this.received.toString('latin1', 0, lineEnd);
        this.received = this.received.subarray(lineEnd + 2);
        if (!line.startsWith('OK ')) throw new Error(`the D-Bus session bus refused svc (${line})`);
        this.authenticated = true;
        this.socket.write(Buffer.concat([Buffer.from('BEGIN\r\n'), ...this.queued.splice(0)]));
      }
      const { messages, used } = decodeMessages(this.received);
      this.received = this.received.subarray(used);
      for (const reply of messages) {
        const waiting = this.pending.get(reply.replySerial ?? -1);
        if (!waiting) continue;
        this.pending.delete(reply.replySerial!);
        if (reply.errorName) waiting.reject(new DbusError(reply.errorName, typeof reply.body[0] === 'string' ? reply.body[0] : ''));
        else waiting.resolve(reply.body);
      }
    } catch (error) {
      this.fail(error as Error);
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    this.socket.destroy();
    for (const waiting of this.pending.values()) waiting.reject(this.failure);
    this.pending.clear();
  }
}
