// `svc chats voice ID FILE` — content type from the extension; a missing, empty,
// too large or non-audio file (by extension or by its first bytes) is refused before any upload.
import { defineCommand, type ArgsOf, type FlagsOf } from '../../cli/define.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printObject } from '../../io/output.js';
import { AUDIO_SNIFF_BYTES, audioContentType, checkVoiceSize, parseId, sniffAudio } from '../../validate/index.js';
import { type Flags, call, requiredArg, validated } from '../calls/shared.js';
import { timeFormat } from '../calls/views.js';
import { type Message, messageFields } from './views.js';
import { requireNode } from '../../node-require.js';

export interface ChatsVoiceOptions {
  id: string;
  file: string;
  contentType: string;
}

export const command = defineCommand({
  name: 'voice',
  summary: 'post a voice message from an audio file (≤ 10 MiB)',
  args: [
    { name: 'id', help: 'chat id', required: true },
    { name: 'file', help: 'audio file (.wav, .mp3, .ogg, …)', required: true },
  ],
  examples: ['svc chats voice chat_123 question.ogg'],
  scopes: ['sessions:write'],
});

export function parse(args: ArgsOf<typeof command>, _flags: FlagsOf<typeof command>): ChatsVoiceOptions {
  const id = requiredArg(args, 0, 'chat ID', 'svc chats voice chat_8f2a1c note.ogg');
  const file = requiredArg(args, 1, 'audio FILE', 'svc chats voice chat_8f2a1c note.ogg');
  return validated(() => ({ id: parseId(id, 'chat'), file, contentType: audioContentType(file) }));
}

export async function run(opts: ChatsVoiceOptions, ctx: Context): Promise<void> {
  const audio = await readVoiceFile(opts.file);
  const message = await call<Message>(ctx, 'chats.voice', {
    params: { id: opts.id },
    rawBody: audio,
    headers: { 'content-type': opts.contentType },
  });
  await printObject(ctx, messageFields(message, timeFormat(ctx)), message);
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
  const { open } = requireNode('node:fs/promises') as typeof import('node:fs/promises');
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
    validated(() => checkVoiceSize(file, size));
    const head = new Uint8Array(AUDIO_SNIFF_BYTES);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    validated(() => sniffAudio(file, head.subarray(0, bytesRead)));
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
