// svc's global flags: the one declaration (a FlagSpecs of src/kit/define.ts, which
// src/commands/index.ts's root checks), and the one function that turns what the parser read
// into the form every command's context holds (GlobalOptions, src/shared/runtime.ts).
import type { Mode } from '../contract/constants.js';

/** The flags every command takes (anywhere on the line), declared once: help, the parse, completions and the context's GlobalOptions come from here. */
export const GLOBAL_FLAGS = {
  profile: { value: '<name>', help: 'profile to use (env SVC_PROFILE; default: the default profile)' },
  test: { help: 'use test mode (the test key; free of charge)', conflicts: 'live' },
  live: { help: 'use live mode (OAuth sign-in, else the live key; billed)', conflicts: 'test' },
  json: { help: "print the API's JSON (NDJSON for streams)" },
  jq: { value: '<expr>', help: "filter the JSON with jq (implies --json; each event of a stream), e.g. --jq '.data[].id'" },
  baseUrl: { value: '<url>', help: 'service address (env SVC_BASE_URL; default http://127.0.0.1:4010)' },
  debug: { help: 'print each request and response on stderr, credentials redacted' },
  color: { negate: true, help: 'no colour (also env NO_COLOR)' },
  yes: {
    short: '-y',
    help: 'answer yes to what svc asks on a terminal (a billable live action, removing a key or profile); without a terminal nothing is asked',
  },
} as const;

type Declared = typeof GLOBAL_FLAGS;
type ValueFlag<K extends keyof Declared> = Declared[K] extends { value: string } ? K : never;

/**
 * The global flags as a command's context holds them: a flag with a value when given, each
 * switch a boolean, and `--test`/`--live` as the mode.
 */
export type GlobalOptions = { [K in keyof Declared as ValueFlag<K>]?: string } & {
  [K in keyof Declared as K extends ValueFlag<K> | 'test' | 'live' ? never : K]: boolean;
} & { mode?: Mode };

/**
 * The global flags as the context holds them, from the parser's options (commander's
 * `optsWithGlobals()`, or what it had read when it refused the line): each switch a
 * boolean, a value flag when given, `--test`/`--live` as the mode.
 */
export function globalOptions(parsed: Readonly<Record<string, unknown>>): GlobalOptions {
  const options: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(GLOBAL_FLAGS)) {
    if (key === 'test' || key === 'live') continue;
    const given = parsed[key];
    if (!('value' in spec)) options[key] = given === undefined ? 'negate' in spec : Boolean(given);
    else if (typeof given === 'string') options[key] = given;
  }
  // --jq filters the JSON a command prints: it implies --json.
  if (typeof options.jq === 'string') options.json = true;
  const mode = parsed.test ? 'test' : parsed.live ? 'live' : undefined;
  return { ...options, ...(mode ? { mode } : {}) } as GlobalOptions;
}
