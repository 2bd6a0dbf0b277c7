// The events tail's pipeline, from a stream message to its sinks: gap frames → position,
// dedupe → filter → checkpoint and record → stdout and forwarding (docs/design.md "Commands are
// thin"). Pure of the network and the terminal: it is handed its sinks, so it is tested alone
// (test/events/pipeline.test.ts); `events tail` (tail.ts) wires it to follow() and the context.
import type { MessageVerdict } from '../api/reconnect.js';
import { SeenIds } from '../api/resume.js';
import type { SseMessage } from '../api/sse.js';
import { escapeJsonControls, hasControl, sanitizeLine, sanitizeText } from '../io/sanitize.js';
import { START_POSITION, type HandledTracker } from './checkpoint.js';
import type { Deliveries } from './deliveries.js';
import { matchesType, type TypePattern } from './filter.js';
import { parseEvent, type ApiEvent } from './format.js';
import { GapError, gapWarning, isGapFrame, parseGap, UnknownSinceError } from './gap.js';
import type { CliError } from '../errors.js';
import type { EventRecorder } from './record.js';

/** Where the lines go: a stream's write (stdout), which may throw EPIPE once its reader is gone. */
export interface LineSink {
  write(text: string): void;
}

/**
 * stdout for NDJSON at tens of thousands of events a second: lines are gathered and
 * written once per turn of the event loop (setImmediate runs right after the bytes
 * that carried them are parsed), so every event is printed as soon as its chunk is read.
 */
export class LineWriter {
  private lines: string[] = [];
  private scheduled = false;
  failure: unknown;
  closed = false;

  /** Sequence number (HandledTracker) of the last line pushed. */
  private lastSeq: number | undefined;

  constructor(
    private readonly out: LineSink,
    private readonly onFailure: () => void,
    private readonly onWritten?: (seq: number) => void,
  ) {}

  push(line: string, seq?: number): void {
    if (this.closed) return;
    this.lines.push(line);
    if (seq !== undefined) this.lastSeq = seq;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Everything up to `seq` (a position, no line of its own) is handled once the lines before it are written. */
  mark(seq: number): void {
    if (this.lines.length === 0) this.onWritten?.(seq);
    else this.lastSeq = seq;
  }

  flush(): void {
    this.scheduled = false;
    if (this.closed || this.lines.length === 0) return;
    const text = this.lines.join('\n') + '\n';
    this.lines = [];
    try {
      this.out.write(text);
      if (this.lastSeq !== undefined) this.onWritten?.(this.lastSeq);
    } catch (error) {
      // A closed pipe (`| head`) ends the tail quietly; anything else is a failure.
      this.closed = true;
      if (!isBrokenPipe(error)) this.failure = error;
      this.onFailure();
    }
  }
}

export function isBrokenPipe(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

/** How a resume is told: after an event, or from the first one (the position `start`). */
export function resumingFrom(position: string): string {
  return position === START_POSITION ? 'resuming from the first event' : `resuming after ${position}`;
}

export interface TailPipelineOptions {
  /** NDJSON lines (the event as the service sent it) rather than formatted ones. */
  json: boolean;
  types: TypePattern[];
  /** Stop after this many printed events. */
  maxEvents?: number;
  /** A gap stops the pipeline (gapFailure) instead of a warning. */
  failOnGap: boolean;
  /**
   * The --since id the stream was asked to resume after: a gap naming it on the first connection
   * stops the pipeline with nothing replayed (the id is unknown to the service). On a later one it
   * is the ordinary warning: the service knew the id, and it has since left retention.
   */
  since?: string;
  out: LineWriter;
  /** One line of stderr (a warning), without its newline. */
  warn: (line: string) => void;
  /** A human line for an event (not with json). */
  formatLine: (event: ApiEvent) => string;
  /**
   * `--jq`: filters one event's line (src/io/jq-filter.ts), resolving to whether the filter
   * printed anything; the lines then bypass `out`.
   */
  filter?: (json: string) => Promise<boolean>;
  recorder?: EventRecorder;
  /** The checkpoint's view of what is handled (printed, and settled by every route). */
  tracker?: HandledTracker;
  deliveries?: Deliveries;
}

/** The tail's per-message steps, as follow()'s handlers (onMessage, onPosition, onUnusableId). */
export class TailPipeline {
  /** Events printed (matching the --type filter and, with --jq, for which the filter printed something). */
  printed = 0;
  /** Set when a gap stopped the pipeline (--fail-on-gap). */
  gapFailure: CliError | undefined;
  private readonly seen = new SeenIds();
  /** Only what this run handed on: a --since or checkpoint id is named by the gap frame itself. */
  private lastHandedOn: string | undefined;
  private unusableIdReported = false;
  /**
   * Connections the service answered. The first answer to a --since resume opens with its gap
   * frame when the id is unknown, so once a connection was answered without stopping, the id was
   * known, even if (a --type filter letting nothing through) no event followed.
   */
  private connectionsAnswered = 0;

  constructor(private readonly opts: TailPipelineOptions) {}

  readonly onMessage = (message: SseMessage): MessageVerdict | Promise<MessageVerdict> => {
    const { opts } = this;
    if (isGapFrame(message.event) && !message.id) return this.gap(message.data);
    // Every frame is checked against the contract's event shape: one that is not an event is
    // never printed, recorded, forwarded or counted.
    const event = parseEvent(message.data);
    if (!event) return this.skip(message.data);
    const id = message.id || event.id;
    const type = message.event || event.type;
    if (!this.seen.add(id)) return 'continue';
    // Passed on as the service wrote it, unless it spans lines or holds a raw control
    // character (DEL, C1, or C0, which JSON forbids raw): then re-serialised, inert.
    let line = message.data;
    if (line.includes('\n') || hasControl(line)) line = escapeJsonControls(JSON.stringify(event));
    this.lastHandedOn = id;
    opts.recorder?.append(line);
    const { tracker, deliveries } = opts;
    if (!matchesType(type, opts.types)) {
      // Not wanted, so handled: the checkpoint may move past it.
      tracker?.printedThrough(tracker.add(id, 0));
      return 'continue';
    }
    const routes = deliveries ? deliveries.routesFor(type) : 0;
    const seq = tracker?.add(id, routes);
    // Forwarding: handled once every route settled it; printing does not hold it back.
    if (tracker && seq !== undefined && deliveries) tracker.printedThrough(seq);
    if (routes) deliveries!.enqueue(id, type, line);
    if (opts.filter) {
      // --jq: each event filtered alone, before the next is read; it counts if the filter printed.
      return opts.filter(`${line}\n`).then((printed) => {
        if (tracker && seq !== undefined && !deliveries) tracker.printedThrough(seq);
        return this.counted(printed);
      });
    }
    opts.out.push(opts.json ? line : opts.formatLine(event), seq);
    return this.counted(true);
  };

  /** After an event was handed on: counted if it printed anything; stop at --max-events. */
  private counted(printed: boolean): MessageVerdict | Promise<MessageVerdict> {
    const { opts } = this;
    if (printed) this.printed++;
    if (opts.out.closed) return 'stop';
    const verdict: MessageVerdict = opts.maxEvents !== undefined && this.printed >= opts.maxEvents ? 'stop' : 'continue';
    // Backpressure: with a forward queue full, read the next event only once there is room.
    if (verdict === 'continue' && opts.deliveries?.full) return opts.deliveries.room().then(() => verdict);
    return verdict;
  }

  /**
   * A position (the frame a stream opens with before any event): the checkpoint keeps it, so a
   * tail killed before its first event resumes from there and misses nothing.
   */
  readonly onPosition = (id: string): void => {
    const { tracker, out } = this.opts;
    if (tracker) out.mark(tracker.add(id, 0));
  };

  /** A connection was answered (its headers): the stream's messages on it come next. */
  readonly onAnswered = (): void => {
    this.connectionsAnswered++;
  };

  /** An id that cannot be sent back to resume: said once, so a server sending only such ids cannot flood stderr. */
  readonly onUnusableId = (id: string, resumesAfter: string | undefined): void => {
    if (this.unusableIdReported) return;
    this.unusableIdReported = true;
    this.opts.out.flush();
    this.opts.warn(
      `warning: the service sent event id "${sanitizeLine(id)}", which holds a control character or a character beyond Latin-1 and cannot be sent back to resume; ` +
        `a reconnection resumes ${resumesAfter ? resumingFrom(resumesAfter).replace(/^resuming /, '') : 'from the live events'} (events after it are not printed twice; further such ids are not reported)`,
    );
  };

  private gap(data: string): MessageVerdict {
    const gap = parseGap(data);
    if (this.opts.since !== undefined && this.connectionsAnswered <= 1 && gap.last_event_id === this.opts.since) {
      this.gapFailure = new UnknownSinceError(this.opts.since);
      return 'stop';
    }
    const warning = gapWarning(gap, this.lastHandedOn);
    if (this.opts.failOnGap) {
      this.gapFailure = new GapError(warning);
      return 'stop';
    }
    this.opts.out.flush();
    this.opts.warn(sanitizeText(warning));
    return 'continue';
  }

  private skip(data: string): MessageVerdict {
    this.opts.out.flush();
    const start = data === '' ? '(empty)' : `${sanitizeLine(data.slice(0, 120))}${data.length > 120 ? '…' : ''}`;
    this.opts.warn(`warning: skipped a stream message that is not an event: ${start}`);
    return 'continue';
  }
}
