/** Defined by scripts/build.mjs (esbuild `define`); undefined when vitest runs the sources. */
declare const __SVC_VERSION__: string | undefined;
