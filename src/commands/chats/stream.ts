// `svc chats stream ID` — the chat's new messages as they arrive; `--json` gives NDJSON,
// one message per line, written as each arrives. Ctrl-C ends it (exit 130); a closed
// chat ends it (exit 0); a dropped connection reconnects and catches up from the list.
import type { Context } from '../../context.js';
import { CliError, EXIT, InterruptedError } from '../../errors.js';
import { note, printNdjson, renderTsv } from '../../io/output.js';
import { parseId } from '../../validate/index.js';
import { type Flags, call, requiredArg, validated } from '../calls/shared.js';
import { timeFormat } from '../calls/views.js';
import { type Chat, type Message, messageColumns, messageText } from './views.js';

export interface ChatsStreamOptions {
  id: string;
}

/** Reconnections in a row without receiving anything before giving up (exit 9). */
const MAX_RECONNECTS = 5;

export function parse(args: string[], _flags: Flags): ChatsStreamOptions {
  const id = requiredArg(args, 0, 'chat ID', 'svc chats stream chat_8f2a1c');
  return { id: validated(() => parseId(id, 'chat')) };
}

export async function run(opts: ChatsStreamOptions, ctx: Context): Promise<number> {
  const [{ readSse }, api] = await Promise.all([import('../../api/sse.js'), ctx.api()]);
  const seen = new Set<string>();
  const print = (message: Message): void => {
    if (seen.has(message.id)) return; // a catch-up after a reconnect may overlap the stream
    seen.add(message.id);
    printMessage(ctx, message);
  };
  if (ctx.io.stderr.isTTY) note(ctx, `waiting for new messages in ${opts.id} (Ctrl-C to stop)`);

  let failures = 0;
  /** Server time of the first connection (its Date header): what is older was never "new". */
  let since: number | undefined;
  for (;;) {
    try {
      const response = await api.stream({ endpoint: 'chats.stream', params: { id: opts.id }, headers: { accept: 'text/event-stream' } });
      // Messages posted while we were away are not replayed by the stream: fetch them.
      if (since !== undefined) await catchUp(ctx, opts.id, since, print);
      else since = serverTime(response.headers.get('date')) ?? ctx.clock.now();
      if (response.body) {
        for await (const sse of readSse(response.body)) {
          failures = 0;
          if (sse.event !== undefined && sse.event !== 'message') continue;
          print(JSON.parse(sse.data) as Message);
        }
      }
    } catch (error) {
      if (ctx.signal.aborted || error instanceof InterruptedError) return EXIT.interrupted;
      if (error instanceof CliError) throw error; // 4xx from the service: 404, 403, 401…
      // The connection broke mid-stream: reconnect below.
    }
    if (ctx.signal.aborted) return EXIT.interrupted;
    // The stream ended. A closed chat has nothing more to say; otherwise reconnect.
    const chat = await call<Chat>(ctx, 'chats.get', { params: { id: opts.id } });
    if (chat.status === 'closed') {
      note(ctx, `${opts.id} is closed: no more messages`);
      return EXIT.ok;
    }
    failures += 1;
    if (failures > MAX_RECONNECTS) {
      throw new CliError(`the message stream of ${opts.id} keeps ending (${MAX_RECONNECTS} reconnections)`, EXIT.upstream, 'run it again; `svc chats messages` lists what was posted');
    }
    note(ctx, 'the message stream ended; reconnecting…');
    try {
      await ctx.clock.sleep(Math.min(500 * 2 ** (failures - 1), 8000), ctx.signal);
    } catch {
      return EXIT.interrupted;
    }
  }
}

/** The newest page of messages posted since the stream began, oldest first (print skips those already shown). */
async function catchUp(ctx: Context, chatId: string, since: number, print: (m: Message) => void): Promise<void> {
  const page = await call<{ data: Message[] }>(ctx, 'chats.messages.list', { params: { id: chatId }, query: { limit: 100 } });
  for (const message of [...page.data].reverse()) if (Date.parse(message.created_at) >= since) print(message);
}

/** An HTTP Date header (1 s precision) as ms, one second early to be safe; undefined if absent. */
function serverTime(header: string | null): number | undefined {
  const ms = header ? Date.parse(header) : Number.NaN;
  return Number.isNaN(ms) ? undefined : ms - 1000;
}

function printMessage(ctx: Context, message: Message): void {
  if (ctx.globals.json) return printNdjson(ctx, message);
  if (!ctx.io.stdout.isTTY) return ctx.io.stdout.write(renderTsv([message], messageColumns(timeFormat(ctx))));
  const time = new Date(message.created_at).toLocaleTimeString();
  const kind = message.kind === 'voice' ? '(voice) ' : '';
  const translation = message.translation ? `  → [${message.translation.language}] ${message.translation.text}` : '';
  ctx.io.stdout.write(`${time}  ${kind}${messageText(message)}${translation}\n`);
}
