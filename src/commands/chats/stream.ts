// `svc chats stream ID` — the chat's new messages as they arrive; `--json` gives NDJSON,
// one message per line, written as each arrives. Ctrl-C ends it (the runner's EXIT.interrupted); a closed
// chat ends it (exit 0). The connection is followed like `events tail` does (the events
// command's follow loop): a drop or 45 s of silence reconnects with Last-Event-ID (the last
// message, or the position frame the stream opened with), and each reconnection also catches
// up from the message list, printing what was posted meanwhile exactly once. Nothing
// from the service for 5 minutes (keep-alive comments count): exit 9.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { CliError, EXIT, NetworkError } from '../../errors.js';
import { clockTime, note, printNdjson, printText, renderTsv, warn } from '../../io/output.js';
import { sanitizeLine, snippet } from '../../io/sanitize.js';
import { isRetryableFailure, random01From } from '../../api/retry.js';
import { formatAway } from '../../api/resume.js';
import { call } from '../../kit/resources.js';
import { timeFormat } from '../../kit/views.js';
import { type Chat, type Message, messageColumns, messageText, translationText } from '../../kit/chats/views.js';

export interface ChatsStreamOptions {
  id: string;
  /** Exit 1 instead of warning when the service says messages may be missing (a `gap` frame). */
  failOnGap?: boolean;
  /** `--timeout`: exit 9 once this long has passed since the start, whatever came meanwhile. */
  deadlineMs?: number;
}

/** Give up (exit 9) after this long with nothing from the service, so a supervisor can restart us. */
export const STREAM_TIMEOUT_MS = 5 * 60_000;
/** Message ids remembered to print each message once; far more than a reconnection can overlap. */
const SEEN_LIMIT = 10_000;

/** Thrown from a reconnection attempt when the chat has been closed: the stream is over. */
class ChatClosed extends Error {}

export const command = defineCommand({
  summary: "follow a chat's new messages live",
  args: [{ name: 'id', help: 'chat id', required: true, kind: { type: 'id', prefix: 'chat_' } }],
  flags: {
    failOnGap: { help: 'exit 1 when the service cannot resume without missing messages' },
    timeout: {
      value: '<duration>',
      kind: { type: 'duration', zero: 'none' },
      help: 'give up (exit 9) once this long has passed, whatever came meanwhile (default: never)',
    },
  },
  examples: ['svc chats stream chat_123', 'svc chats stream chat_123 --json'],
  scopes: ['sessions:read'],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ChatsStreamOptions {
  const opts: ChatsStreamOptions = { id: args[0] };
  if (flags.failOnGap === true) opts.failOnGap = true;
  if (flags.timeout !== undefined && flags.timeout !== 0) opts.deadlineMs = flags.timeout;
  return opts;
}

export async function run(opts: ChatsStreamOptions, ctx: Context): Promise<void> {
  const [{ openSse }, { follow }, gaps, api] = await Promise.all([
    import('../../api/sse.js'),
    import('../../api/reconnect.js'),
    import('../../events/gap.js'),
    ctx.api(),
  ]);
  const seen = new Set<string>();
  let lastDelivered: string | undefined;
  const print = (message: Message): void => {
    if (seen.has(message.id)) return; // a catch-up may overlap what the stream delivers
    seen.add(message.id);
    lastDelivered = message.id;
    if (seen.size > SEEN_LIMIT) seen.delete(seen.values().next().value!);
    printMessage(ctx, message);
  };
  /** The newest message when the stream first opened: older ones were never "new". */
  let marker: string | null | undefined;

  const newestFirst = async (limit: number, signal: AbortSignal): Promise<Message[]> =>
    (await call<{ data: Message[] }>(ctx, 'chats.messages.list', { params: { id: opts.id }, query: { limit }, signal })).data;

  // --timeout: a deadline for the whole command, which nothing the service sends moves.
  const ended = new AbortController();
  const stop = new AbortController();
  let deadlineReached = false;
  if (opts.deadlineMs !== undefined)
    ctx.clock.sleep(opts.deadlineMs, AbortSignal.any([ctx.signal, ended.signal])).then(
      () => {
        deadlineReached = true;
        stop.abort();
      },
      () => {},
    );
  try {
    const result = await follow({
      async open(lastEventId, signal) {
        const reconnecting = marker !== undefined;
        // A closed chat gets no new messages (and its stream would idle forever): stop here.
        const chat = await call<Chat>(ctx, 'chats.get', { params: { id: opts.id }, signal });
        if (chat.status === 'closed') throw new ChatClosed();
        if (reconnecting) note(ctx, 'the message stream was cut; reconnecting…');
        const stream = await openSse(api, { endpoint: 'chats.stream', params: { id: opts.id }, signal }, lastEventId);
        // Said once the stream is open: a message posted after it is never missed.
        if (!reconnecting && ctx.io.stderr.isTTY) note(ctx, `waiting for new messages in ${opts.id} (Ctrl-C to stop)`);
        // Read the list only once the stream is open, so that nothing falls between the two.
        if (!reconnecting) marker = (await newestFirst(1, signal))[0]?.id ?? null;
        else {
          const page = await newestFirst(100, signal);
          const cut = page.findIndex((m) => m.id === marker);
          for (const message of (cut === -1 ? page : page.slice(0, cut)).reverse()) print(message);
        }
        return stream;
      },
      onMessage(sse) {
        if (gaps.isGapFrame(sse.event) && !sse.id) {
          const warning = gaps.gapWarning(gaps.parseGap(sse.data), lastDelivered, 'messages');
          if (opts.failOnGap) throw new gaps.GapError(warning);
          ctx.io.stderr.write(sanitizeLine(warning) + '\n');
          return 'continue';
        }
        if (sse.event !== undefined && sse.event !== 'message') return 'continue';
        let message: unknown;
        try {
          message = JSON.parse(sse.data);
        } catch {
          message = undefined;
        }
        if (typeof message !== 'object' || message === null || typeof (message as Message).id !== 'string') {
          warn(ctx, `skipped a stream message that is not a chat message: ${snippet(sse.data)}`);
          return 'continue';
        }
        print(message as Message);
        return 'continue';
      },
      isRetryable,
      clock: ctx.clock,
      random01: () => random01From(ctx.random.bytes(3)),
      signal: AbortSignal.any([ctx.signal, stop.signal]),
      timeoutMs: STREAM_TIMEOUT_MS,
    });
    if (deadlineReached && result.outcome !== 'timed-out')
      throw new NetworkError(
        `--timeout ${formatAway(opts.deadlineMs!)} passed before the chat ${opts.id} closed; giving up`,
        '`svc chats messages` lists what was posted',
      );
    if (result.outcome === 'timed-out') {
      throw new CliError(
        `nothing from the message stream of ${opts.id} for ${Math.round(result.awayMs / 1000)} s (last: ${sanitizeLine(result.reason)})`,
        EXIT.upstream,
        'check the network and run it again; `svc chats messages` lists what was posted',
      );
    }
    return; // only Ctrl-C ends the follow loop otherwise (the runner's EXIT.interrupted)
  } catch (error) {
    if (error instanceof ChatClosed) {
      note(ctx, `${opts.id} is closed: no more messages`);
      return;
    }
    if (ctx.signal.aborted) return; // (EXIT.interrupted, the runner's)
    throw error;
  } finally {
    ended.abort();
  }
}

/** Worth reconnecting: what any stream reconnects for, but not a closed chat. */
function isRetryable(error: unknown): boolean {
  return !(error instanceof ChatClosed) && isRetryableFailure(error);
}

function printMessage(ctx: Context, message: Message): void {
  if (ctx.globals.json) return printNdjson(ctx, message);
  if (!ctx.io.stdout.isTTY) return ctx.io.stdout.write(renderTsv([message], messageColumns(timeFormat(ctx))));
  const time = clockTime(message.created_at);
  const kind = message.kind === 'voice' ? '(voice) ' : '';
  const translation = message.translation ? `  → ${translationText(message.translation)}` : '';
  // The message is whatever a participant (through the server) sent: control characters made inert.
  // A long message wraps at the terminal's width, under its text (src/io/width.ts).
  printText(ctx, `${time}  ${kind}${sanitizeLine(`${messageText(message)}${translation}`)}`);
}

export default commandModule({ command, parse, run });
