// The `gap` frame (docs/contract.md "Events"): a resume whose Last-Event-ID is no longer
// retained, or unknown, opens with `event: gap` (no id) and
// `data: {"last_event_id":"…","resumed_from":"<oldest retained id>"|null}`. Events between
// the two may be missing, and the user must be told: a warning on stderr, or with
// --fail-on-gap an exit 1 so that a supervisor can act.
import { CliError, EXIT } from '../errors.js';

export interface Gap {
  last_event_id: string | null;
  resumed_from: string | null;
}

export function isGapFrame(event: string | undefined): boolean {
  return event === 'gap';
}

export function parseGap(data: string): Gap {
  try {
    const value = JSON.parse(data) as Partial<Record<keyof Gap, unknown>>;
    const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
    return { last_event_id: text(value.last_event_id), resumed_from: text(value.resumed_from) };
  } catch {
    return { last_event_id: null, resumed_from: null };
  }
}

const safe = (id: string) => id.replace(/[^\w.-]/g, '?');

/**
 * `lastDelivered`: what this client delivered last, if anything; else the gap names what the
 * client asked to resume after (--since, a checkpoint, or `start`), which is said as such.
 */
export function gapWarning(gap: Gap, lastDelivered: string | undefined, what = 'events'): string {
  const asked = gap.last_event_id ?? undefined;
  const after = lastDelivered
    ? `after ${safe(lastDelivered)} (the last one delivered)`
    : asked === 'start'
      ? 'from the first one'
      : asked
        ? `after ${safe(asked)} (where this stream was asked to resume)`
        : 'before this point';
  const from = gap.resumed_from ? `; resuming from ${safe(gap.resumed_from)}, the oldest it still retains` : '; it retains none older than the live ones';
  return `warning: the service no longer retains the ${what} ${after}: later ${what} may be missing${from}`;
}

/**
 * `--since ID` and the service has no such event (a typo must not replay up to 10,000 events
 * and forward them again): nothing is replayed; `--since start` asks for every retained one.
 */
export class UnknownSinceError extends CliError {
  constructor(since: string) {
    super(
      `--since ${safe(since)}: the service does not know this event (no event it retains for this organization and mode has that id, so it is mistyped, of another organization or mode, or older than the last 10,000); nothing was replayed`,
      EXIT.notFound,
      'check the id (svc events list); to replay every event the service retains, use --since start; to follow new events only, leave --since out',
    );
  }
}

export class GapError extends CliError {
  constructor(message: string) {
    super(message.replace(/^warning: /, ''), EXIT.failure, 'without --fail-on-gap the stream goes on after this warning');
  }
}
