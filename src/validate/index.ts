// Pure validators for command input: each returns the normalised value or throws
// InvalidValueError with a message that says what a valid value looks like.
export { InvalidValueError, invalid } from './invalid.js';
export { parseLanguageTag, parseLanguageList } from './language.js';
export { parseE164, parseCountryCode, parseAreaCode } from './phone.js';
export { parseDurationSeconds } from './duration.js';
export { parseId, type IdKind } from './id.js';
export { parseLimit, parseChoice, parseText, MAX_PAGE_LIMIT } from './limit.js';
export { audioContentType, checkVoiceSize, sniffAudio, sniffAudioType, AUDIO_SNIFF_BYTES, MAX_VOICE_BYTES } from './audio.js';
