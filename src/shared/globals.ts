// svc's global flags: the one declaration (a FlagSpecs of src/commands/define.ts, which
// src/commands/index.ts's ROOT checks). Data only, so the context's types derive from it here.
/** The flags every command takes (anywhere on the line), declared once: help, the parse, completions and the context's GlobalOptions come from here. */
export const GLOBAL_FLAGS = {
  profile: { value: '<name>', help: 'profile to use (env SVC_PROFILE; default: the default profile)' },
  test: { help: 'use test mode (the test key; free of charge)', conflicts: 'live' },
  live: { help: 'use live mode (OAuth sign-in, else the live key; billed)', conflicts: 'test' },
  json: { help: "print the API's JSON (NDJSON for streams)" },
  baseUrl: { value: '<url>', help: 'service address (env SVC_BASE_URL; default http://127.0.0.1:4010)' },
  debug: { help: 'print each request and response on stderr, credentials redacted' },
  color: { negate: true, help: 'no colour (also env NO_COLOR)' },
  yes: { short: '-y', help: 'skip the confirmation a billable live action asks on a terminal (without a terminal nothing is asked)' },
} as const;
