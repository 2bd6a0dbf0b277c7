// What keeps a tail alive across broken connections, as pure pieces: the heartbeat and a
// bounded memory of the ids already printed (the delay before a reconnect, and the jitter's
// randomness, are retry.ts's one backoff).

export const HEARTBEAT_TIMEOUT_MS = 45_000;

export { random01From } from './retry.js';

/**
 * Ids already delivered, remembered for the last `capacity` events. Resuming with
 * Last-Event-ID should never repeat an event; this is the defence if a server does.
 */
export class SeenIds {
  private readonly ids = new Set<string>();
  private readonly order: string[] = [];
  private head = 0;

  constructor(private readonly capacity = 10_000) {}

  /** True the first time an id is offered, false for a repeat. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    this.order.push(id);
    if (this.order.length - this.head > this.capacity) {
      this.ids.delete(this.order[this.head]!);
      this.head++;
      // Compact now and then instead of shifting on every eviction.
      if (this.head > this.capacity) {
        this.order.splice(0, this.head);
        this.head = 0;
      }
    }
    return true;
  }

  get size(): number {
    return this.ids.size;
  }
}

/** "3.2 s", "1 min 5 s": how long a tail was away, for the reconnect line. */
export function formatAway(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds ? `${minutes} min ${seconds} s` : `${minutes} min`;
}
