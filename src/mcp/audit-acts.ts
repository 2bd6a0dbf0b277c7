// The acts file: every call that acted, one line each, chained by hashes and never rotated, with
// a head holding its last line's hash and its count, so removing or cutting it shows.
import { closeSync, constants, fstatSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { withFileLockSync } from '../config/lock.js';
import { openOwnFile, readOwnFile, tightenOwnFile } from '../files/own-file.js';
import {
  ACTS_FILE,
  ACTS_HEAD_FILE,
  AUDIT_FORMAT,
  HASH,
  HEAD_BYTES,
  MAX_READ_BYTES,
  hashOf,
  parsedLines,
  readLogFile,
  writeWhole,
  type ActLine,
  type AuditEntry,
  type ReadLine,
} from './audit-format.js';

/** The acts file's head: the hash of its last line and how many it has, so removing or cutting the file shows. */
interface ActsHead {
  last: string;
  lines: number;
  /** What the first line kept links to: '' unless the person accepted a file cut at its start. */
  first?: string;
}

function readActsHead(dir: string): ActsHead | null {
  const text = readOwnFile(join(dir, ACTS_HEAD_FILE), { what: 'the MCP acts head', maxBytes: 4096 })?.trim();
  if (text === undefined) return null;
  try {
    const { last, lines, first } = JSON.parse(text) as Partial<ActsHead>;
    return {
      last: typeof last === 'string' && HASH.test(last) ? last : '',
      lines: Number.isSafeInteger(lines) ? lines! : -1,
      ...(typeof first === 'string' && HASH.test(first) ? { first } : {}),
    };
  } catch {
    return { last: '', lines: -1 };
  }
}

/** Appends one act to the acts file in `dir`, chained to its last line, and moves its head on; under the file's lock. */
export function appendAct(dir: string, entry: AuditEntry & { call: number }): Promise<void> {
  const path = join(dir, ACTS_FILE);
  return withFileLockSync(path, () => {
    const head = readActsHead(dir) ?? { last: '', lines: 0 };
    const fd = openOwnFile(path, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, { what: 'the MCP acts', maxBytes: MAX_READ_BYTES });
    try {
      tightenOwnFile(fd);
      const text = JSON.stringify({ version: AUDIT_FORMAT, prev: head.last, ...entry });
      writeWhole(fd, Buffer.from(`${text}\n`), fstatSync(fd).size, 'the MCP acts');
      const headFd = openOwnFile(join(dir, ACTS_HEAD_FILE), constants.O_WRONLY | constants.O_CREAT, { what: 'the MCP acts head' });
      try {
        tightenOwnFile(headFd);
        const moved = { last: hashOf(text), lines: Math.max(0, head.lines) + 1, ...(head.first ? { first: head.first } : {}) };
        const bytes = Buffer.from(`${JSON.stringify(moved).padEnd(HEAD_BYTES - 1)}\n`);
        if (writeSync(headFd, bytes, 0, bytes.length, 0) !== bytes.length) throw new Error('the MCP acts head could not be written whole (is the disk full?)');
      } finally {
        closeSync(headFd);
      }
    } finally {
      closeSync(fd);
    }
  });
}

/** The acts head moved to the acts file as it is (the person accepted it). */
export function pinActs(dir: string): void {
  const lines = readActLines(dir);
  const fd = openOwnFile(join(dir, ACTS_HEAD_FILE), constants.O_WRONLY | constants.O_CREAT, { what: 'the MCP acts head' });
  try {
    tightenOwnFile(fd);
    const prev = (lines[0]?.value as Partial<ActLine> | undefined)?.prev;
    const pinned = { last: lines.length ? hashOf(lines.at(-1)!.text) : '', lines: lines.length, ...(prev ? { first: prev } : {}) };
    const bytes = Buffer.from(`${JSON.stringify(pinned).padEnd(HEAD_BYTES - 1)}\n`);
    if (writeSync(fd, bytes, 0, bytes.length, 0) !== bytes.length) throw new Error('the MCP acts head could not be written whole (is the disk full?)');
  } finally {
    closeSync(fd);
  }
}

/** The acts kept, oldest first, as written and parsed. */
export function readActLines(dir: string): ReadLine[] {
  const path = join(dir, ACTS_FILE);
  return parsedLines(readLogFile(path) ?? '', path);
}

/** The acts file checked whole: each line chained to the one before, the last and the count the head's. */
export function verifyActs(dir: string): string[] {
  const lines = readActLines(dir);
  const head = readActsHead(dir);
  const problems: string[] = [];
  lines.forEach(({ value }, index) => {
    if (value === undefined) problems.push(`${ACTS_FILE} line ${index + 1} is not a line svc wrote (it does not parse)`);
    const expected = index === 0 ? (head?.first ?? '') : hashOf(lines[index - 1]!.text);
    if ((value as Partial<ActLine> | undefined)?.prev !== expected)
      problems.push(`${ACTS_FILE} line ${index + 1} does not follow ${index === 0 ? 'nothing (lines were removed from its start)' : `line ${index}`}`);
  });
  if (!head) {
    if (lines.length) problems.push(`the acts' head file (${ACTS_HEAD_FILE}) is missing`);
    return problems;
  }
  if (head.lines !== lines.length || (lines.length > 0 && head.last !== hashOf(lines.at(-1)!.text)))
    problems.push(
      lines.length === 0
        ? `${ACTS_FILE} was removed: svc recorded ${head.lines} acts in it`
        : `${ACTS_FILE} holds ${lines.length} acts, but svc wrote ${head.lines} (it was cut, or a line was changed)`,
    );
  return problems;
}
