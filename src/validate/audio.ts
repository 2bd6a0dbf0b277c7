import { invalid } from './invalid.js';

/** api-contract.md: POST /v1/chats/{id}/voice takes at most 10 MiB. */
export const MAX_VOICE_BYTES = 10 * 1024 * 1024;

// The audio formats people record voice notes in, by file extension (IANA media types).
const AUDIO_TYPES: Record<string, string> = {
  '.aac': 'audio/aac',
  '.amr': 'audio/amr',
  '.flac': 'audio/flac',
  '.m4a': 'audio/mp4',
  '.mp3': 'audio/mpeg',
  '.oga': 'audio/ogg',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.wav': 'audio/wav',
  '.weba': 'audio/webm',
  '.webm': 'audio/webm',
};

/** The audio content type of a file, from its extension; anything else is refused before upload. */
export function audioContentType(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const slash = Math.max(fileName.lastIndexOf('/'), fileName.lastIndexOf('\\'));
  const extension = dot > slash ? fileName.slice(dot).toLowerCase() : '';
  const type = AUDIO_TYPES[extension];
  if (type === undefined) {
    const known = Object.keys(AUDIO_TYPES).join(' ');
    invalid(
      `${fileName} is not an audio file${extension ? ` (${extension})` : ' (no extension)'}: give a voice recording ending in one of ${known}`,
    );
  }
  return type;
}

/** Size rules of the voice endpoint, checked before any upload. */
export function checkVoiceSize(fileName: string, bytes: number): void {
  if (bytes === 0) invalid(`${fileName} is empty: record something first`);
  if (bytes > MAX_VOICE_BYTES) {
    const mib = (bytes / 1024 / 1024).toFixed(1);
    invalid(`${fileName} is ${mib} MiB; voice messages may be at most 10 MiB`);
  }
}
