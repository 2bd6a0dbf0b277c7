/** Writes the svc bundle (main.cjs, emulator.js, lib/) into `outdir`. */
export function bundle(outdir: string): Promise<void>;
/** esbuild plugin: the command indexes' static imports get each module's declaration only. */
export const declarationsOnly: import('esbuild').Plugin;
