// Reading one secret from the Secret Service (freedesktop.org Secret Service API 0.2) over the
// D-Bus session bus, as the keychain's fast path on Linux. Why not only @napi-rs/keyring: its
// every call opens a Secret Service session with a Diffie-Hellman exchange
// (dh-ietf1024-sha256-aes128-cbc-pkcs7), about 11 ms of this thread's time blocked in the
// addon's constructor, plus ~5 ms to load the addon: a third of a short command's start-up.
// This asks for a "plain" session instead (Secret Service API, "Transfer of Secrets"), as gh
// does through go-keyring: the secret crosses the user's own session-bus socket unencrypted,
// where only this user and root can listen, and stays in this process's memory as it would.
//
// It reads exactly what the addon would: the items whose `service` and `username` attributes
// match, whatever their other attributes (@napi-rs/keyring 2 counts an item of any `target`;
// test/real/keychain.test.ts checks the two agree); exactly one unlocked item is the answer,
// none is "no secret". Anything else (a locked item that needs a prompt to unlock, two matches, no session bus, a
// D-Bus error, a secret that is not UTF-8) is left to the addon: `undefined`, never a guess.
// Writes and deletes always go through the addon.
import { isUtf8 } from 'node:buffer';
import type { Socket } from 'node:net';
import { lazyRequire } from '../node-require.js';

/** The answer: the secret, or null when there is none; undefined when the addon must answer. */
export type FastAnswer = string | null | undefined;

// --- D-Bus wire format (D-Bus Specification, "Message Protocol"), little-endian out ---------

export type Value = string | number | boolean | Buffer | Value[] | VariantValue;
export interface VariantValue {
  signature: string;
  value: Value;
}

/** The complete types of a signature: `a{ss}o` → [`a{ss}`, `o`]. */
export function splitSignature(signature: string): string[] {
  const types: string[] = [];
  let index = 0;
  while (index < signature.length) {
    const end = completeTypeEnd(signature, index);
    types.push(signature.slice(index, end));
    index = end;
  }
  return types;
}

function completeTypeEnd(signature: string, start: number): number {
  const code = signature[start];
  if (code === 'a') return completeTypeEnd(signature, start + 1);
  if (code === '(' || code === '{') {
    const close = code === '(' ? ')' : '}';
    let index = start + 1;
    while (signature[index] !== close) {
      if (index >= signature.length) throw new Error(`unbalanced D-Bus signature ${signature}`);
      index = completeTypeEnd(signature, index);
    }
    return index + 1;
  }
  if (!code || !'ybnqiuxtdsogvh'.includes(code)) throw new Error(`unsupported D-Bus type ${code ?? '(end)'} in ${signature}`);
  return start + 1;
}

function alignmentOf(type: string): number {
  switch (type[0]) {
    case 'y':
    case 'g':
    case 'v':
      return 1;
    case 'n':
    case 'q':
      return 2;
    case 'x':
    case 't':
    case 'd':
    case '(':
    case '{':
      return 8;
    default:
      return 4;
  }
}

/** A message's bytes, written into one buffer that grows as needed (no buffer a field). */
class Writer {
  private bytes = Buffer.alloc(256);
  length = 0;
  private room(count: number): void {
    if (this.length + count <= this.bytes.length) return;
    const grown = Buffer.alloc(Math.max(this.bytes.length * 2, this.length + count));
    this.bytes.copy(grown, 0, 0, this.length);
    this.bytes = grown;
  }
  align(to: number): void {
    const pad = (to - (this.length % to)) % to;
    this.room(pad);
    this.length += pad; // (zeros: the buffer is zero-filled)
  }
  uint32(value: number): void {
    this.align(4);
    this.room(4);
    this.bytes.writeUInt32LE(value, this.length);
    this.length += 4;
  }
  byte(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }
  /** A string's bytes and its NUL, after its length: one byte for a signature, four for a string. */
  text(value: string, lengthBytes: 1 | 4): void {
    const size = Buffer.byteLength(value, 'utf8');
    if (lengthBytes === 1) this.byte(size);
    else this.uint32(size);
    this.room(size + 1);
    this.length += this.bytes.write(value, this.length, 'utf8');
    this.bytes[this.length++] = 0;
  }
  /** Where an array's length goes, to be filled in once its elements are written. */
  placeholder(): number {
    this.align(4);
    this.room(4);
    this.length += 4;
    return this.length - 4;
  }
  fill(at: number, value: number): void {
    this.bytes.writeUInt32LE(value, at);
  }
  result(): Buffer {
    return this.bytes.subarray(0, this.length);
  }
}

function write(writer: Writer, type: string, value: Value): void {
  switch (type[0]) {
    case 'y':
      writer.byte(value as number);
      return;
    case 'u':
      writer.uint32(value as number);
      return;
    case 'b':
      writer.uint32(value ? 1 : 0);
      return;
    case 's':
    case 'o':
    case 'g':
      writer.text(value as string, type[0] === 'g' ? 1 : 4);
      return;
    case 'v': {
      const variant = value as VariantValue;
      write(writer, 'g', variant.signature);
      write(writer, variant.signature, variant.value);
      return;
    }
    case 'a': {
      const element = type.slice(1);
      const length = writer.placeholder();
      writer.align(alignmentOf(element)); // (the padding before the first element is not counted)
      const first = writer.length;
      for (const item of value as Value[]) write(writer, element, item);
      writer.fill(length, writer.length - first);
      return;
    }
    case '(':
    case '{': {
      writer.align(8);
      const fields = splitSignature(type.slice(1, -1));
      fields.forEach((field, index) => write(writer, field, (value as Value[])[index]!));
      return;
    }
    default:
      throw new Error(`cannot write D-Bus type ${type}`);
  }
}

class Reader {
  offset = 0;
  constructor(
    private readonly bytes: Buffer,
    private readonly little: boolean,
  ) {}
  align(to: number): void {
    this.offset += (to - (this.offset % to)) % to;
  }
  need(count: number): void {
    if (this.offset + count > this.bytes.length) throw new Error('truncated D-Bus message');
  }
  uint32(): number {
    this.align(4);
    this.need(4);
    const value = this.little ? this.bytes.readUInt32LE(this.offset) : this.bytes.readUInt32BE(this.offset);
    this.offset += 4;
    return value;
  }
  byte(): number {
    this.need(1);
    return this.bytes[this.offset++]!;
  }
  slice(count: number): Buffer {
    this.need(count);
    const bytes = this.bytes.subarray(this.offset, this.offset + count);
    this.offset += count;
    return bytes;
  }
  skip(count: number): void {
    this.need(count);
    this.offset += count;
  }
  /** `count` bytes as text, and the NUL after them. */
  text(count: number, encoding: 'utf8' | 'latin1'): string {
    this.need(count + 1);
    const text = this.bytes.toString(encoding, this.offset, this.offset + count);
    this.offset += count + 1;
    return text;
  }
}

function read(reader: Reader, type: string): Value {
  switch (type[0]) {
    case 'y':
      return reader.byte();
    case 'b':
      return reader.uint32() !== 0;
    case 'u':
    case 'i':
    case 'h':
      return reader.uint32();
    case 'n':
    case 'q':
      reader.align(2);
      reader.skip(2);
      return 0; // (no reply svc reads carries these; skipped by size)
    case 'x':
    case 't':
    case 'd':
      reader.align(8);
      reader.skip(8);
      return 0;
    case 's':
    case 'o':
      return reader.text(reader.uint32(), 'utf8');
    case 'g':
      return reader.text(reader.byte(), 'latin1');
    case 'v': {
      const signature = read(reader, 'g') as string;
      return { signature, value: read(reader, signature) };
    }
    case 'a': {
      const element = type.slice(1);
      const length = reader.uint32();
      reader.align(alignmentOf(element));
      const end = reader.offset + length;
      reader.need(length);
      if (element === 'y') return Buffer.from(reader.slice(length));
      const items: Value[] = [];
      while (reader.offset < end) items.push(read(reader, element));
      if (reader.offset !== end) throw new Error('malformed D-Bus array');
      return items;
    }
    case '(':
    case '{': {
      reader.align(8);
      return splitSignature(type.slice(1, -1)).map((field) => read(reader, field));
    }
    default:
      throw new Error(`cannot read D-Bus type ${type}`);
  }
}

export const METHOD_CALL = 1;
export const METHOD_RETURN = 2;
export const ERROR = 3;
const FIELD = { path: 1, interface: 2, member: 3, errorName: 4, replySerial: 5, destination: 6, signature: 8 } as const;

export interface Message {
  type: number;
  serial: number;
  path?: string;
  interface?: string;
  member?: string;
  destination?: string;
  errorName?: string;
  replySerial?: number;
  signature?: string;
  body: Value[];
}

export type MethodCall = Pick<Message, 'path' | 'interface' | 'member' | 'destination' | 'signature'> & { body?: Value[] };

/** One message as bytes, little-endian. */
export function encodeMessage(message: Message): Buffer {
  const body = new Writer();
  if (message.signature) splitSignature(message.signature).forEach((type, index) => write(body, type, message.body[index]!));
  const header = new Writer();
  header.byte('l'.charCodeAt(0));
  header.byte(message.type);
  header.byte(0); // flags: a reply is expected, and the bus may start the service
  header.byte(1); // protocol version
  header.uint32(body.length);
  header.uint32(message.serial);
  // The header fields, a(yv), each written in place (no array of variants to walk).
  const fieldsLength = header.placeholder();
  header.align(8);
  const first = header.length;
  const field = (code: number, signature: string, value: string | number | undefined) => {
    if (value === undefined || value === '') return;
    header.align(8);
    header.byte(code);
    header.text(signature, 1);
    write(header, signature, value);
  };
  field(FIELD.path, 'o', message.path);
  field(FIELD.interface, 's', message.interface);
  field(FIELD.member, 's', message.member);
  field(FIELD.errorName, 's', message.errorName);
  field(FIELD.replySerial, 'u', message.replySerial);
  field(FIELD.destination, 's', message.destination);
  field(FIELD.signature, 'g', message.signature);
  header.fill(fieldsLength, header.length - first);
  header.align(8);
  header.raw(body.result());
  return header.result();
}

/** One method call as bytes. */
export function encodeMethodCall(call: MethodCall, serial: number): Buffer {
  return encodeMessage({ ...call, type: METHOD_CALL, serial, body: call.body ?? [] });
}

/**
 * The whole messages at the start of `bytes`, and how many bytes they took (a partial
 * message at the end waits for more).
 */
export function decodeMessages(bytes: Buffer): { messages: Message[]; used: number } {
  const messages: Message[] = [];
  let used = 0;
  while (bytes.length - used >= 16) {
    const start = bytes.subarray(used);
    const endian = start[0];
    if (endian !== 0x6c && endian !== 0x42) throw new Error('not a D-Bus message');
    const little = endian === 0x6c;
    const bodyLength = little ? start.readUInt32LE(4) : start.readUInt32BE(4);
    const fieldsLength = little ? start.readUInt32LE(12) : start.readUInt32BE(12);
    const headerLength = 16 + fieldsLength + ((8 - ((16 + fieldsLength) % 8)) % 8);
    const total = headerLength + bodyLength;
    // (The specification caps a message at 128 MiB; a Secret Service reply is far smaller.)
    if (total > 1024 * 1024) throw new Error('a D-Bus message over 1 MiB');
    if (start.length < total) break;
    const reader = new Reader(start.subarray(0, total), little);
    reader.offset = 8;
    const message: Message = { type: start[1]!, serial: reader.uint32(), body: [] };
    // The header fields, a(yv), read in place: each a code and a variant.
    const fieldsEnd = 16 + reader.uint32();
    reader.need(fieldsEnd - reader.offset);
    while (reader.offset < fieldsEnd) {
      reader.align(8);
      const code = reader.byte();
      const value = read(reader, read(reader, 'g') as string);
      if (code === FIELD.path) message.path = value as string;
      else if (code === FIELD.interface) message.interface = value as string;
      else if (code === FIELD.member) message.member = value as string;
      else if (code === FIELD.errorName) message.errorName = value as string;
      else if (code === FIELD.replySerial) message.replySerial = value as number;
      else if (code === FIELD.destination) message.destination = value as string;
      else if (code === FIELD.signature) message.signature = value as string;
    }
    if (reader.offset !== fieldsEnd) throw new Error('malformed D-Bus header fields');
    reader.align(8);
    if (message.signature) message.body = splitSignature(message.signature).map((type) => read(reader, type));
    messages.push(message);
    used += total;
  }
  return { messages, used };
}

// --- the session bus --------------------------------------------------------------------------

/**
 * The socket path of the first unix: address in DBUS_SESSION_BUS_ADDRESS ("\0name" for an
 * abstract one), or null (none set, or only transports this reader does not speak).
 */
export function sessionBusPath(address: string | undefined): string | null {
  for (const entry of (address ?? '').split(';')) {
    const colon = entry.indexOf(':');
    if (entry.slice(0, colon) !== 'unix') continue;
    const keys = new Map(
      entry
        .slice(colon + 1)
        .split(',')
        .map((pair) => {
          const equals = pair.indexOf('=');
          return [pair.slice(0, equals), pair.slice(equals + 1)] as const;
        }),
    );
    const unescape = (value: string) => decodeURIComponent(value);
    try {
      const path = keys.get('path');
      if (path) return unescape(path);
      const abstract = keys.get('abstract');
      if (abstract) return `\0${unescape(abstract)}`;
    } catch {
      return null; // a malformed %-escape
    }
  }
  return null;
}

class DBusFailure extends Error {}

/** The socket's read buffer: a Secret Service reply fits many times over (a longer one arrives in parts). */
const READ_BUFFER_BYTES = 16 * 1024;

/** A connection to the session bus that sends method calls and awaits their replies. */
class BusConnection {
  private serial = 0;
  private pending = new Map<number, { resolve: (message: Message) => void; reject: (error: Error) => void }>();
  private buffer: Buffer = Buffer.alloc(0);
  private queued: Buffer[] = [];
  private authenticated = false;
  private closed = false;
  private failure: Error | undefined;

  private readonly socket: Socket;

  private constructor(path: string) {
    this.socket = lazyRequire('node:net').connect({
      path,
      // Reads go straight to receive(): no stream machinery (a Buffer and events) per read.
      onread: {
        buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES),
        callback: (bytes: number, buffer: Uint8Array) => {
          this.receive(Buffer.from(buffer.buffer, buffer.byteOffset, bytes));
          return true;
        },
      },
    });
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => {
      if (!this.closed) this.fail(new DBusFailure('the session bus closed the connection'));
    });
  }

  /** SASL EXTERNAL (D-Bus Specification, "Authentication Protocol"), pipelined with BEGIN and the first calls. */
  static open(path: string, uid: number): BusConnection {
    const bus = new BusConnection(path);
    bus.send(Buffer.from(`\0AUTH EXTERNAL ${Buffer.from(String(uid)).toString('hex')}\r\nBEGIN\r\n`, 'latin1'));
    return bus;
  }

  call(call: MethodCall): Promise<Message> {
    if (this.failure) return Promise.reject(this.failure);
    const serial = ++this.serial;
    return new Promise((resolve, reject) => {
      this.pending.set(serial, { resolve, reject });
      this.send(encodeMethodCall(call, serial));
    });
  }

  /**
   * What is sent in one tick goes out in one write of one buffer (the calls of one round
   * trip): fewer of the stream's write requests than cork() and a write each.
   */
  private send(bytes: Buffer): void {
    if (this.queued.length === 0) process.nextTick(() => this.flush());
    this.queued.push(bytes);
  }

  private flush(): void {
    const queued = this.queued;
    this.queued = [];
    if (!this.failure && !this.closed) this.socket.write(queued.length === 1 ? queued[0]! : Buffer.concat(queued));
  }

  close(): void {
    this.closed = true;
    this.socket.destroy();
  }

  fail(error: Error): void {
    this.failure ??= error;
    for (const { reject } of this.pending.values()) reject(this.failure);
    this.pending.clear();
    this.socket.destroy();
  }

  /** `chunk` is a view of the socket's read buffer, valid until this returns. */
  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    try {
      if (!this.authenticated) {
        const end = this.buffer.indexOf('\r\n');
        if (end < 0) {
          if (this.buffer.length > 512) throw new DBusFailure('the session bus sent no authentication answer');
          return;
        }
        const line = this.buffer.subarray(0, end).toString('latin1');
        if (!line.startsWith('OK ')) throw new DBusFailure(`the session bus refused authentication (${line.slice(0, 60)})`);
        this.authenticated = true;
        this.buffer = this.buffer.subarray(end + 2);
      }
      const { messages, used } = decodeMessages(this.buffer);
      this.buffer = this.buffer.subarray(used);
      for (const message of messages) {
        if ((message.type !== METHOD_RETURN && message.type !== ERROR) || message.replySerial === undefined) continue; // signals
        const waiter = this.pending.get(message.replySerial);
        if (!waiter) continue;
        this.pending.delete(message.replySerial);
        if (message.type === ERROR) waiter.reject(new DBusFailure(`D-Bus error ${message.errorName ?? '(unnamed)'}`));
        else waiter.resolve(message);
      }
    } catch (error) {
      this.fail(error instanceof Error ? error : new DBusFailure(String(error)));
    } finally {
      // What waits for more bytes is kept as a copy: the read buffer is reused.
      if (this.buffer.buffer === chunk.buffer) this.buffer = Buffer.from(this.buffer);
    }
  }
}

const SECRETS = 'org.freedesktop.secrets';
const SERVICE_PATH = '/org/freedesktop/secrets';

/**
 * The secret of the Secret Service item for `service` and `account`, read over a plain
 * session; null when there is none; undefined when the addon must answer (see the top).
 * `signal` aborts it (the caller's time limit).
 */
export async function readSecretServiceItem(
  service: string,
  account: string,
  options: { busAddress: string | undefined; uid: number; signal: AbortSignal },
): Promise<FastAnswer> {
  const path = sessionBusPath(options.busAddress);
  if (!path || options.signal.aborted) return undefined;
  const bus = BusConnection.open(path, options.uid);
  const onAbort = () => bus.fail(new DBusFailure('aborted'));
  options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const secretsCall = (member: string, signature: string, body: Value[], objectPath = SERVICE_PATH, iface = 'org.freedesktop.Secret.Service') =>
      bus.call({ destination: SECRETS, path: objectPath, interface: iface, member, signature, body });
    // One round trip: the bus requires Hello first, and the rest go out with it.
    const [, session, search] = await Promise.all([
      bus.call({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'Hello' }),
      secretsCall('OpenSession', 'sv', ['plain', { signature: 's', value: '' }]),
      secretsCall('SearchItems', 'a{ss}', [
        [
          ['service', service],
          ['username', account],
        ],
      ]),
    ]);
    const sessionPath = session.body[1] as string;
    const [unlocked, locked] = search.body as [string[], string[]];
    if (unlocked.length + locked.length === 0) return null;
    // Two (the addon's "ambiguous" error) or a locked one (unlocking may prompt): the addon's.
    if (unlocked.length !== 1 || locked.length !== 0) return undefined;
    const reply = await secretsCall('GetSecret', 'o', [sessionPath], unlocked[0]!, 'org.freedesktop.Secret.Item');
    const [, , value] = reply.body[0] as [string, Buffer, Buffer, string];
    return isUtf8(value) ? value.toString('utf8') : undefined; // not UTF-8: the addon's error
  } catch {
    return undefined;
  } finally {
    options.signal.removeEventListener('abort', onAbort);
    bus.close();
  }
}
