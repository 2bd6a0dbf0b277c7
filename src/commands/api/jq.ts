// `--jq EXPR`: the real jq (jq-wasm: jq compiled to WebAssembly, the module inline in
// its JavaScript, nothing downloaded), loaded only when the flag is used. Strings print
// raw, as `gh api --jq` prints them (jq -r).
import { CliError, UsageError } from '../../errors.js';

interface JqModule {
  raw(data: string | object, filter: string, flags?: string[]): Promise<string>;
}

/** Runs `filter` over the JSON text; one line per result. */
export async function applyJq(json: string, filter: string): Promise<string> {
  const loaded = (await import('jq-wasm')) as unknown as { default?: JqModule } & Partial<JqModule>;
  const jq: JqModule = loaded.default?.raw ? loaded.default : (loaded as JqModule);
  let output: string;
  try {
    output = await jq.raw(json, filter, ['-r']);
  } catch (error) {
    const message = (error as Error).message.replace(/^Failed to execute raw query: /, '').trim();
    // A filter that does not compile is the user's input; one that fails on this answer is a failure of the run.
    if (/compile error/.test(message))
      throw new UsageError(`--jq: the filter does not compile: ${message.split('\n')[0]}`, "see the jq manual for its syntax, e.g. --jq '.data[].id'");
    throw new CliError(`--jq: ${message.split('\n')[0]}`);
  }
  return output === '' ? '' : output.endsWith('\n') ? output : output + '\n';
}
