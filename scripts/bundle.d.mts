/** Writes the svc bundle (main.cjs, emulator.js, lib/) into `outdir`. */
export function bundle(outdir: string): Promise<void>;
