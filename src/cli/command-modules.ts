// Each command module by its path in the manifest (`calls/list`), imported when asked for.
// Empty here: the bundle's copy of this file is written by the build from the manifest
// (scripts/bundle.mjs), and esbuild evaluates a module so imported only when it is imported,
// so a command line runs its one command's module. From the sources (tests),
// src/cli/declared.ts imports the module itself.
export const commandModules: Readonly<Record<string, () => Promise<unknown>>> = {};
