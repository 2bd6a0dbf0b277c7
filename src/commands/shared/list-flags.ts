// The list commands' `--limit N` / `--all` (calls, links, lines, chats, messages, events).
import { UsageError } from '../../errors.js';

export interface ListFlags {
  /** Objects to show: one request with this page size. */
  limit?: number;
  /** Every object, following cursors (pages of 100). */
  all: boolean;
}

/** `--limit N` (1–100, read by its kind) or `--all`; not both, because they contradict each other. */
export function parseListFlags(flags: { limit?: number; all?: boolean }): ListFlags {
  const all = flags.all === true;
  if (all && flags.limit !== undefined) {
    throw new UsageError('give either --limit N (at most N objects) or --all (every object), not both');
  }
  return flags.limit === undefined ? { all } : { all, limit: flags.limit };
}
