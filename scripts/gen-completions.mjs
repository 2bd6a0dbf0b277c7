// Writes completions/svc.{bash,zsh,fish,ps1} from the manifest (the command declarations as
// data, src/kit/manifest.ts: what the build writes to dist/manifest.json).
// test/core/completion.test.ts regenerates them and fails when the files drift.
//   node scripts/gen-completions.mjs          write the files
//   node scripts/gen-completions.mjs --check  exit 1 when a file differs
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { declaredManifest, root, writeFiles } from './generated.mjs';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

const { manifest, completionScript, SHELLS, COMPLETION_FILES } = await declaredManifest(
  "export { completionScript, SHELLS, COMPLETION_FILES } from './src/kit/completion/generate.ts';",
);
const dir = join(root, 'completions');
mkdirSync(dir, { recursive: true });
const files = SHELLS.map((shell) => ({ file: join(dir, COMPLETION_FILES[shell]), text: completionScript(shell, manifest) }));
process.exitCode = writeFiles(files, { check: process.argv.includes('--check'), fix: 'npm run completions' }) ? 1 : 0;
