// `svc events trigger TYPE`: makes the real API requests that cause an event of TYPE, in
// test mode only, from a fixture (fixtures/triggers/<TYPE>.json, or `--fixture FILE`),
// through the API client (credentials, retries, redaction). Live mode is refused: the
// requests would act for real and be billed.
import { commandModule, defineCommand, repeated, type ArgsOf, type FlagsOf } from '../../kit/define.js';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { ApiError, UsageError } from '../../errors.js';
import { type Column } from '../../io/output.js';
import { EVENT_TYPES, modeOfKey } from '../../contract/constants.js';
import { chooseMode, chooseProfileName, parseModeValue } from '../../credentials/resolve.js';
import { applyOverrides, fixturesDir, loadFixture, parseOverride, resolveReferences, type Fixture, type Override } from '../../events/fixture.js';
import { listResult, type CommandResult } from '../../kit/result.js';

export interface TriggerOptions {
  type?: string;
  fixture?: string;
  overrides: Override[];
}

export const command = defineCommand({
  mcp: 'write',
  tool: {
    title: 'Trigger a test event',
    does: 'Causes an event of a type by making the real test-mode requests that cause it.',
    only: 'test',
    requires: ['type'],
    closed: { type: 'event_type' },
    returns: { list: true },
  },
  summary: 'cause an event of TYPE with real API requests (test mode only)',
  args: [{ name: 'type', help: 'event type, e.g. call.ended' }],
  flags: {
    override: { value: '<path=value>', repeatable: true, help: 'change a request field, e.g. call.title=Support (repeatable)' },
    fixture: { value: '<file>', kind: { type: 'file' }, help: 'run the steps of your own fixture file' },
  },
  examples: [
    'svc --test events trigger call.ended',
    'svc events trigger chat.message.created --override message.text="Où est ma commande ?"',
    'svc events trigger --fixture my-steps.json --json',
  ],
  scopes: ['calls:write', 'sessions:write', 'translate'],
});

export function parse(args: ArgsOf<typeof command>, flags: FlagsOf<typeof command>): TriggerOptions {
  const type = args[0];
  const fixture = typeof flags.fixture === 'string' ? flags.fixture : undefined;
  if (!type && !fixture) {
    throw new UsageError(`missing TYPE: one of ${EVENT_TYPES.join(', ')}`, 'e.g. svc events trigger call.ended, or --fixture FILE for your own steps');
  }
  if (type && !fixture && !(EVENT_TYPES as readonly string[]).includes(type)) {
    throw new UsageError(`${JSON.stringify(type)} is not an event type; known types: ${EVENT_TYPES.join(', ')}`);
  }
  if (args.length > 1) throw new UsageError('events trigger takes one TYPE');
  const opts: TriggerOptions = { overrides: repeated(flags.override).map(parseOverride) };
  if (type) opts.type = type;
  if (fixture) opts.fixture = fixture;
  return opts;
}

/**
 * Why this run would be in live mode (the flag, SVC_MODE, SVC_API_KEY or the profile), found
 * without reading any secret; undefined in test mode, or when only the credential can tell.
 */
async function liveModeReason(ctx: Context): Promise<string | undefined> {
  const envKey = ctx.env.SVC_API_KEY;
  if (envKey) return modeOfKey(envKey) === 'live' ? 'SVC_API_KEY is a live key' : undefined;
  if (ctx.globals.mode) return ctx.globals.mode === 'live' ? '--live' : undefined;
  if (ctx.env.SVC_MODE) return parseModeValue(ctx.env.SVC_MODE, 'SVC_MODE') === 'live' ? 'SVC_MODE is live' : undefined;
  let config;
  try {
    config = await ctx.config.read();
  } catch {
    return undefined; // resolving the credential reports a damaged config
  }
  const name = chooseProfileName(ctx, config);
  return chooseMode(ctx, config.profiles[name]) === 'live' ? `profile "${name}" is in live mode` : undefined;
}

interface StepRow {
  step: string;
  request: string;
  object?: string | undefined;
  id?: string | undefined;
  status?: string | undefined;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Each step and what it made: a table at a terminal, tab-separated lines when piped. */
const STEP_COLUMNS: Column<StepRow>[] = [
  { header: 'STEP', value: (r) => r.step },
  { header: 'REQUEST', value: (r) => r.request },
  { header: 'OBJECT', value: (r) => r.object, drop: 1 },
  { header: 'ID', value: (r) => r.id },
  { header: 'STATUS', value: (r) => r.status },
];

export function builtinFixture(type: string): Fixture {
  return loadFixture(join(fixturesDir(), `${type}.json`), `the fixture of ${type}`);
}

export async function run(opts: TriggerOptions, ctx: Context): Promise<CommandResult> {
  let fixture = opts.fixture ? loadFixture(opts.fixture) : builtinFixture(opts.type!);
  fixture = applyOverrides(fixture, opts.overrides);
  const label = opts.type ?? fixture.type ?? opts.fixture!;

  // Refused before any credential is looked for: a live-mode run is a mistake whatever is stored.
  const live = await liveModeReason(ctx);
  if (live) {
    throw new UsageError(
      `events trigger runs only in test mode: its requests are real, and in live mode they would act for real and be billed (${live})`,
      ctx.env.SVC_API_KEY ? 'set SVC_API_KEY to a test key (svc_test_…)' : 'add --test (or `svc mode test`)',
    );
  }
  const credential = await ctx.resolveCredential();
  if (credential.mode !== 'test') throw new UsageError('events trigger runs only in test mode', 'add --test');
  if (fixture.unavailable_in_test_mode && !opts.fixture) {
    throw new UsageError(`${label} cannot be caused in test mode: ${fixture.unavailable_in_test_mode}`);
  }

  const api = await ctx.api();
  const results: Record<string, unknown> = {};
  const created: unknown[] = [];
  const steps: StepRow[] = [];
  if (fixture.description) ctx.io.stderr.write(`${label}: ${fixture.description}\n`);
  for (const step of fixture.steps) {
    const where = `${opts.fixture ?? `the fixture of ${label}`}, step "${step.name}"`;
    const params = step.params ? (resolveReferences(step.params, results, where) as Record<string, unknown>) : undefined;
    const body = step.body === undefined ? undefined : resolveReferences(step.body, results, where);
    const answer = await api
      .request<unknown>({
        endpoint: step.request,
        ...(params ? { params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) } : {}),
        ...(body === undefined ? {} : { body }),
        signal: ctx.signal,
      })
      .catch((error: unknown) => {
        // A trigger runs in test mode only: advice to switch to live mode does not fit it.
        if (error instanceof ApiError && error.hint?.includes('--live'))
          throw new ApiError(error.message, error.status, error.exitCode, error.body, `${where} asks for what only live mode does`);
        throw error;
      });
    results[step.name] = answer;
    created.push(answer);
    const o = (answer ?? {}) as { id?: unknown; object?: unknown; status?: unknown };
    steps.push({ step: step.name, request: step.request, object: text(o.object), id: text(o.id), status: text(o.status) });
  }
  // The JSON is what the service answered to each step; a person reads one row a step.
  return listResult(steps, STEP_COLUMNS, { value: created, after: `triggered ${label} in test mode (svc events tail shows the events)` });
}

export default commandModule({ command, parse, run });
