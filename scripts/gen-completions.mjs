// The shell completion scripts, svc.{bash,zsh,fish,ps1}, made from the manifest (the command
// declarations as data, src/kit/manifest.ts). The build writes them to dist/completions/
// (scripts/bundle.mjs: they are never committed); the npm package, the .deb and the tarballs
// ship them, and `svc completion SHELL` prints the same script.
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

/** What the manifest's bundle must export for completionFiles (scripts/generated.mjs's declaredManifest). */
export const COMPLETION_EXPORTS = "export { completionScript, SHELLS, COMPLETION_FILES } from './src/kit/completion/generate.ts';";

/** Each shell's script, `{ file, text }`. */
export function completionFiles({ manifest, completionScript, SHELLS, COMPLETION_FILES }) {
  return SHELLS.map((shell) => ({ file: COMPLETION_FILES[shell], text: completionScript(shell, manifest) }));
}
