// `svc chats voice ID FILE|-` — the content type from the audio's first bytes, whatever
// the file is called (or from stdin with `-`); a missing, empty, too large or non-audio
// input is refused before any upload.
import { commandModule, defineCommand, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { AUDIO_SNIFF_BYTES, checkVoiceSize, sniffAudioType } from '../../validate/index.js';

import { call } from '../../kit/resources.js';
import { timeFormat } from '../../kit/views.js';
import { type Message, messageFields } from '../../kit/chats/views.js';
import { lazyRequire } from '../../node-require.js';
import { objectResult, type CommandResult } from '../../kit/result.js';

export interface ChatsVoiceOptions {
  id: string;
  /** A path, or `-` for stdin. */
  file: string;
}

export const command = defineCommand({
  summary: 'post a voice message from an audio file (≤ 10 MiB)',
  args: [
    { name: 'id', help: 'chat id', required: true, kind: { type: 'id', prefix: 'chat_' } },
    {
      name: 'file',
      help: 'audio file (Ogg/Opus, MP3, AAC, WAV, FLAC, M4A, WebM, AMR: told by its content), or - for stdin',
      required: true,
      kind: { type: 'file' },
    },
  ],
  examples: ['svc chats voice chat_123 question.ogg', 'record | svc chats voice chat_123 -'],
  scopes: ['sessions:write'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): ChatsVoiceOptions {
  return { id: args[0], file: args[1] };
}

export async function run(opts: ChatsVoiceOptions, ctx: Context): Promise<CommandResult> {
  const audio = opts.file === '-' ? await readVoiceStdin(ctx) : await readVoiceFile(opts.file);
  const contentType = sniffAudioType(opts.file === '-' ? 'stdin' : opts.file, audio.subarray(0, AUDIO_SNIFF_BYTES));
  const message = await call<Message>(ctx, 'chats.voice', {
    params: { id: opts.id },
    rawBody: audio,
    headers: { 'content-type': contentType },
  });
  return objectResult(message, messageFields(message, timeFormat(ctx)));
}

/** `-`: the recording piped in (bytes as they are; a test runtime without bytes gives its text). */
async function readVoiceStdin(ctx: Context): Promise<Uint8Array> {
  if (ctx.io.stdin.isTTY) throw new UsageError('`-` reads the recording from stdin: pipe one in, e.g. svc chats voice chat_Q3vX8kTz1mLp9RbW2cYd - < note.ogg');
  const bytes = ctx.io.stdin.readAllBytes ? await ctx.io.stdin.readAllBytes() : new TextEncoder().encode(await ctx.io.stdin.readAll());
  checkVoiceSize('stdin', bytes.byteLength);
  return bytes;
}

/**
 * The file's bytes, after the checks the service would otherwise make after a
 * possibly 10 MiB upload: it exists, is a file, is not empty, is at most 10 MiB, and
 * its first bytes are those of an audio format (a text file named fake.ogg is not
 * audio). Only the first bytes are read until those checks pass.
 * (Reading the user's named input file is the command's input, not a hidden side
 * effect, so it uses node:fs directly, loaded only here.)
 */
async function readVoiceFile(file: string): Promise<Uint8Array> {
  const { open } = lazyRequire('node:fs/promises');
  let handle: Awaited<ReturnType<typeof open>>;
  let size: number;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new UsageError(`${file} does not exist: give the path of an audio recording, e.g. note.ogg`);
    if (code === 'EISDIR') throw new UsageError(`${file} is not a file: give an audio recording, e.g. note.ogg`);
    throw new UsageError(`cannot read ${file}: ${code ?? (error as Error).message}`);
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new UsageError(`${file} is not a file: give an audio recording, e.g. note.ogg`);
    size = info.size;
    checkVoiceSize(file, size);
    const head = new Uint8Array(AUDIO_SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    sniffAudioType(file, head.subarray(0, bytesRead));
    return new Uint8Array(await handle.readFile());
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR') throw new UsageError(`${file} is not a file: give an audio recording, e.g. note.ogg`);
    throw new UsageError(`cannot read ${file}: ${code ?? (error as Error).message}`);
  } finally {
    await handle.close();
  }
}

export default commandModule({ command, parse, run });
