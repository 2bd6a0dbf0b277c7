// The emulator has no interpreter: every translation is the test-mode stand-in
// `[<language>] <text>` (docs/contract.md "Test mode"), in live mode too.
export function standInTranslation(text: string, to: string): string {
  return `[${to}] ${text}`;
}

/** Characters as the contract counts them (code points). */
export { characterCount } from '../contract/rules.js';

export function voicePlaceholderTranscript(bytes: number): string {
  return `(placeholder transcript of a ${bytes}-byte voice message)`;
}
