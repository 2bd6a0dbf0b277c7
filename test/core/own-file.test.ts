import { describe, expect, it } from 'vitest';
import { chmodSync, closeSync, constants, mkdtempSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openOwnFile, OwnFileRefusedError, readOwnFile, tightenOwnFile } from '../../src/files/own-file.js';

const dir = () => mkdtempSync(join(tmpdir(), 'svc-own-'));
const options = { what: 'the test file' };

describe('files at svc’s own paths', () => {
  it('reads a regular file, and says null when there is none', () => {
    const d = dir();
    writeFileSync(join(d, 'f'), 'hello');
    expect(readOwnFile(join(d, 'f'), options)).toBe('hello');
    expect(readOwnFile(join(d, 'missing'), options)).toBeNull();
  });

  it('refuses a FIFO unread instead of hanging', () => {
    const d = dir();
    execFileSync('mkfifo', [join(d, 'fifo')]);
    expect(() => readOwnFile(join(d, 'fifo'), options)).toThrow(/is a FIFO, not a regular file/);
  });

  it('refuses a link (to a device or a file) without following it, and leaves its target as it was', () => {
    const d = dir();
    const target = join(d, 'target');
    writeFileSync(target, '{}');
    chmodSync(target, 0o644);
    symlinkSync(target, join(d, 'link'));
    symlinkSync('/dev/zero', join(d, 'zero'));
    expect(() => readOwnFile(join(d, 'link'), options)).toThrow(OwnFileRefusedError);
    expect(() => readOwnFile(join(d, 'zero'), options)).toThrow(/symbolic link/);
    expect(statSync(target).mode & 0o777).toBe(0o644);
  });

  it('refuses a file over the bound unread', () => {
    const d = dir();
    writeFileSync(join(d, 'big'), Buffer.alloc(2048));
    expect(() => readOwnFile(join(d, 'big'), { ...options, maxBytes: 1024 })).toThrow(/larger than 1 KiB/);
  });

  it('tightens the opened file itself, and only when others may read it', () => {
    const d = dir();
    const path = join(d, 'secret');
    writeFileSync(path, 'x');
    chmodSync(path, 0o644);
    const fd = openOwnFile(path, constants.O_RDWR, options);
    try {
      expect(tightenOwnFile(fd)).toBe(0o644);
      expect(tightenOwnFile(fd)).toBeNull();
    } finally {
      closeSync(fd);
    }
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
