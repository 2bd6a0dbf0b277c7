// Pure validators for command input: each returns the normalised value or throws a
// UsageError (exit 2) with a message that says what a valid value looks like.
export { invalid } from './invalid.js';
export { parseLanguageTag, parseLanguageList } from './language.js';
export { parseE164, parseCountryCode, parseAreaCode } from './phone.js';
export { parseDurationMs } from './duration.js';
export { parseId, parseIdWithPrefix, type IdKind } from './id.js';
export { parseText, MAX_PAGE_LIMIT } from './limit.js';
export { readKind, readValue, type FlagKind, type ValueRule } from './kinds.js';
export { audioContentType, checkVoiceSize, sniffAudio, sniffAudioType, AUDIO_SNIFF_BYTES, MAX_VOICE_BYTES } from './audio.js';
