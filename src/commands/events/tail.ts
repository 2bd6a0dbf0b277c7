// `svc events tail`: follow the organization's event stream (GET /v1/events/stream,
// docs/contract.md "Events") for as long as the user wants, surviving drops and silent
// connections without losing or repeating an event.
import { commandModule, defineCommand, repeated, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import type { ResolvedCredential } from '../../credentials/resolve.js';
import { confirmedProfile } from '../../credentials/confirmed.js';
import { ApiError, CliError, EXIT, NetworkError, UsageError } from '../../errors.js';
import { parseTypePattern, serverTypeParams, type TypePattern } from '../../events/filter.js';
import { follow, isResumableId, type FollowOptions, type FollowResult } from '../../api/reconnect.js';
import { FAMILY_COLOURS, formatEventLine, type ApiEvent } from '../../events/format.js';
import { CheckpointWriter, HandledTracker, readCheckpoint, START_POSITION } from '../../events/checkpoint.js';
import { openDeliveries, type Deliveries } from '../../events/deliveries.js';
import { checkDeadLetterFile, lettersWhere } from '../../events/dead-letter.js';
import { checkAppendFile, EventRecorder } from '../../events/record.js';
import { formatAway, random01From } from '../../api/resume.js';
import { isRetryableFailure } from '../../api/retry.js';
import { sanitizeText } from '../../io/sanitize.js';
import { parseForwardHeader, parseForwardRoute, type ForwardRoute } from '../../events/routes.js';
import { forwardingSecret } from '../../events/secret.js';
import { isBrokenPipe, LineWriter, resumingFrom, TailPipeline } from '../../events/pipeline.js';
import { parseIdWithPrefix } from '../../validate/id.js';
import { ID_PREFIX } from '../../contract/constants.js';

export interface TailOptions {
  types: TypePattern[];
  /** Resume after this event (sent as Last-Event-ID on the first connection). */
  since?: string;
  /** Exit 0 after this many matching events. */
  maxEvents?: number;
  /** POST each event to every route that wants its type (signed). */
  routes: ForwardRoute[];
  /** `--forward-header`, lower-case names. */
  forwardHeaders: Record<string, string>;
  /** NDJSON of the deliveries given up on. */
  deadLetter?: string;
  /** NDJSON of every event received, appended and flushed per event. */
  record?: string;
  /** Keeps the last handled event's id; resumes after it. */
  checkpoint?: string;
  /** Print the forwarding secret and exit. */
  printSecret: boolean;
  /** Exit 1 instead of warning when the service cannot resume without a gap. */
  failOnGap: boolean;
  /** Exit 9 after this long without a byte from the service (keep-alive comments count). */
  idleTimeoutMs: number;
  /** `--timeout`: exit 9 once this long has passed since the start, whatever came meanwhile. */
  deadlineMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 5 * 60_000;

function fileFlag(value: unknown, flag: string): string {
  const text = typeof value === 'string' ? value.trim() : '';
  if (text === '') throw new UsageError(`${flag} needs a file name`);
  return text;
}

export const command = defineCommand({
  name: 'tail',
  summary: 'follow events live, resuming after drops',
  flags: {
    type: { value: '<type>', repeatable: true, help: 'only this type or prefix (repeatable), e.g. call. or chat.closed' },
    since: { value: '<evt_id>', help: 'start after this event (an unknown one stops the tail); `start`: every event the service retains' },
    maxEvents: { value: '<n>', kind: { type: 'integer', min: 1 }, help: 'stop after N events' },
    forwardTo: { value: '<url>', repeatable: true, help: 'POST each event, signed, to URL; TYPE=URL for some types only, e.g. call.*=URL (repeatable)' },
    forwardHeader: { value: '<header>', repeatable: true, help: "add 'Name: value' to each delivery (repeatable)" },
    deadLetter: { value: '<file>', help: 'append deliveries given up on to FILE (NDJSON)' },
    record: { value: '<file>', help: 'append every event received to FILE (NDJSON)' },
    checkpoint: { value: '<file>', help: 'keep the last handled event id in FILE and resume after it' },
    printSecret: { help: 'print the forwarding secret (for your handler) and exit' },
    failOnGap: { help: 'exit 1 when the service cannot resume without missing events' },
    timeout: {
      value: '<duration>',
      kind: { type: 'duration', zero: 'none' },
      help: 'give up (exit 9) once this long has passed, whatever came meanwhile (default: never)',
    },
    idleTimeout: {
      value: '<duration>',
      kind: { type: 'duration', zero: 'none' },
      help: 'give up after this long with nothing from the service (default 5m; 0: never)',
    },
  },
  examples: [
    'svc events tail --type call. --type chat.closed',
    'svc events tail --json --max-events 100',
    'svc events tail --forward-to http://localhost:3000/hooks --dead-letter dead.ndjson',
    "svc events tail --forward-to 'call.*=http://localhost:3000/calls' --checkpoint tail.ckpt",
    'export SVC_FORWARD_SECRET=$(svc events tail --print-secret)',
  ],
  scopes: ['events:read'],
});

export function parseTail(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): TailOptions {
  if (args.length > 0)
    throw new UsageError(`events tail takes no arguments (got ${args.map((a) => JSON.stringify(a)).join(' ')})`, 'filter with --type, e.g. --type call.*');

  const types: TypePattern[] = [];
  for (const raw of repeated(flags.type).flatMap((t) => t.split(','))) {
    const pattern = parseTypePattern(raw);
    if ('error' in pattern) throw new UsageError(pattern.error);
    types.push(pattern);
  }

  const opts: TailOptions = {
    types,
    idleTimeoutMs: DEFAULT_TIMEOUT_MS,
    routes: repeated(flags.forwardTo).map((raw) => parseForwardRoute(raw)),
    forwardHeaders: {},
    printSecret: flags.printSecret === true,
    failOnGap: flags.failOnGap === true,
  };

  if (flags.since !== undefined)
    opts.since = flags.since.trim() === START_POSITION ? START_POSITION : parseIdWithPrefix(flags.since, ID_PREFIX.event, '--since');
  if (flags.maxEvents !== undefined) opts.maxEvents = flags.maxEvents;

  for (const raw of repeated(flags.forwardHeader)) {
    const [name, value] = parseForwardHeader(raw);
    opts.forwardHeaders[name] = value;
  }
  const needsRoute = (flag: string) => {
    if (opts.routes.length === 0) throw new UsageError(`${flag} applies to --forward-to deliveries; add --forward-to URL`);
  };
  if (Object.keys(opts.forwardHeaders).length) needsRoute('--forward-header');
  if (flags.deadLetter !== undefined) {
    needsRoute('--dead-letter');
    opts.deadLetter = fileFlag(flags.deadLetter, '--dead-letter');
  }
  if (flags.record !== undefined) opts.record = fileFlag(flags.record, '--record');
  if (flags.checkpoint !== undefined) opts.checkpoint = fileFlag(flags.checkpoint, '--checkpoint');

  // 0 turns the silence limit off: a supervisor that restarts nothing keeps the tail open.
  if (flags.idleTimeout !== undefined) opts.idleTimeoutMs = flags.idleTimeout === 0 ? Infinity : flags.idleTimeout;
  if (flags.timeout !== undefined && flags.timeout !== 0) opts.deadlineMs = flags.timeout;

  return opts;
}

async function describeTarget(ctx: Context, credential: ResolvedCredential, signal: AbortSignal): Promise<string> {
  // Only a stored credential's profile is known to be its organization's (src/credentials/confirmed.ts).
  let orgName = confirmedProfile(credential)?.org_name;
  let orgId = confirmedProfile(credential)?.org_id;
  if (!orgName) {
    // SVC_API_KEY alone says nothing about the organization: ask, but never wait long or fail for it.
    try {
      const api = await ctx.api();
      const lookup = api.request<{ id?: string; name?: string }>({ endpoint: 'account.get', signal: AbortSignal.any([signal, AbortSignal.timeout(3000)]) });
      const account = await lookup;
      orgName = account?.name;
      orgId = account?.id ?? orgId;
    } catch {
      // e.g. a key without account:read: the header just says less.
    }
  }
  const who = credential.source === 'env' ? 'SVC_API_KEY' : `profile "${credential.profileName}"`;
  const org = orgName ? `${orgName}${orgId ? ` (${orgId})` : ''}` : (orgId ?? 'organization unknown');
  return `Tailing ${credential.mode}-mode events of ${org}, ${who}${credential.kind === 'oauth' ? ' (OAuth)' : ''}`;
}

export async function runTail(opts: TailOptions, ctx: Context): Promise<void> {
  if (opts.printSecret) {
    // The only place the secret is ever printed: for a script to hand it to its handler.
    const { secret } = await forwardingSecret(ctx);
    ctx.io.stdout.write(`${secret}\n`);
    return;
  }
  // Resume after the checkpoint when it has one (the same command line restarted by a
  // supervisor must not go back to --since), else after --since.
  const checkpointed = opts.checkpoint ? readCheckpoint(opts.checkpoint) : undefined;
  const resumeAfter = checkpointed ?? opts.since;
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  const sinks = await openSinks(opts, ctx, signal, () => stop.abort());
  const api = await ctx.api();
  // --timeout: a deadline for the whole command, which nothing the service sends moves.
  const ended = new AbortController();
  let deadlineReached = false;
  if (opts.deadlineMs !== undefined)
    ctx.clock.sleep(opts.deadlineMs, AbortSignal.any([signal, ended.signal])).then(
      () => {
        deadlineReached = true;
        stop.abort();
      },
      () => {},
    );
  // A reader that closed the pipe ends a quiet tail too, not only at the next event's write.
  ctx.io.stdout.onReaderGone?.(
    () => {
      sinks.out.closed = true;
      stop.abort();
    },
    AbortSignal.any([signal, ended.signal]),
  );
  // Asked while the stream opens; printed once it is answered, so an event published after
  // the header is never missed.
  let header: Promise<string[]> | undefined = headerLines(ctx, api.credential, opts, checkpointed);
  const pipeline = new TailPipeline({
    json: ctx.globals.json,
    types: opts.types,
    ...(opts.maxEvents !== undefined ? { maxEvents: opts.maxEvents } : {}),
    failOnGap: opts.failOnGap,
    // A --since id the service does not know stops the tail; a checkpoint's goes on behind a gap warning.
    ...(checkpointed === undefined && opts.since !== undefined && opts.since !== START_POSITION ? { since: opts.since } : {}),
    warn: (line) => ctx.io.stderr.write(`${line}\n`),
    formatLine: await eventLineFormat(ctx),
    ...(ctx.io.stdout.writeFiltered ? { filter: ctx.io.stdout.writeFiltered } : {}),
    ...sinks,
  });
  const query = { type: serverTypeParams(opts.types) };
  const quiet = quietNote(ctx, api.credential, signal);
  let result: FollowResult;
  try {
    result = await follow({
      open: async (lastEventId, attemptSignal) => {
        const { openSse } = await import('../../api/sse.js');
        const stream = await openSse(api, { endpoint: 'events.stream', query, signal: attemptSignal }, lastEventId);
        // The header comes before the first event, once the stream is answered (describeTarget never fails).
        const lines = header;
        header = undefined;
        if (lines) for (const line of await lines) ctx.io.stderr.write(line);
        pipeline.onAnswered();
        return stream;
      },
      onMessage: (message) => {
        quiet.heard();
        return pipeline.onMessage(message);
      },
      onPosition: pipeline.onPosition,
      onUnusableId: pipeline.onUnusableId,
      isRetryable: isRetryableFailure,
      clock: ctx.clock,
      random01: () => random01From(ctx.random.bytes(3)),
      signal,
      timeoutMs: opts.idleTimeoutMs,
      ...(resumeAfter ? { lastEventId: resumeAfter } : {}),
      ...connectionReports(ctx, signal),
    });
  } finally {
    ended.abort();
    quiet.stop();
    sinks.recorder?.close();
  }
  return finish(result, opts, ctx, sinks, pipeline, deadlineReached);
}

/** How long a tail at a terminal hears nothing before it says the other mode may hold the events. */
export const QUIET_MS = 5_000;

/**
 * The first hour's trap: `svc login` is live, the emulator's and the examples' events are
 * test. At a terminal, a tail that hears no event for QUIET_MS while the profile also holds a
 * credential of the other mode says so once, on stderr (stdout stays the events').
 */
function quietNote(ctx: Context, credential: { mode: string; otherMode?: string; profileName: string }, signal: AbortSignal) {
  let heard = false;
  const stopped = new AbortController();
  const other = credential.otherMode;
  if (other && ctx.io.stderr.isTTY)
    ctx.clock.sleep(QUIET_MS, AbortSignal.any([signal, stopped.signal])).then(
      () => {
        if (!heard && !stopped.signal.aborted)
          ctx.io.stderr.write(
            `no ${credential.mode}-mode event for ${QUIET_MS / 1000} s; profile "${credential.profileName}" has a ${other}-mode credential too:\n` +
              `  add \`--${other}\` for its events (svc events tail --${other})\n`,
          );
      },
      () => {},
    );
  return { heard: () => void (heard = true), stop: () => stopped.abort() };
}

interface Sinks {
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
async function openSinks(opts: TailOptions, ctx: Context, signal: AbortSignal, onStdoutClosed: () => void): Promise<Sinks> {
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

/**
 * The header may need to ask the service who the organization is (SVC_API_KEY): asked
 * while the stream opens, not before it, so the tail starts in one round trip.
 */
function headerLines(ctx: Context, credential: ResolvedCredential, opts: TailOptions, checkpointed: string | undefined): Promise<string[]> {
  const what = opts.types.length ? ` [${serverTypeParams(opts.types).join(', ') || '*'}]` : '';
  return describeTarget(ctx, credential, ctx.signal).then((header) => [
    `${sanitizeText(header)}${what}. Ctrl-C to stop.\n`,
    ...(checkpointed ? [`${resumingFrom(checkpointed)} (--checkpoint ${opts.checkpoint})\n`] : []),
  ]);
}

/** A human line per event, its type coloured by family when colour is on. */
async function eventLineFormat(ctx: Context): Promise<(event: ApiEvent) => string> {
  let paintType = (_type: string, text: string) => text;
  if (!ctx.globals.json && ctx.io.color) {
    // io.color already decided (TTY, NO_COLOR, --no-color): don't let chalk second-guess it.
    const { Chalk } = await import('chalk');
    const chalk = new Chalk({ level: 1 });
    paintType = (type, text) => {
      const colour = FAMILY_COLOURS[type.split('.')[0] ?? ''];
      return colour ? chalk[colour](text) : text;
    };
  }
  const style = { tty: ctx.io.stdout.isTTY, paintType, columns: ctx.io.stdout.columns };
  return (event) => formatEventLine(event, ctx.clock.now(), style);
}

/** The stderr lines of an outage: once per outage (every failed retry only with --debug), and its end. */
function connectionReports(ctx: Context, signal: AbortSignal): Pick<FollowOptions, 'onLost' | 'onReconnected'> {
  const { stderr } = ctx.io;
  return {
    onLost: (reason, failures, everConnected) => {
      if (signal.aborted || (failures > 1 && !ctx.globals.debug)) return;
      // The reason says what failed (nothing answered, no answer, nothing after the headers): no guess added here.
      stderr.write(everConnected ? `connection lost (${sanitizeText(reason)}); reconnecting…\n` : `${sanitizeText(reason)}; retrying…\n`);
    },
    onReconnected: ({ awayMs, attempts, lastEventId, first }) => {
      stderr.write(
        first
          ? `connected after ${formatAway(awayMs)} (${attempts + 1} attempts)\n`
          : `reconnected after ${formatAway(awayMs)} away${lastEventId ? `, ${resumingFrom(lastEventId)}` : ''}\n`,
      );
    },
  };
}

/** How the tail ends: the exit policy once the stream stopped, timed out or was interrupted. */
async function finish(result: FollowResult, opts: TailOptions, ctx: Context, sinks: Sinks, pipeline: TailPipeline, deadlineReached: boolean): Promise<void> {
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

export { parseTail as parse, runTail as run };

export default commandModule({ command, parse: parseTail, run: runTail });
