// `svc events tail`: follow the organization's event stream (GET /v1/events/stream,
// api-contract.md "Events") for as long as the user wants, surviving drops and silent
// connections without losing or repeating an event.
import { defineCommand, type ArgsOf, type FlagsOf } from '../../cli/define.js';
import type { Context } from '../../context.js';
import type { SseMessage } from '../../api/sse.js';
import { ApiError, CliError, NetworkError, UsageError } from '../../errors.js';
import { parseDurationSeconds } from '../../validate/duration.js';
import { parseId } from '../../validate/id.js';
import { InvalidValueError } from '../../validate/invalid.js';
import { matchesType, parseTypePattern, serverTypeParams, type TypePattern } from './filter.js';
import { follow, type MessageVerdict } from './follow.js';
import { FAMILY_COLOURS, formatEventLine, parseEvent, type ApiEvent } from './format.js';
import { Forwarder, formatDelivery, type PostJson } from './forward.js';
import { formatAway, random01From, SeenIds } from './resume.js';

export interface TailOptions {
  types: TypePattern[];
  /** Resume after this event (sent as Last-Event-ID on the first connection). */
  since?: string;
  /** Exit 0 after this many matching events. */
  maxEvents?: number;
  /** POST each event here. */
  forwardTo?: string;
  /** Exit 9 after this long without a connection. */
  timeoutMs: number;
}

export const DEFAULT_TIMEOUT_MS = 5 * 60_000;

function validated<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof InvalidValueError) throw new UsageError(error.message);
    throw error;
  }
}

function strings(value: unknown): string[] {
  if (value === undefined || value === null || value === false) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

export const command = defineCommand({
  name: 'tail',
  summary: 'follow events live, resuming after drops',
  flags: {
    type: { value: '<type>', repeatable: true, help: 'only this type or prefix (repeatable), e.g. call. or chat.closed' },
    since: { value: '<evt_id>', help: 'start after this event' },
    maxEvents: { value: '<n>', help: 'stop after N events' },
    forwardTo: { value: '<url>', help: 'POST each event to this URL' },
    timeout: { value: '<duration>', help: 'give up after this long without a connection' },
  },
  examples: ['svc events tail --type call. --type chat.closed', 'svc events tail --json --max-events 100', 'svc events tail --forward-to http://localhost:3000/hooks'],
  scopes: ['events:read'],
});

export function parseTail(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): TailOptions {
  if (args.length > 0) throw new UsageError(`events tail takes no arguments (got ${args.map((a) => JSON.stringify(a)).join(' ')})`, 'filter with --type, e.g. --type call.*');

  const types: TypePattern[] = [];
  for (const raw of strings(flags.type).flatMap((t) => t.split(','))) {
    const pattern = parseTypePattern(raw);
    if ('error' in pattern) throw new UsageError(pattern.error);
    types.push(pattern);
  }

  const opts: TailOptions = { types, timeoutMs: DEFAULT_TIMEOUT_MS };

  if (flags.since !== undefined) opts.since = validated(() => parseId(String(flags.since), 'event'));

  if (flags.maxEvents !== undefined) {
    const text = String(flags.maxEvents).trim();
    const n = /^\d+$/.test(text) ? Number(text) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < 1) throw new UsageError(`--max-events "${flags.maxEvents}" must be a whole number of at least 1`);
    opts.maxEvents = n;
  }

  if (flags.forwardTo !== undefined) {
    const text = String(flags.forwardTo);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new UsageError(`--forward-to "${text}" is not a URL`, 'give a full URL, e.g. http://localhost:3000/webhooks');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UsageError(`--forward-to "${text}" must be an http or https URL`, 'e.g. http://localhost:3000/webhooks');
    }
    if (url.username || url.password) throw new UsageError('--forward-to must not carry a user name or password in the URL');
    opts.forwardTo = url.toString();
  }

  if (flags.timeout !== undefined) opts.timeoutMs = validated(() => parseDurationSeconds(String(flags.timeout), '--timeout')) * 1000;

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

  constructor(
    private readonly out: Context['io']['stdout'],
    private readonly onFailure: () => void,
  ) {}

  push(line: string): void {
    if (this.closed) return;
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  flush(): void {
    this.scheduled = false;
    if (this.closed || this.lines.length === 0) return;
    const text = this.lines.join('\n') + '\n';
    this.lines = [];
    try {
      this.out.write(text);
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

async function describeTarget(ctx: Context, signal: AbortSignal): Promise<string> {
  const credential = await ctx.resolveCredential();
  let orgName = credential.profile?.org_name;
  let orgId = credential.profile?.org_id;
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
  const api = await ctx.api();

  const header = await describeTarget(ctx, ctx.signal);
  const what = opts.types.length ? ` [${serverTypeParams(opts.types).join(', ') || '*'}]` : '';
  io.stderr.write(`${header}${what}. Ctrl-C to stop.\n`);

  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);
  const out = new LineWriter(io.stdout, () => stop.abort());

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

  let forwarder: Forwarder | undefined;
  if (opts.forwardTo) {
    const target = opts.forwardTo;
    const post: PostJson = async (url, body, headers, postSignal) => {
      // Through the context's HTTP (one dispatcher, --debug), and never with the credential.
      const response = await ctx.http.fetch(url, { method: 'POST', body, headers, signal: postSignal });
      await response.body?.cancel().catch(() => {});
      return { status: response.status };
    };
    forwarder = new Forwarder({
      url: target,
      post,
      clock: ctx.clock,
      signal,
      // Delivery lines are progress, not events: stderr, so that stdout stays one event
      // per line for whatever it is piped into, with or without --json.
      report: (d) => io.stderr.write(formatDelivery(d, target) + '\n'),
    });
    io.stderr.write(`Forwarding each event to ${target}\n`);
  }

  const seen = new SeenIds();
  const query = { type: serverTypeParams(opts.types) };
  let printed = 0;

  const onMessage = (message: SseMessage): MessageVerdict | Promise<MessageVerdict> => {
    // The SSE fields carry the id and type, so NDJSON needs no parse of the payload.
    let event: ApiEvent | null = null;
    let id = message.id;
    let type = message.event;
    if (!id || !type || !json) {
      event = parseEvent(message.data);
      if (!event) {
        io.stderr.write(`warning: skipped a stream message that is not an event: ${message.data.slice(0, 120)}\n`);
        return 'continue';
      }
      id = event.id;
      type = event.type;
    }
    if (!seen.add(id)) return 'continue';
    if (!matchesType(type, opts.types)) return 'continue';
    if (json) {
      out.push(message.data.includes('\n') ? JSON.stringify(JSON.parse(message.data)) : message.data);
    } else {
      out.push(formatEventLine(event!, ctx.clock.now(), style));
    }
    forwarder?.enqueue(id, type, message.data);
    printed++;
    if (out.closed) return 'stop';
    const verdict: MessageVerdict = opts.maxEvents !== undefined && printed >= opts.maxEvents ? 'stop' : 'continue';
    // Backpressure: with the forward queue full, read the next event only once there is room.
    if (verdict === 'continue' && forwarder?.full) return forwarder.room().then(() => verdict);
    return verdict;
  };

  const result = await follow({
    open: async (lastEventId, attemptSignal) => {
      const { openSse } = await import('../../api/sse.js');
      return openSse(api, { endpoint: 'events.stream', query, signal: attemptSignal }, lastEventId);
    },
    onMessage,
    isRetryable,
    clock: ctx.clock,
    random01: () => random01From(ctx.random.bytes(3)),
    signal,
    timeoutMs: opts.timeoutMs,
    ...(opts.since ? { lastEventId: opts.since } : {}),
    onLost: (reason, failures, everConnected) => {
      // Say it once per outage; every failed retry only with --debug.
      if (signal.aborted || (failures > 1 && !ctx.globals.debug)) return;
      io.stderr.write(`${everConnected ? 'connection lost' : 'cannot connect'} (${reason}); ${everConnected ? 'reconnecting' : 'retrying'}…\n`);
    },
    onReconnected: ({ awayMs, attempts, lastEventId, first }) => {
      io.stderr.write(
        first
          ? `connected after ${formatAway(awayMs)} (${attempts + 1} attempts)\n`
          : `reconnected after ${formatAway(awayMs)} away${lastEventId ? `, resuming after ${lastEventId}` : ''}\n`,
      );
    },
  });

  out.flush();
  if (out.failure) throw out.failure;
  // A closed stdout ends the tail quietly with 0: either a write reported EPIPE here, or the
  // process runtime aborted ctx.signal with an EPIPE-coded reason (Ctrl-C aborts without one).
  if (out.closed || isBrokenPipe(ctx.signal.reason)) return 0;

  if (result.outcome === 'stopped') {
    if (forwarder) {
      await forwarder.drain();
      out.flush();
    }
    return 0;
  }
  if (result.outcome === 'timed-out') {
    throw new NetworkError(
      `no connection to the event stream for ${formatAway(result.awayMs)} (--timeout); giving up`,
      result.lastEventId
        ? `check the service and the network; restart with --since ${result.lastEventId} to miss nothing`
        : 'check the service, the base URL (--base-url / SVC_BASE_URL) and the network',
    );
  }
  // Ctrl-C.
  const forwarded = forwarder
    ? `, ${forwarder.delivered} forwarded, ${forwarder.failed} not delivered, ${forwarder.unsent} still queued (not forwarded)`
    : '';
  io.stderr.write(
    `\nstopped: ${printed} event${printed === 1 ? '' : 's'}, ${result.reconnects} reconnect${result.reconnects === 1 ? '' : 's'}${forwarded}` +
      `${result.lastEventId ? `; last ${result.lastEventId}` : ''}\n`,
  );
  return 130;
}

export { parseTail as parse, runTail as run };
