import { LIMITS } from '../contract/index.js';
import { invalid } from './invalid.js';

/** docs/contract.md: POST /v1/chats/{id}/voice takes at most 10 MiB. */
export const MAX_VOICE_BYTES = LIMITS.voiceBytes;

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
    invalid(`${fileName} is not an audio file${extension ? ` (${extension})` : ' (no extension)'}: give a voice recording ending in one of ${known}`);
  }
  return type;
}

/** Size rules of the voice endpoint, checked before any upload. */
export function checkVoiceSize(fileName: string, bytes: number): void {
  if (bytes === 0) invalid(`${fileName} is empty: record something first`);
  if (bytes > MAX_VOICE_BYTES) {
    const mib = (bytes / 1024 / 1024).toFixed(1);
    invalid(`${fileName} is ${mib} MiB; voice messages may be at most 10 MiB: trim the recording, or compress it (e.g. to Ogg Opus or MP3) to under 10 MiB`);
  }
}

/** How many leading bytes `sniffAudio` needs (the longest signature ends at byte 12). */
export const AUDIO_SNIFF_BYTES = 12;

const ascii = (head: Uint8Array, at: number, text: string): boolean =>
  head.length >= at + text.length && [...text].every((char, i) => head[at + i] === char.charCodeAt(0));

// The container or stream signatures of the formats above, by their first bytes.
const SIGNATURES: ReadonlyArray<readonly [format: string, matches: (head: Uint8Array) => boolean]> = [
  ['Ogg', (head) => ascii(head, 0, 'OggS')],
  ['MP3 (ID3 tag)', (head) => ascii(head, 0, 'ID3')],
  // An MPEG audio frame (MP3) or an AAC ADTS frame: eleven set sync bits.
  ['MPEG/AAC frame', (head) => head.length >= 2 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0],
  ['WAV', (head) => ascii(head, 0, 'RIFF') && ascii(head, 8, 'WAVE')],
  ['FLAC', (head) => ascii(head, 0, 'fLaC')],
  ['MP4/M4A', (head) => ascii(head, 4, 'ftyp')],
  ['WebM', (head) => head.length >= 4 && head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3],
  ['AMR', (head) => ascii(head, 0, '#!AMR')],
];

/** The content type of each signature's format (AAC ADTS and MPEG audio share their sync bits: layer 0 is AAC). */
const FORMAT_TYPES: Record<string, (head: Uint8Array) => string> = {
  Ogg: () => 'audio/ogg',
  'MP3 (ID3 tag)': () => 'audio/mpeg',
  'MPEG/AAC frame': (head) => ((head[1]! & 0x06) === 0 ? 'audio/aac' : 'audio/mpeg'),
  WAV: () => 'audio/wav',
  FLAC: () => 'audio/flac',
  'MP4/M4A': () => 'audio/mp4',
  WebM: () => 'audio/webm',
  AMR: () => 'audio/amr',
};

/** The content type the first bytes announce, whatever the file is called; refused like sniffAudio when none. */
export function sniffAudioType(fileName: string, head: Uint8Array): string {
  return FORMAT_TYPES[sniffAudio(fileName, head)]!(head);
}

/**
 * The audio format the file's first bytes announce (at least AUDIO_SNIFF_BYTES of them,
 * fewer only for a shorter file); content that matches none is refused before upload,
 * whatever its extension says.
 */
export function sniffAudio(fileName: string, head: Uint8Array): string {
  const match = SIGNATURES.find(([, matches]) => matches(head));
  if (match === undefined) {
    invalid(
      `${fileName} does not contain audio (its first bytes match no audio format): give a recording in Ogg/Opus, MP3, AAC, WAV, FLAC, M4A/MP4, WebM or AMR`,
    );
  }
  return match[0];
}
