// `svc chats send ID [TEXT]` — the text from the argument, or else from stdin.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { parseText } from '../../validate/index.js';
import { LIMITS } from '../../contract/constants.js';
import { call, readStdinText } from '../../kit/resources.js';
import { timeFormat } from '../../kit/views.js';
import { type Message, messageFields } from '../../kit/chats/views.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

/** A message's text, at most (the contract's, as the emulator's 422 checks it). */
const MAX_MESSAGE_CHARS = LIMITS.textCharacters;

export interface ChatsSendOptions {
  id: string;
  /** undefined: read the message from stdin. */
  text?: string;
  /** The language the text is written in (BCP 47); undefined: the chat's. Another than the chat's is translated to it. */
  language?: string;
  dryRun?: boolean;
}

export const command = defineCommand({
  mcp: { billable: 'write' },
  tool: {
    bills: 'chats.messages.create',
    title: 'Send a chat message',
    does: "Posts a text message to an open chat, translated to the chat's language when given in another.",
    requires: ['text'],
    returns: { id: 'msg_' },
  },
  summary: 'post a text message (TEXT, or stdin when omitted)',
  args: [
    { name: 'id', help: 'chat id', required: true, kind: { type: 'id', prefix: 'chat_' } },
    { name: 'text', help: 'the message (several words are joined with spaces)', variadic: true },
  ],
  flags: {
    language: {
      value: '<lang>',
      kind: { type: 'language' },
      help: "the language the text is in (BCP 47; default: the chat's); another is translated to the chat's",
    },
    dryRun: { help: 'print the request and the price it would draw; send nothing' },
  },
  examples: [
    'svc chats send chat_123 "Where is my order?"',
    'svc chats send chat_123 --language fr "Où est ma commande ?"',
    'echo hello | svc chats send chat_123',
  ],
  scopes: ['sessions:write'],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): ChatsSendOptions {
  const [id, ...words] = args;
  const opts: ChatsSendOptions = { id };
  if (flags.dryRun === true) opts.dryRun = true;
  if (flags.language !== undefined) opts.language = flags.language;
  // The limit is checked here, before any request (the service would refuse it with 422).
  if (words.length > 0) opts.text = parseText(words.join(' '), 'the message text', MAX_MESSAGE_CHARS);
  return opts;
}

export async function run(opts: ChatsSendOptions, ctx: Context): Promise<CommandResult> {
  const text =
    opts.text ??
    (await readStdinText(ctx, 'message', 'svc chats send chat_Q3vX8kTz1mLp9RbW2cYd "Hello", or echo "Hello" | svc chats send chat_Q3vX8kTz1mLp9RbW2cYd', {
      maxChars: MAX_MESSAGE_CHARS,
      name: 'the message text',
    }));
  parseText(text, 'the message text', MAX_MESSAGE_CHARS);
  const body: Record<string, unknown> = { text };
  if (opts.language !== undefined) body.language = opts.language;
  if (opts.dryRun) {
    // Posting a message is billed in live mode (docs/contract.md): by the characters translated.
    const { dryRun } = await import('../../kit/dry-run.js');
    return dryRun(ctx, { endpoint: 'chats.messages.create', params: { id: opts.id }, body });
  }
  const message = await call<Message>(ctx, 'chats.messages.create', { params: { id: opts.id }, body });
  return objectResult(message, messageFields(message, timeFormat(ctx)));
}

export default commandModule({ command, parse, run });
