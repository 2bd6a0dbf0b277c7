// `svc events tail`: follow the organization's event stream (GET /v1/events/stream,
// docs/contract.md "Events") for as long as the user wants, surviving drops and silent
// connections without losing or repeating an event.
import { commandModule, defineCommand, repeated, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import type { ResolvedCredential } from '../../credentials/resolve.js';
import { confirmedProfile } from '../../credentials/confirmed.js';
import { UsageError } from '../../errors.js';
import { parseTypePattern, serverTypeParams, type TypePattern } from '../../events/filter.js';
import { follow, type FollowOptions, type FollowResult } from '../../api/reconnect.js';
import { FAMILY_COLOURS, formatEventLine, type ApiEvent } from '../../events/format.js';
import { readCheckpoint, START_POSITION } from '../../events/checkpoint.js';
import { formatAway, random01From } from '../../api/resume.js';
import { isRetryableFailure } from '../../api/retry.js';
import { sanitizeText } from '../../io/sanitize.js';
import { parseForwardHeader, parseForwardRoute, type ForwardRoute } from '../../events/routes.js';
import { forwardingSecret } from '../../events/secret.js';
import { resumingFrom, TailPipeline } from '../../events/pipeline.js';
import { parseIdWithPrefix } from '../../validate/id.js';
import { ID_PREFIX } from '../../contract/constants.js';
import { finish, openSinks } from '../../events/tail-sinks.js';

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

export { parseTail as parse, runTail as run };

export default commandModule({ command, parse: parseTail, run: runTail });
