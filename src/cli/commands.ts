// Where a command line finds the commands: the manifest (src/kit/manifest.ts) and a
// command's module. In the bundle, the manifest the build wrote beside it (dist/manifest.json)
// and the module from the bundle's table (src/cli/command-modules.ts); from the sources
// (tests), the same manifest made from the declarations in memory, and the module imported.
import type { LoadedCommand } from '../kit/define.js';
import type { Manifest } from '../kit/manifest.js';
import { requireNode } from '../node-require.js';
import { commandModules } from './command-modules.js';

export interface Commands {
  manifest: Manifest;
  /** The module a leaf of the manifest names (`calls/list`). */
  load(module: string): Promise<LoadedCommand>;
}

export async function loadCommands(): Promise<Commands> {
  // (A constant in the bundle, so esbuild leaves the sources' branch out of it.)
  if (typeof __SVC_VERSION__ === 'string')
    return {
      manifest: requireNode('./manifest.json') as Manifest,
      load: async (module) => {
        const load = commandModules[module];
        if (!load) throw Object.assign(new Error(`Cannot find module ${module}`), { code: 'ERR_MODULE_NOT_FOUND' });
        return (await load()) as LoadedCommand;
      },
    };
  const { declaredCommands } = await import('./declared.js');
  return declaredCommands();
}
