// `npm run build`: the bundle in dist/ (see scripts/bundle.mjs for its layout).
import { rmSync } from 'node:fs';
import { bundle } from './bundle.mjs';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await bundle(new URL('../dist', import.meta.url).pathname);
