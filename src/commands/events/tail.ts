// `svc events tail`: follow the organization's event stream (GET /v1/events/stream,
// api-contract.md "Events") for as long as the user wants, surviving drops and silent
// connections without losing or repeating an event.
import { defineCommand, type ArgsOf, type FlagsOf } from '../define.js';
import type { Context } from '../../context.js';
import type { ResolvedCredential } from '../../credentials/resolve.js';
import { confirmedProfile } from '../../credentials/confirmed.js';
import type { SseMessage } from '../../api/sse.js';
import { ApiError, CliError, NetworkError, UsageError } from '../../errors.js';
import { matchesType, parseTypePattern, serverTypeParams, type TypePattern } from './filter.js';
import { follow, isResumableId, type MessageVerdict } from '../../api/reconnect.js';
import { FAMILY_COLOURS, formatEventLine, parseEvent, type ApiEvent } from './format.js';
import { CheckpointWriter, HandledTracker, readCheckpoint, START_POSITION } from './checkpoint.js';
import { openDeliveries, type Deliveries } from './deliveries.js';
import { GapError, gapWarning, isGapFrame, parseGap } from './gap.js';
import { checkAppendFile, EventRecorder } from './record.js';
import { formatAway, random01From, SeenIds } from '../../api/resume.js';
import { escapeJsonControls, hasControl, sanitizeLine, sanitizeText } from '../../io/sanitize.js';
import { parseForwardHeader, parseForwardRoute, type ForwardRoute } from './routes.js';
import { forwardingSecret } from './secret.js';

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
  /** Exit 9 after this long without a connection. */
  timeoutMs: number;
}

export const DEFAULT_TIMEOUT_MS = 5 * 60_000;

function strings(value: unknown): string[] {
  if (value === undefined || value === null || value === false) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

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
    since: { value: '<evt_id>', kind: { type: 'id', prefix: 'evt_' }, help: 'start after this event' },
    maxEvents: { value: '<n>', kind: { type: 'integer', min: 1 }, help: 'stop after N events' },
    forwardTo: { value: '<url>', repeatable: true, help: 'POST each event, signed, to URL; TYPE=URL for some types only, e.g. call.*=URL (repeatable)' },
    forwardHeader: { value: '<header>', repeatable: true, help: "add 'Name: value' to each delivery (repeatable)" },
    deadLetter: { value: '<file>', help: 'append deliveries given up on to FILE (NDJSON)' },
    record: { value: '<file>', help: 'append every event received to FILE (NDJSON)' },
    checkpoint: { value: '<file>', help: 'keep the last handled event id in FILE and resume after it' },
    printSecret: { help: 'print the forwarding secret (for your handler) and exit' },
    failOnGap: { help: 'exit 1 when the service cannot resume without missing events' },
    timeout: { value: '<duration>', kind: { type: 'duration' }, help: 'give up after this long without a connection' },
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
  for (const raw of strings(flags.type).flatMap((t) => t.split(','))) {
    const pattern = parseTypePattern(raw);
    if ('error' in pattern) throw new UsageError(pattern.error);
    types.push(pattern);
  }

  const opts: TailOptions = {
    types,
    timeoutMs: DEFAULT_TIMEOUT_MS,
    routes: strings(flags.forwardTo).map((raw) => parseForwardRoute(raw)),
    forwardHeaders: {},
    printSecret: flags.printSecret === true,
    failOnGap: flags.failOnGap === true,
  };

  if (flags.since !== undefined) opts.since = flags.since;
  if (flags.maxEvents !== undefined) opts.maxEvents = flags.maxEvents;

  for (const raw of strings(flags.forwardHeader)) {
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

  if (flags.timeout !== undefined) opts.timeoutMs = flags.timeout;

  return opts;
}

/**
 * stdout for NDJSON at tens of thousands of events a second: lines are gathered and
 * written once per turn of the event loop (setImmediate runs right after the bytes
 * that carried them are parsed), so every event is printed as soon as its chunk is read.
 */
class LineWriter {
  private lines: string[] = [];
  private scheduled = false;
  failure: unknown;
  closed = false;

  /** Sequence number (HandledTracker) of the last line pushed. */
  private lastSeq: number | undefined;

  constructor(
    private readonly out: Context['io']['stdout'],
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

function isBrokenPipe(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED' || code === 'ERR_STREAM_WRITE_AFTER_END';
}

/** Worth reconnecting for: the network, 5xx and 429 (after the client's own retries), a stream cut mid-body. */
function isRetryable(error: unknown): boolean {
  if (error instanceof NetworkError) return true;
  if (error instanceof ApiError) return error.status === 429 || error.status >= 500;
  // Errors that are not the CLI's own come from reading the body: a reset or cut connection.
  return !(error instanceof CliError);
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

export async function runTail(opts: TailOptions, ctx: Context): Promise<number> {
  const { io } = ctx;
  const json = ctx.globals.json;

  if (opts.printSecret) {
    // The only place the secret is ever printed: for a script to hand it to its handler.
    const { secret } = await forwardingSecret(ctx);
    io.stdout.write(`${secret}\n`);
    return 0;
  }

  // Resume after the checkpoint when it has one (the same command line restarted by a
  // supervisor must not go back to --since), else after --since.
  let resumeAfter = opts.since;
  const checkpointed = opts.checkpoint ? readCheckpoint(opts.checkpoint) : undefined;
  if (checkpointed) resumeAfter = checkpointed;

  // The files it writes are opened (or tried) before anything is consumed: a path that cannot
  // be written fails here, naming it, rather than after events were read.
  const checkpoint = opts.checkpoint ? CheckpointWriter.open(opts.checkpoint, () => ctx.clock.now()) : undefined;
  if (opts.deadLetter) checkAppendFile('--dead-letter', opts.deadLetter);
  if (opts.record) checkAppendFile('--record', opts.record);
  const api = await ctx.api();
  // The header may need to ask the service who the organization is (SVC_API_KEY): asked
  // while the stream opens, not before it, so the tail starts in one round trip.
  const what = opts.types.length ? ` [${serverTypeParams(opts.types).join(', ') || '*'}]` : '';
  let headerPrinted: Promise<void> | undefined = describeTarget(ctx, await ctx.resolveCredential(), ctx.signal).then((header) => {
    io.stderr.write(`${sanitizeText(header)}${what}. Ctrl-C to stop.\n`);
    if (checkpointed) io.stderr.write(`${resumingFrom(checkpointed)} (--checkpoint ${opts.checkpoint})\n`);
  });

  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);

  // An id that cannot be resumed from is not stored: the checkpoint stays at the last one that can be.
  const tracker = checkpoint ? new HandledTracker((id) => isResumableId(id) && checkpoint.write(id)) : undefined;
  const out = new LineWriter(io.stdout, () => stop.abort(), tracker ? (seq) => tracker.printedThrough(seq) : undefined);
  const recorder = opts.record ? EventRecorder.open(opts.record) : undefined;

  let paintType = (_type: string, text: string) => text;
  if (!json && io.color) {
    // io.color already decided (TTY, NO_COLOR, --no-color): don't let chalk second-guess it.
    const { Chalk } = await import('chalk');
    const chalk = new Chalk({ level: 1 });
    paintType = (type, text) => {
      const colour = FAMILY_COLOURS[type.split('.')[0] ?? ''];
      return colour ? chalk[colour](text) : text;
    };
  }
  const style = { tty: io.stdout.isTTY, paintType };

  const deliveries = await openDeliveries(ctx, opts, signal, tracker ? (id: string) => tracker.settled(id) : undefined);

  const seen = new SeenIds();
  const query = { type: serverTypeParams(opts.types) };
  let printed = 0;
  // Only what this run delivered: a --since or checkpoint id is named by the gap frame itself.
  let lastHandedOn: string | undefined;
  let gapFailure: GapError | undefined;
  let unusableIdReported = false;

  const onMessage = (message: SseMessage): MessageVerdict | Promise<MessageVerdict> => {
    if (isGapFrame(message.event) && !message.id) {
      const warning = gapWarning(parseGap(message.data), lastHandedOn);
      if (opts.failOnGap) {
        gapFailure = new GapError(warning);
        return 'stop';
      }
      out.flush();
      io.stderr.write(sanitizeText(warning) + '\n');
      return 'continue';
    }
    // The SSE fields carry the id and type, so NDJSON needs no parse of the payload.
    let event: ApiEvent | null = null;
    let id = message.id;
    let type = message.event;
    if (!id || !type || !json) {
      event = parseEvent(message.data);
      if (!event) {
        io.stderr.write(`warning: skipped a stream message that is not an event: ${sanitizeLine(message.data.slice(0, 120))}\n`);
        return 'continue';
      }
      id = event.id;
      type = event.type;
    }
    if (!seen.add(id)) return 'continue';
    // Passed through unparsed for speed, unless it spans lines or holds a raw control
    // character (DEL, C1, or C0, which JSON forbids raw): then re-serialised, inert.
    let line = message.data;
    if (line.includes('\n') || hasControl(line)) {
      const reparsed = parseEvent(line);
      if (!reparsed) {
        io.stderr.write(`warning: skipped a stream message that is not an event: ${sanitizeLine(line.slice(0, 120))}\n`);
        return 'continue';
      }
      line = escapeJsonControls(JSON.stringify(reparsed));
    }
    lastHandedOn = id;
    recorder?.append(line);
    if (!matchesType(type, opts.types)) {
      // Not wanted, so handled: the checkpoint may move past it.
      tracker?.printedThrough(tracker.add(id, 0));
      return 'continue';
    }
    const routes = deliveries ? deliveries.routesFor(type) : 0;
    const seq = tracker?.add(id, routes);
    out.push(json ? line : formatEventLine(event!, ctx.clock.now(), style), seq);
    // Forwarding: handled once every route settled it; printing does not hold it back.
    if (tracker && seq !== undefined && deliveries) tracker.printedThrough(seq);
    if (routes) deliveries!.enqueue(id, type, line);
    printed++;
    if (out.closed) return 'stop';
    const verdict: MessageVerdict = opts.maxEvents !== undefined && printed >= opts.maxEvents ? 'stop' : 'continue';
    // Backpressure: with a forward queue full, read the next event only once there is room.
    if (verdict === 'continue' && deliveries?.full) return deliveries.room().then(() => verdict);
    return verdict;
  };

  let result;
  try {
    result = await follow({
      open: async (lastEventId, attemptSignal) => {
        const { openSse } = await import('../../api/sse.js');
        const opening = openSse(api, { endpoint: 'events.stream', query, signal: attemptSignal }, lastEventId);
        // The header comes before the first event (describeTarget never fails).
        const header = headerPrinted;
        headerPrinted = undefined;
        return (await Promise.all([opening, header]))[0];
      },
      onMessage,
      // A position (the frame a stream opens with before any event): the checkpoint keeps it, so a
      // tail killed before its first event resumes from there and misses nothing.
      onPosition: (id) => {
        if (tracker) out.mark(tracker.add(id, 0));
      },
      onUnusableId: (id, resumesAfter) => {
        // Said once: a server sending only such ids must not flood stderr.
        if (unusableIdReported) return;
        unusableIdReported = true;
        out.flush();
        io.stderr.write(
          `warning: the service sent event id "${sanitizeLine(id)}", which holds a control character or a character beyond Latin-1 and cannot be sent back to resume; ` +
            `a reconnection resumes ${resumesAfter ? resumingFrom(resumesAfter).replace(/^resuming /, '') : 'from the live events'} (events after it are not printed twice; further such ids are not reported)\n`,
        );
      },
      isRetryable,
      clock: ctx.clock,
      random01: () => random01From(ctx.random.bytes(3)),
      signal,
      timeoutMs: opts.timeoutMs,
      ...(resumeAfter ? { lastEventId: resumeAfter } : {}),
      onLost: (reason, failures, everConnected) => {
        // Say it once per outage; every failed retry only with --debug.
        if (signal.aborted || (failures > 1 && !ctx.globals.debug)) return;
        io.stderr.write(`${everConnected ? 'connection lost' : 'cannot connect'} (${sanitizeText(reason)}); ${everConnected ? 'reconnecting' : 'retrying'}…\n`);
      },
      onReconnected: ({ awayMs, attempts, lastEventId, first }) => {
        io.stderr.write(
          first
            ? `connected after ${formatAway(awayMs)} (${attempts + 1} attempts)\n`
            : `reconnected after ${formatAway(awayMs)} away${lastEventId ? `, ${resumingFrom(lastEventId)}` : ''}\n`,
        );
      },
    });
  } finally {
    recorder?.close();
  }

  out.flush();
  if (out.failure) throw out.failure;
  const finish = () => checkpoint?.sync();
  // A closed stdout ends the tail quietly with 0: either a write reported EPIPE here, or the
  // process runtime aborted ctx.signal with an EPIPE-coded reason (Ctrl-C aborts without one).
  if (out.closed || isBrokenPipe(ctx.signal.reason)) {
    finish();
    return 0;
  }

  if (result.outcome === 'stopped') {
    if (deliveries) {
      await deliveries.drain();
      out.flush();
    }
    finish();
    if (gapFailure) throw gapFailure;
    return gaveUpExit(deliveries, opts, io) ?? 0;
  }
  finish();
  if (result.outcome === 'timed-out') {
    throw new NetworkError(
      `no connection to the event stream for ${formatAway(result.awayMs)} (--timeout); giving up`,
      opts.checkpoint
        ? `check the service and the network; restarting with the same --checkpoint misses nothing the service still retains`
        : result.lastEventId && result.lastEventId !== START_POSITION
          ? `check the service and the network; restart with --since ${result.lastEventId} to miss nothing`
          : 'check the service, the base URL (--base-url / SVC_BASE_URL) and the network',
    );
  }
  // Ctrl-C.
  const forwarded = deliveries
    ? `, ${deliveries.delivered} forwarded, ${deliveries.failed} not delivered, ${deliveries.unsent} still queued (not forwarded)`
    : '';
  io.stderr.write(
    `\nstopped: ${printed} event${printed === 1 ? '' : 's'}, ${result.reconnects} reconnect${result.reconnects === 1 ? '' : 's'}${forwarded}` +
      `${result.lastEventId && result.lastEventId !== START_POSITION ? `; last ${result.lastEventId}` : ''}\n`,
  );
  return 130;
}

/** How a resume is told: after an event, or from the first one (the position `start`). */
function resumingFrom(position: string): string {
  return position === START_POSITION ? 'resuming from the first event' : `resuming after ${position}`;
}

/** Exit 1 when any delivery was given up (a supervisor or CI sees it); undefined when none was. */
function gaveUpExit(deliveries: Deliveries | undefined, opts: TailOptions, io: Context['io']): number | undefined {
  if (!deliveries || deliveries.gaveUp === 0) return undefined;
  const where = opts.deadLetter
    ? `written to ${opts.deadLetter} (svc events replay ${opts.deadLetter} --forward-to URL sends them again)`
    : 'not kept (add --dead-letter FILE to keep them)';
  io.stderr.write(`error: ${deliveries.gaveUp} deliver${deliveries.gaveUp === 1 ? 'y was' : 'ies were'} given up after retries; ${where}\n`);
  return 1;
}

export { parseTail as parse, runTail as run };
