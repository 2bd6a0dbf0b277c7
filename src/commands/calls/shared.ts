// Helpers shared by the resource commands' parse steps (calls, links, lines, chats,
// translate): reading commander's flags and turning a validator's refusal into a usage
// error. What their handlers share (requests, lists, billing notice) is in
// src/commands/shared/resources.ts.
import { UsageError } from '../../errors.js';

export type Flags = Record<string, unknown>;

/** A string flag, or undefined when absent. The name must be one the command declares. */
export function stringFlag<F extends Flags>(flags: F, name: keyof F & string): string | undefined {
  const value = flags[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  throw new UsageError(`--${kebab(name)} needs a value`);
}

export function booleanFlag<F extends Flags>(flags: F, name: keyof F & string): boolean {
  return flags[name] === true;
}

/** Commander hands a variadic argument as a nested array; accept both shapes. */
export function positional(args: readonly unknown[]): string[] {
  return args.flat().filter((arg): arg is string => typeof arg === 'string');
}

/** The one required positional argument, e.g. an ID. */
export function requiredArg(args: readonly unknown[], index: number, name: string, example: string): string {
  const value = positional(args)[index];
  if (value === undefined || value === '') throw new UsageError(`missing ${name}: e.g. ${example}`);
  return value;
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}

export interface ListFlags {
  /** Objects to show: one request with this page size. */
  limit?: number;
  /** Every object, following cursors (pages of 100). */
  all: boolean;
  /** The page after the one that ended with this cursor (the service's, opaque). */
  cursor?: string;
}

/** `--limit N` (1–100, read by its kind) or `--all`; not both, because they contradict each other. */
export function parseListFlags(flags: { limit?: number; all?: boolean; cursor?: string }): ListFlags {
  const all = flags.all === true;
  if (all && flags.limit !== undefined) {
    throw new UsageError('give either --limit N (at most N objects) or --all (every object), not both');
  }
  const list: ListFlags = flags.limit === undefined ? { all } : { all, limit: flags.limit };
  if (flags.cursor !== undefined) list.cursor = flags.cursor;
  return list;
}
