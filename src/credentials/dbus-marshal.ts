// D-Bus marshalling (the D-Bus specification, "Type System" and "Marshaling"): values to bytes
// and back, aligned as the specification says, in either byte order. dbus-wire.ts builds its
// messages of them.
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
export class Writer {
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
export class Reader {
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
