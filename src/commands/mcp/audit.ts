// The audit log of `svc mcp`: one JSON line per tool call (time, tool, arguments with secrets
// redacted, mode, the price asked, the result code, the ids it touched) in svc's config folder,
// mode 0600, bounded: past MAX_BYTES the file becomes `.1` (the one before is dropped), so the
// log never holds more than twice that. Written with the file's own checks (src/config/own-file.ts).
import { closeSync, constants, fstatSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { openOwnFile, readOwnFile, tightenOwnFile } from '../../config/own-file.js';
import { redactText } from '../../io/redact.js';
import { ID_PREFIX } from '../../contract/constants.js';

/** An object id of the API (docs/contract.md "Conventions"), anywhere in a text. */
const ID = new RegExp(`\\b(?:${Object.values(ID_PREFIX).join('|')})[A-Za-z0-9]{4,}\\b`, 'g');

export const AUDIT_FILE = 'mcp-audit.ndjson';
export const MAX_BYTES = 512 * 1024;
/** An argument's text longer than this is cut in the log (an assistant may send 5,000 characters to translate). */
const MAX_LOGGED_STRING = 200;

export interface AuditEntry {
  time: string;
  tool: string;
  args: Record<string, unknown>;
  mode: 'test' | 'live';
  /** What the call was priced at before it was made, in cents; null when not billed. */
  price_asked: number | null;
  /** `ok`, or svc's stable error code (src/cli/error-report.ts), or `spend_cap`. */
  result: string;
  /** The object ids the call named or got back. */
  ids: string[];
  /** Live sessions: the session's total after the call, in cents, and the balance the service reported. */
  spent?: number;
  balance?: number;
}

/** Argument values as they may be kept: secrets redacted, long texts cut. */
export function loggedArgs(args: Record<string, unknown>): Record<string, unknown> {
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string') {
      const redacted = redactText(value);
      return redacted.length > MAX_LOGGED_STRING ? `${redacted.slice(0, MAX_LOGGED_STRING)}… (${redacted.length} characters)` : redacted;
    }
    if (Array.isArray(value)) return value.slice(0, 20).map(clean);
    return value;
  };
  return Object.fromEntries(Object.entries(args).map(([key, value]) => [key, clean(value)]));
}

/** Ids in a command's JSON output or its arguments: `call_…`, `chat_…`, `evt_…`, … */
export function idsIn(...values: unknown[]): string[] {
  const ids = new Set<string>();
  const text = values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v ?? null))).join(' ');
  for (const [id] of text.matchAll(ID)) {
    if (ids.size >= 50) break;
    ids.add(id);
  }
  return [...ids];
}

export class AuditLog {
  private fd: number | null = null;
  private size = 0;
  readonly path: string;

  constructor(dir: string) {
    this.path = join(dir, AUDIT_FILE);
  }

  append(entry: AuditEntry): void {
    const line = Buffer.from(`${JSON.stringify(entry)}\n`);
    if (this.fd !== null && this.size + line.length > MAX_BYTES) {
      closeSync(this.fd);
      this.fd = null;
      renameSync(this.path, `${this.path}.1`);
    }
    if (this.fd === null) {
      this.fd = openOwnFile(this.path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, { what: 'the MCP audit log' });
      tightenOwnFile(this.fd);
      this.size = fstatSync(this.fd).size;
    }
    writeSync(this.fd, line);
    this.size += line.length;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

/** Every entry kept, oldest first (the rotated file, then the current one); lines that do not parse are skipped. */
export function readAudit(dir: string): AuditEntry[] {
  const path = join(dir, AUDIT_FILE);
  const entries: AuditEntry[] = [];
  for (const file of [`${path}.1`, path]) {
    const text = readOwnFile(file, { what: 'the MCP audit log', maxBytes: MAX_BYTES * 2 });
    for (const line of text?.split('\n') ?? []) {
      if (!line) continue;
      try {
        entries.push(JSON.parse(line) as AuditEntry);
      } catch {
        // A line cut by a crash mid-write: the others still count.
      }
    }
  }
  return entries;
}
