// Trigger fixtures: the API requests that cause an event, as data (fixtures/triggers/
// <type>.json in the package, or a user's own file with `--fixture`). Each step names a
// row of the endpoint table, with `params` and a JSON `body`; a string "${step.path}"
// refers to a field of an earlier step's answer (the whole string keeps the field's type;
// inside a longer string it is spliced in as text).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENDPOINTS, type EndpointName } from '../contract/endpoints.js';
import { UsageError } from '../errors.js';

export interface FixtureStep {
  name: string;
  request: EndpointName;
  params?: Record<string, string>;
  body?: unknown;
}

export interface Fixture {
  type?: string;
  description?: string;
  /** Why the type cannot be caused in test mode with the real API (trigger refuses it). */
  unavailable_in_test_mode?: string;
  steps: FixtureStep[];
}

const REFERENCE = /\$\{([A-Za-z_][\w-]*)((?:\.[\w-]+)*)\}/g;

/** The package's fixtures folder: beside src/ when run from the sources, beside dist/ when bundled. */
export function fixturesDir(start = dirname(fileURLToPath(import.meta.url))): string {
  let dir = start;
  for (let i = 0; i < 6; i++) {
    const candidate = join(dir, 'fixtures', 'triggers');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error(`the trigger fixtures (fixtures/triggers) are missing from the installation near ${start}`);
}

/** Checks a fixture's shape; `where` names it in errors. */
export function validateFixture(value: unknown, where: string): Fixture {
  const bad = (what: string): never => {
    throw new UsageError(`${where}: ${what}`, 'see fixtures/triggers/*.json in the svc package for the format');
  };
  if (!value || typeof value !== 'object' || Array.isArray(value)) bad('not a JSON object');
  const f = value as Record<string, unknown>;
  if (!Array.isArray(f.steps) || f.steps.length === 0) bad('"steps" must be a non-empty list');
  const names = new Set<string>();
  const steps = (f.steps as unknown[]).map((raw, i) => {
    if (!raw || typeof raw !== 'object') bad(`step ${i + 1} is not an object`);
    const step = raw as Record<string, unknown>;
    const name = typeof step.name === 'string' && step.name ? step.name : `step${i + 1}`;
    if (names.has(name)) bad(`two steps are named "${name}"`);
    names.add(name);
    const request = step.request;
    if (typeof request !== 'string' || !(request in ENDPOINTS))
      bad(`step "${name}": "request" must name an API endpoint (e.g. calls.create), not ${JSON.stringify(request)}`);
    const endpoint = ENDPOINTS[request as EndpointName] as { method: string; path: string; stream?: boolean; scope: string | null };
    if (endpoint.stream || endpoint.scope === null || !endpoint.path.startsWith('/v1/')) bad(`step "${name}": ${request} is not a request a trigger can make`);
    if (step.params !== undefined && (typeof step.params !== 'object' || step.params === null)) bad(`step "${name}": "params" must be an object`);
    const out: FixtureStep = { name, request: request as EndpointName };
    if (step.params !== undefined) out.params = step.params as Record<string, string>;
    if (step.body !== undefined) out.body = step.body;
    return out;
  });
  const fixture: Fixture = { steps };
  if (typeof f.type === 'string') fixture.type = f.type;
  if (typeof f.description === 'string') fixture.description = f.description;
  if (typeof f.unavailable_in_test_mode === 'string') fixture.unavailable_in_test_mode = f.unavailable_in_test_mode;
  return fixture;
}

export function loadFixture(path: string, where = path): Fixture {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${where}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${where} is not JSON: ${(error as Error).message}`);
  }
  return validateFixture(value, where);
}

function lookup(results: Record<string, unknown>, step: string, path: string, where: string): unknown {
  if (!(step in results)) throw new UsageError(`${where}: \${${step}${path}} refers to no earlier step`);
  let value: unknown = results[step];
  for (const key of path.split('.').filter(Boolean)) {
    value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  }
  if (value === undefined) throw new UsageError(`${where}: \${${step}${path}} is not in the answer of step "${step}"`);
  return value;
}

/** Replaces every "${step.path}" in `value` with what the earlier steps answered. */
export function resolveReferences(value: unknown, results: Record<string, unknown>, where: string): unknown {
  if (typeof value === 'string') {
    const whole = /^\$\{([A-Za-z_][\w-]*)((?:\.[\w-]+)*)\}$/.exec(value);
    if (whole) return lookup(results, whole[1]!, whole[2]!, where);
    return value.replace(REFERENCE, (_m, step: string, path: string) => String(lookup(results, step, path, where)));
  }
  if (Array.isArray(value)) return value.map((v) => resolveReferences(v, results, where));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveReferences(v, results, where)]));
  }
  return value;
}

export interface Override {
  /** The step whose body changes (undefined: the last step, the one that causes the event). */
  step?: string;
  path: string[];
  value: unknown;
}

/** `--override path=value`: `[STEP.]FIELD[.FIELD…]=VALUE`, VALUE read as JSON when it is JSON. */
export function parseOverride(raw: string): Override {
  const eq = raw.indexOf('=');
  const path = eq > 0 ? raw.slice(0, eq).trim() : '';
  if (!/^[\w-]+(\.[\w-]+)*$/.test(path)) {
    throw new UsageError(
      `--override ${JSON.stringify(raw)} is not path=value`,
      'e.g. --override call.title="Support line" or --override languages=\'["en","fr"]\'',
    );
  }
  const text = raw.slice(eq + 1);
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    // a plain string
  }
  return { path: path.split('.'), value };
}

/** Applies overrides to the fixture's bodies; a first segment naming a step picks that step. */
export function applyOverrides(fixture: Fixture, overrides: Override[]): Fixture {
  const steps = fixture.steps.map((s) => ({ ...s, body: s.body === undefined ? undefined : structuredClone(s.body) }));
  for (const o of overrides) {
    let path = o.path;
    let step = steps.find((s) => s.name === path[0]);
    if (step && path.length > 1) path = path.slice(1);
    else step = steps[steps.length - 1]!;
    if (step.body === undefined) step.body = {};
    let target = step.body as Record<string, unknown>;
    for (const key of path.slice(0, -1)) {
      const next = target[key];
      if (!next || typeof next !== 'object') target[key] = {};
      target = target[key] as Record<string, unknown>;
    }
    target[path[path.length - 1]!] = o.value;
  }
  return { ...fixture, steps: steps.map(({ body, ...rest }) => (body === undefined ? rest : { ...rest, body })) };
}
