// Every file svc writes names its format version, so that two versions of svc meeting one file
// (an npm install and the .deb on one machine, or a downgrade) never misread it: a newer svc
// reads every older format; an older svc refuses a newer one by name and leaves it untouched
// (docs/design.md, Distribution). Shared by the CLI's files and the emulator's state file.
import { svcVersion } from './version.js';

/** How a file's version field compares with the newest format this svc writes. */
export type FormatVerdict = { kind: 'readable'; version: number } | { kind: 'newer'; version: number } | { kind: 'invalid' };

/**
 * Reads a version field. `absent` is the version a file without the field is (a format that
 * shipped before the field did), or undefined when the field has always been written.
 */
export function formatVersion(value: unknown, newest: number, absent?: number): FormatVerdict {
  if (value === undefined && absent !== undefined) return { kind: 'readable', version: absent };
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) return { kind: 'invalid' };
  return value > newest ? { kind: 'newer', version: value } : { kind: 'readable', version: value };
}

/** The words for a file from a newer svc: what it is, both versions, and what to do. */
export function newerFormatMessage(what: string, path: string, found: number, newest: number): { message: string; hint: string } {
  return {
    message: `${what} ${path} is in format version ${found}, written by a newer svc; this svc (${svcVersion()}) reads format versions up to ${newest}. It was left untouched`,
    hint: 'run the newer svc (with both an npm install and the .deb on PATH, `which -a svc` lists them), or upgrade this one',
  };
}
