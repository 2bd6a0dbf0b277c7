// What `svc events tail` writes to, and how it ends: its files (checkpoint, dead letters,
// record) and deliveries opened before anything is consumed, then flushed and synced, and the
// exit policy once the stream stopped, timed out or was interrupted.
import type { Context } from '../context.js';
import type { ForwardRoute } from './routes.js';
import { CliError, EXIT, NetworkError } from '../errors.js';
import { isResumableId, type FollowResult } from '../api/reconnect.js';
import { CheckpointWriter, HandledTracker, START_POSITION } from './checkpoint.js';
import { openDeliveries, type Deliveries } from './deliveries.js';
import { checkDeadLetterFile, lettersWhere } from './dead-letter.js';
import { checkAppendFile, EventRecorder } from './record.js';
import { formatAway } from '../api/resume.js';
import { sanitizeText } from '../io/sanitize.js';
import { isBrokenPipe, LineWriter, TailPipeline } from './pipeline.js';

/** What of the tail's options its sinks and its end read (src/commands/events/tail.ts TailOptions). */
export interface SinkOptions {
  routes: ForwardRoute[];
  forwardHeaders: Record<string, string>;
  deadLetter?: string;
  record?: string;
  checkpoint?: string;
  deadlineMs?: number;
}

export interface Sinks {
  out: LineWriter;
  recorder?: EventRecorder;
  tracker?: HandledTracker;
  deliveries?: Deliveries;
  checkpoint?: CheckpointWriter;
}

/**
 * The files it writes are opened (or tried) before anything is consumed: a path that cannot
 * be written fails here, naming it, rather than after events were read.
 */
export async function openSinks(opts: SinkOptions, ctx: Context, signal: AbortSignal, onStdoutClosed: () => void): Promise<Sinks> {
  const checkpoint = opts.checkpoint ? CheckpointWriter.open(opts.checkpoint, () => ctx.clock.now()) : undefined;
  if (opts.deadLetter) checkDeadLetterFile(opts.deadLetter);
  if (opts.record) checkAppendFile('--record', opts.record);
  // An id that cannot be resumed from is not stored: the checkpoint stays at the last one that can be.
  const tracker = checkpoint ? new HandledTracker((id) => isResumableId(id) && checkpoint.write(id)) : undefined;
  const out = new LineWriter(ctx.io.stdout, onStdoutClosed, tracker ? (seq) => tracker.printedThrough(seq) : undefined);
  const recorder = opts.record ? EventRecorder.open(opts.record) : undefined;
  const deliveries = await openDeliveries(ctx, opts, signal, tracker ? (id: string) => tracker.settled(id) : undefined);
  return {
    out,
    ...(checkpoint ? { checkpoint } : {}),
    ...(tracker ? { tracker } : {}),
    ...(recorder ? { recorder } : {}),
    ...(deliveries ? { deliveries } : {}),
  };
}

/** How the tail ends: the exit policy once the stream stopped, timed out or was interrupted. */
export async function finish(
  result: FollowResult,
  opts: SinkOptions,
  ctx: Context,
  sinks: Sinks,
  pipeline: TailPipeline,
  deadlineReached: boolean,
): Promise<void> {
  const { out, deliveries, checkpoint } = sinks;
  out.flush();
  if (out.failure) throw out.failure;
  // A closed stdout ends the tail quietly with 0: either a write reported EPIPE here, or the
  // process runtime aborted ctx.signal with an EPIPE-coded reason (Ctrl-C aborts without one).
  if (out.closed || isBrokenPipe(ctx.signal.reason)) {
    checkpoint?.sync();
    return;
  }
  if (result.outcome === 'stopped') {
    if (deliveries) {
      await deliveries.drain();
      out.flush();
    }
    checkpoint?.sync();
    if (pipeline.gapFailure) throw pipeline.gapFailure;
    if (deliveries && deliveries.gaveUp > 0) throw new DeliveriesGivenUpError(deliveries.gaveUp, deliveries.lettersLost, opts.deadLetter);
    return;
  }
  checkpoint?.sync();
  if (deadlineReached && result.outcome !== 'timed-out') {
    throw new NetworkError(
      `--timeout ${formatAway(opts.deadlineMs!)} passed before the tail ended (${pipeline.printed} event${pipeline.printed === 1 ? '' : 's'} printed); giving up`,
      result.lastEventId && result.lastEventId !== START_POSITION ? `restart with --since ${result.lastEventId} to miss nothing` : undefined,
    );
  }
  if (result.outcome === 'timed-out') {
    throw new NetworkError(
      `nothing from the event stream for ${formatAway(result.awayMs)} (--idle-timeout; last: ${sanitizeText(result.reason)}); giving up`,
      opts.checkpoint
        ? `check the service and the network; restarting with the same --checkpoint misses nothing the service still retains`
        : result.lastEventId && result.lastEventId !== START_POSITION
          ? `check the service and the network; restart with --since ${result.lastEventId} to miss nothing`
          : 'check the service, the base URL (--base-url / SVC_BASE_URL) and the network',
    );
  }
  // Stopped by the --jq filter's failure: jq's words are the last on stderr (the runner ends with its status).
  if (ctx.signal.reason instanceof CliError) return;
  // Ctrl-C: a summary; the runner (src/cli/run.ts) makes the exit code EXIT.interrupted.
  const forwarded = deliveries
    ? `, ${deliveries.delivered} forwarded, ${deliveries.failed} not delivered, ${deliveries.unsent} still queued (not forwarded)`
    : '';
  const { printed } = pipeline;
  ctx.io.stderr.write(
    `\nstopped: ${printed} event${printed === 1 ? '' : 's'}, ${result.reconnects} reconnect${result.reconnects === 1 ? '' : 's'}${forwarded}` +
      `${result.lastEventId && result.lastEventId !== START_POSITION ? `; last ${result.lastEventId}` : ''}\n`,
  );
}

/** Exit 1 when any delivery was given up (a supervisor or CI sees it). */
class DeliveriesGivenUpError extends CliError {
  constructor(count: number, lettersLost: number, deadLetter: string | undefined) {
    super(
      `${count} deliver${count === 1 ? 'y was' : 'ies were'} given up after retries; ${lettersWhere(deadLetter, count, lettersLost)}`,
      EXIT.failure,
      !deadLetter
        ? 'add --dead-letter FILE to keep them'
        : lettersLost < count
          ? `svc events replay ${deadLetter} --forward-to URL sends them again`
          : undefined,
    );
  }
}
