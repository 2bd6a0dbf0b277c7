// Helpers shared by the resource commands' parse steps (calls, links, lines, chats,
// translate): reading commander's flags and turning a validator's refusal into a usage
// error. What their handlers share (requests, lists, billing notice) is in
// src/commands/shared/resources.ts.
import { UsageError } from '../../errors.js';
import { InvalidValueError, parseLimit } from '../../validate/index.js';

export type Flags = Record<string, unknown>;

/** Runs validators; a refused value becomes a usage error (exit 2) with the validator's message. */
export function validated<T>(validate: () => T): T {
  try {
    return validate();
  } catch (error) {
    if (error instanceof InvalidValueError) throw new UsageError(error.message);
    throw error;
  }
}

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
}

/** `--limit N` (1–100) or `--all`; not both, because they contradict each other. */
export function parseListFlags(flags: Flags): ListFlags {
  const all = booleanFlag(flags, 'all');
  const limitText = stringFlag(flags, 'limit');
  if (all && limitText !== undefined) {
    throw new UsageError('give either --limit N (at most N objects) or --all (every object), not both');
  }
  if (limitText === undefined) return { all };
  return { all, limit: validated(() => parseLimit(limitText)) };
}
