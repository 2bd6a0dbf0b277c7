// `svc events trigger TYPE`: makes the real API requests that cause an event of TYPE, in
// test mode only, from a fixture (fixtures/triggers/<TYPE>.json, or `--fixture FILE`),
// through the API client (credentials, retries, redaction). Live mode is refused: the
// requests would act for real and be billed.
import { defineCommand, type ArgsOf, type FlagsOf } from '../../cli/define.js';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { printJson } from '../../io/output.js';
import { EVENT_TYPES } from '../../shared/constants.js';
import { strings } from './list.js';
import { applyOverrides, fixturesDir, loadFixture, parseOverride, resolveReferences, type Fixture, type Override } from './fixture.js';

export interface TriggerOptions {
  type?: string;
  fixture?: string;
  overrides: Override[];
}

export const command = defineCommand({
  name: 'trigger',
  summary: 'cause an event of TYPE with real API requests (test mode only)',
  args: [{ name: 'type', help: 'event type, e.g. call.ended' }],
  flags: {
    override: { value: '<path=value>', repeatable: true, help: 'change a request field, e.g. call.title=Support (repeatable)' },
    fixture: { value: '<file>', help: 'run the steps of your own fixture file' },
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
  const opts: TriggerOptions = { overrides: strings(flags.override).map(parseOverride) };
  if (type) opts.type = type;
  if (fixture) opts.fixture = fixture;
  return opts;
}

export function builtinFixture(type: string): Fixture {
  return loadFixture(join(fixturesDir(), `${type}.json`), `the fixture of ${type}`);
}

export async function run(opts: TriggerOptions, ctx: Context): Promise<number> {
  let fixture = opts.fixture ? loadFixture(opts.fixture) : builtinFixture(opts.type!);
  fixture = applyOverrides(fixture, opts.overrides);
  const label = opts.type ?? fixture.type ?? opts.fixture!;

  const credential = await ctx.resolveCredential();
  if (credential.mode !== 'test') {
    throw new UsageError(
      `events trigger runs only in test mode: its requests are real, and in live mode they would act for real and be billed (${credential.source === 'env' ? 'SVC_API_KEY is a live key' : `profile "${credential.profileName}" is in live mode`})`,
      credential.source === 'env' ? 'set SVC_API_KEY to a test key (svc_test_…)' : 'add --test (or `svc mode test`)',
    );
  }
  if (fixture.unavailable_in_test_mode && !opts.fixture) {
    throw new UsageError(`${label} cannot be caused in test mode: ${fixture.unavailable_in_test_mode}`);
  }

  const api = await ctx.api();
  const results: Record<string, unknown> = {};
  const created: unknown[] = [];
  if (fixture.description) ctx.io.stderr.write(`${label}: ${fixture.description}\n`);
  for (const step of fixture.steps) {
    const where = `${opts.fixture ?? `the fixture of ${label}`}, step "${step.name}"`;
    const params = step.params ? (resolveReferences(step.params, results, where) as Record<string, unknown>) : undefined;
    const body = step.body === undefined ? undefined : resolveReferences(step.body, results, where);
    const answer = await api.request<unknown>({
      endpoint: step.request,
      ...(params ? { params: Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) } : {}),
      ...(body === undefined ? {} : { body }),
      signal: ctx.signal,
    });
    results[step.name] = answer;
    created.push(answer);
    if (!ctx.globals.json) {
      const o = (answer ?? {}) as { id?: unknown; object?: unknown; status?: unknown };
      const fields = [step.name, step.request, o.object, o.id, o.status].filter((v) => typeof v === 'string' && v !== '');
      ctx.io.stdout.write(fields.join('\t') + '\n');
    }
  }
  if (ctx.globals.json) printJson(ctx, created);
  ctx.io.stderr.write(`triggered ${label} in test mode (svc events tail shows the events)\n`);
  return 0;
}
