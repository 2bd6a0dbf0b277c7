// The list commands' `--limit N` / `--all` / `--cursor` (calls, links, lines, chats, messages, events).
import { UsageError } from '../errors.js';

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
