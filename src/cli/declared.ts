// The commands as the sources declare them, for a command line run from the sources (tests):
// src/commands/ walked and the manifest made in memory as the build makes it.
// The bundle never holds this module (src/cli/commands.ts reads the build's manifest there).
import { fileURLToPath, pathToFileURL } from 'node:url';
import { commandFiles } from '../kit/command-files.js';
import type { LoadedCommand } from '../kit/define.js';
import { manifestOf, type Manifest } from '../kit/manifest.js';

const commandsDir = fileURLToPath(new URL('../commands/', import.meta.url));

/** A module by its path under src/commands/ (a file URL: the path is not one the bundler can see). */
const importModule = (path: string): Promise<unknown> => import(pathToFileURL(`${commandsDir}${path}.ts`).href);

/** Read once: the files do not change under a run. */
const paths = commandFiles(commandsDir);

export async function declaredCommands(): Promise<{ manifest: Manifest; load(module: string): Promise<LoadedCommand> }> {
  const modules = Object.fromEntries(await Promise.all(paths.map(async (path) => [path, (await importModule(path)) as Record<string, unknown>] as const)));
  return {
    manifest: manifestOf(modules),
    load: async (module) => (await importModule(module)) as LoadedCommand,
  };
}

/** The whole command tree, from the sources: what in-process tests walk, help and tools are made of. */
export async function declaredTree(): Promise<Manifest> {
  return (await declaredCommands()).manifest;
}
