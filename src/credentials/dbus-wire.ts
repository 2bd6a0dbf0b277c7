// The D-Bus wire format (the D-Bus specification, "Message Protocol"), as much of it as a
// Secret Service read needs: method calls out, their replies in, on a session bus reached by
// a unix socket. Written here rather than taken from dbus-next or @homebridge/dbus-native:
// those load XML parsers and stream libraries for introspection svc never uses, and loading
// them costs more than the whole keychain read is allowed (README "The OS keychain").
import type { Socket } from 'node:net';
import { lazyRequire } from '../node-require.js';

/** A D-Bus value as svc writes and reads it: a variant is [signature, value]; `ay` is a Buffer. */
export type DbusValue = string | number | boolean | bigint | Buffer | DbusValue[] | [string, DbusValue];

const ALIGNMENT: Record<string, number> = { y: 1, g: 1, v: 1, n: 2, q: 2, b: 4, i: 4, u: 4, s: 4, o: 4, a: 4, h: 4, x: 8, t: 8, d: 8, '(': 8, '{': 8 };

/** The end (exclusive) of the single complete type that starts at `start` in `signature`. */
function typeEnd(signature: string, start: number): number {
  const code = signature[start];
  if (code === 'a') return typeEnd(signature, start + 1);
  if (code === '(' || code === '{') {
    let depth = 0;
    for (let at = start; at < signature.length; at++) {
      if (signature[at] === '(' || signature[at] === '{') depth++;
      else if ((signature[at] === ')' || signature[at] === '}') && --depth === 0) return at + 1;
    }
    throw new Error(`D-Bus signature ${JSON.stringify(signature)} is not closed`);
  }
  if (code === undefined || !(code in ALIGNMENT)) throw new Error(`D-Bus type ${JSON.stringify(code)} is not supported`);
  return start + 1;
}

/** The complete types of a signature, in order ("sa{ss}" is "s", "a{ss}"). */
export function splitSignature(signature: string): string[] {
  const types: string[] = [];
  for (let at = 0; at < signature.length;) {
    const end = typeEnd(signature, at);
    types.push(signature.slice(at, end));
    at = end;
  }
  return types;
}

/** Little-endian marshalling; offsets count from the message's first byte, as alignment does. */
class Writer {
  private buffer = Buffer.alloc(256);
  length = 0;

  private room(bytes: number): void {
    if (this.length + bytes <= this.buffer.length) return;
    const grown = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + bytes));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }

  align(to: number): void {
    const pad = (to - (this.length % to)) % to;
    this.room(pad);
    this.buffer.fill(0, this.length, this.length + pad);
    this.length += pad;
  }

  uint8(value: number): void {
    this.room(1);
    this.buffer[this.length++] = value;
  }

  uint32(value: number, at?: number): void {
    if (at !== undefined) return void this.buffer.writeUInt32LE(value, at);
    this.align(4);
    this.room(4);
    this.buffer.writeUInt32LE(value, this.length);
    this.length += 4;
  }

  bytes(value: Buffer): void {
    this.room(value.length);
    value.copy(this.buffer, this.length);
    this.length += value.length;
  }

  write(type: string, value: DbusValue): void {
    const code = type[0];
    if (code === 'y') return this.uint8(value as number);
    if (code === 'b') return this.uint32(value ? 1 : 0);
    if (code === 'u' || code === 'i') return this.uint32((value as number) >>> 0);
    if (code === 's' || code === 'o') {
      const text = Buffer.from(value as string);
      this.uint32(text.length);
      this.bytes(text);
      return this.uint8(0);
    }
    if (code === 'g') {
      this.uint8(Buffer.byteLength(value as string));
      this.bytes(Buffer.from(value as string));
      return this.uint8(0);
    }
    if (code === 'v') {
      const [signature, inner] = value as [string, DbusValue];
      this.write('g', signature);
      return this.write(signature, inner);
    }
    if (code === 'a') return this.array(type.slice(1), value as DbusValue[] | Buffer);
    if (code === '(' || code === '{') {
      this.align(8);
      const fields = splitSignature(type.slice(1, -1));
      fields.forEach((field, index) => this.write(field, (value as DbusValue[])[index]!));
      return;
    }
    throw new Error(`D-Bus type ${JSON.stringify(type)} cannot be written`);
  }

  private array(element: string, value: DbusValue[] | Buffer): void {
    this.uint32(0);
    const lengthAt = this.length - 4;
    this.align(ALIGNMENT[element[0]!]!);
    const start = this.length;
    if (Buffer.isBuffer(value)) this.bytes(value);
    else for (const item of value) this.write(element, item);
    this.uint32(this.length - start, lengthAt);
  }

  result(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** Unmarshalling, in the message's own byte order. */
class Reader {
  offset = 0;
  constructor(
    private readonly buffer: Buffer,
    private readonly littleEndian: boolean,
  ) {}

  align(to: number): void {
    this.offset += (to - (this.offset % to)) % to;
  }

  private fixed(size: number, read: (at: number) => number | bigint): number | bigint {
    this.align(size);
    if (this.offset + size > this.buffer.length) throw new Error('D-Bus message ends early');
    const value = read(this.offset);
    this.offset += size;
    return value;
  }

  uint32(): number {
    return this.fixed(4, (at) => (this.littleEndian ? this.buffer.readUInt32LE(at) : this.buffer.readUInt32BE(at))) as number;
  }

  private text(length: number): string {
    const end = this.offset + length;
    if (end >= this.buffer.length) throw new Error('D-Bus message ends early');
    const value = this.buffer.toString('utf8', this.offset, end);
    this.offset = end + 1; // the terminating NUL
    return value;
  }

  read(type: string): DbusValue {
    const le = this.littleEndian;
    const b = this.buffer;
    switch (type[0]) {
      case 'y':
        return this.fixed(1, (at) => b[at]!);
      case 'b':
        return this.uint32() !== 0;
      case 'n':
        return this.fixed(2, (at) => (le ? b.readInt16LE(at) : b.readInt16BE(at)));
      case 'q':
        return this.fixed(2, (at) => (le ? b.readUInt16LE(at) : b.readUInt16BE(at)));
      case 'i':
        return this.fixed(4, (at) => (le ? b.readInt32LE(at) : b.readInt32BE(at)));
      case 'u':
      case 'h':
        return this.uint32();
      case 'x':
        return this.fixed(8, (at) => (le ? b.readBigInt64LE(at) : b.readBigInt64BE(at)));
      case 't':
        return this.fixed(8, (at) => (le ? b.readBigUInt64LE(at) : b.readBigUInt64BE(at)));
      case 'd':
        return this.fixed(8, (at) => (le ? b.readDoubleLE(at) : b.readDoubleBE(at)));
      case 's':
      case 'o':
        return this.text(this.uint32());
      case 'g':
        return this.text(this.fixed(1, (at) => b[at]!) as number);
      case 'v': {
        const signature = this.read('g') as string;
        return [signature, this.read(signature)];
      }
      case 'a':
        return this.array(type.slice(1));
      case '(':
      case '{':
        this.align(8);
        return splitSignature(type.slice(1, -1)).map((field) => this.read(field));
      default:
        throw new Error(`D-Bus type ${JSON.stringify(type)} cannot be read`);
    }
  }

  private array(element: string): DbusValue[] | Buffer {
    const length = this.uint32();
    this.align(ALIGNMENT[element[0]!]!);
    const end = this.offset + length;
    if (end > this.buffer.length) throw new Error('D-Bus message ends early');
    if (element === 'y') {
      const bytes = Buffer.from(this.buffer.subarray(this.offset, end));
      this.offset = end;
      return bytes;
    }
    const items: DbusValue[] = [];
    while (this.offset < end) items.push(this.read(element));
    return items;
  }
}

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
