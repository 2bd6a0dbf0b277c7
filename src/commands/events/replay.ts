// `svc events replay FILE`: events recorded by `events tail --record` (or the deliveries
// of a `--dead-letter` file) sent again, signed as the tail signs them, in their order and
// with their relative timing (by created_at; `--speed N` divides the waits, `--no-wait`
// drops them). Without --forward-to they are printed. Waits go through ctx.clock.
import { commandModule, defineCommand, repeated, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import { readFileSync } from 'node:fs';
import type { Context } from '../../context.js';
import { CliError, UsageError } from '../../errors.js';
import { openDeliveries } from '../../events/deliveries.js';
import { matchesType, type TypePattern } from '../../events/filter.js';
import { formatEventLine, type ApiEvent } from '../../events/format.js';
import { parseTypes } from './list.js';
import { parseForwardHeader, parseForwardRoute, type ForwardRoute } from '../../events/routes.js';
import { checkDeadLetterFile, lettersWhere, newerDeadLetterError, newerLetterVersion } from '../../events/dead-letter.js';

export interface ReplayOptions {
  file: string;
  routes: ForwardRoute[];
  forwardHeaders: Record<string, string>;
  deadLetter?: string;
  types: TypePattern[];
  /** Waits are divided by this; 0 = no waits. */
  speed: number;
}

export interface RecordedEvent {
  event: ApiEvent;
  /** The JSON delivered: the recorded line as it was. */
  json: string;
}

export const command = defineCommand({
  summary: 'send recorded (or dead-letter) events again, signed, in order',
  args: [{ name: 'file', help: 'NDJSON from events tail --record or --dead-letter', required: true, kind: { type: 'file' } }],
  flags: {
    forwardTo: { value: '<url>', repeatable: true, help: 'POST each event, signed, to URL; TYPE=URL for some types only (repeatable); else print them' },
    forwardHeader: { value: '<header>', repeatable: true, help: "add 'Name: value' to each delivery (repeatable)" },
    deadLetter: { value: '<file>', help: 'append deliveries given up on to FILE (NDJSON)' },
    type: { value: '<type>', repeatable: true, help: 'only this type or family (repeatable)' },
    speed: { value: '<n>', help: 'replay N times faster than recorded (default 1)' },
    wait: { negate: true, help: 'send at once, without the recorded pauses' },
  },
  examples: [
    'svc events replay events.ndjson --forward-to http://localhost:3000/hooks --no-wait',
    'svc events replay dead.ndjson --forward-to http://localhost:3000/hooks',
    'svc events replay events.ndjson --speed 10 --type call.*',
  ],
  scopes: [],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ReplayOptions {
  const file = args[0];
  if (!file) throw new UsageError('missing FILE: e.g. svc events replay events.ndjson --forward-to http://localhost:3000/hooks');
  if (args.length > 1) throw new UsageError(`events replay takes one FILE (got ${args.length})`);
  const opts: ReplayOptions = {
    file,
    routes: repeated(flags.forwardTo).map((raw) => parseForwardRoute(raw)),
    forwardHeaders: {},
    types: parseTypes(flags.type),
    speed: 1,
  };
  for (const raw of repeated(flags.forwardHeader)) {
    const [name, value] = parseForwardHeader(raw);
    opts.forwardHeaders[name] = value;
  }
  if ((Object.keys(opts.forwardHeaders).length || flags.deadLetter !== undefined) && opts.routes.length === 0) {
    throw new UsageError('--forward-header and --dead-letter apply to --forward-to deliveries; add --forward-to URL');
  }
  if (typeof flags.deadLetter === 'string') opts.deadLetter = flags.deadLetter;
  // commander's --no-wait sets wait: false.
  const noWait = flags.wait === false;
  if (flags.speed !== undefined) {
    if (noWait) throw new UsageError('give --speed N or --no-wait, not both');
    const text = String(flags.speed).trim();
    const n = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
    if (!(n > 0) || !Number.isFinite(n)) throw new UsageError(`--speed "${flags.speed}" must be a number above 0, e.g. 10 for ten times faster`);
    opts.speed = n;
  }
  if (noWait) opts.speed = 0;
  return opts;
}

/** Reads a record or dead-letter file; a line that is neither is a usage error naming it. */
export function readRecorded(path: string): RecordedEvent[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
  const out: RecordedEvent[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${path}:${i + 1} is not JSON`, 'give a file written by events tail --record or --dead-letter');
    }
    const isEvent = (v: unknown): v is ApiEvent =>
      !!v && typeof v === 'object' && typeof (v as ApiEvent).id === 'string' && typeof (v as ApiEvent).type === 'string';
    const newer = isEvent(value) ? undefined : newerLetterVersion(value);
    if (newer !== undefined) throw newerDeadLetterError(path, newer);
    // A dead letter wraps the event with the URL and the failure.
    const inner = value && typeof value === 'object' && 'event' in value ? (value as { event: unknown }).event : undefined;
    if (isEvent(inner)) out.push({ event: inner, json: JSON.stringify(inner) });
    else if (isEvent(value)) out.push({ event: value, json: line });
    else throw new UsageError(`${path}:${i + 1} is not an event or a dead letter`, 'give a file written by events tail --record or --dead-letter');
  }
  return out;
}

export async function run(opts: ReplayOptions, ctx: Context): Promise<void> {
  const { io } = ctx;
  const events = readRecorded(opts.file).filter((r) => matchesType(r.event.type, opts.types));
  // Before any delivery: a dead-letter path that cannot be written fails now, naming it.
  if (opts.deadLetter) checkDeadLetterFile(opts.deadLetter);
  const stop = new AbortController();
  const signal = AbortSignal.any([ctx.signal, stop.signal]);

  const deliveries = await openDeliveries(ctx, opts, signal);
  const style = { tty: io.stdout.isTTY, paintType: (_t: string, text: string) => text, columns: io.stdout.columns };

  let previousAt: number | undefined;
  let sent = 0;
  for (const { event, json } of events) {
    const at = Date.parse(event.created_at ?? '');
    if (opts.speed > 0 && previousAt !== undefined && !Number.isNaN(at) && at > previousAt) {
      try {
        await ctx.clock.sleep((at - previousAt) / opts.speed, signal);
      } catch {
        break;
      }
    }
    if (!Number.isNaN(at)) previousAt = at;
    if (signal.aborted) break;
    io.stdout.write((ctx.globals.json ? json : formatEventLine(event, ctx.clock.now(), style)) + '\n');
    if (deliveries) {
      deliveries.enqueue(event.id, event.type, json);
      if (deliveries.full) await deliveries.room();
    }
    sent++;
  }
  // Stopped by Ctrl-C: the runner ends the run with EXIT.interrupted.
  if (ctx.signal.aborted) {
    io.stderr.write(`\nstopped: ${sent} of ${events.length} event${events.length === 1 ? '' : 's'} replayed\n`);
    return;
  }
  if (!deliveries) return;
  await deliveries.drain();
  if (ctx.signal.aborted) return;
  if (deliveries.gaveUp > 0) {
    const where = opts.deadLetter ? ` (${lettersWhere(opts.deadLetter, deliveries.gaveUp, deliveries.lettersLost)})` : '';
    throw new CliError(`${deliveries.gaveUp} of ${events.length} deliveries given up after retries${where}`);
  }
}

export default commandModule({ command, parse, run });
