// A tool's input schema from its command's typed flags and arguments (src/validate/kinds.ts
// FlagKind): zod, which the MCP SDK turns into the JSON Schema the assistant sees and checks
// each call against. A value of a kind is checked by that kind's own rule (readValue, the
// command line's too), so a tool and the command line accept the same words; the schema adds
// only the shape, the bounds the declaration states, and a hint of what a value looks like.
import type { ZodType } from 'zod';
import { EVENT_TYPES } from '../contract/constants.js';
import { UsageError } from '../errors.js';
import { readValue, type ValueRule } from '../validate/kinds.js';
import type { ToolFacts } from '../kit/define.js';
import type { Param, ToolSpec } from './tool-spec.js';

type Zod = typeof import('zod');

/** No string an assistant sends is longer: svc's longest input (a translation) is 5,000 characters. */
export const MAX_STRING = 20_000;
/**
 * Nor a cursor: it travels in the URL, and the service's are short; a longer one is refused as
 * invalid input, never sent to fail as a URL too long.
 */
export const MAX_CURSOR = 1_000;
/** Nor a list longer. */
export const MAX_ITEMS = 100;

/** The contract's closed sets a tool input may name (ToolFacts.closed). */
export function closedSet(set: NonNullable<ToolFacts['closed']>[string]): string[] {
  if (set === 'event_type') return [...EVENT_TYPES];
  const families = [...new Set(EVENT_TYPES.map((type) => type.split('.')[0]!))];
  return [...EVENT_TYPES, ...families.map((family) => `${family}.*`)];
}

/** What a value of a kind looks like, for the assistant (the rule itself is readValue's). */
const HINT: Record<string, string> = {
  duration: 'a duration, e.g. 90s, 30m, 1h30m',
  money: 'dollars, e.g. 0.50',
  language: 'e.g. es, pt-BR',
};

/** A string checked by its kind's own rule; the rule's refusal is the schema's message. */
function ruled(z: Zod, rule: ValueRule, property: string): ZodType {
  const base =
    rule.kind?.type === 'id'
      ? z
          .string()
          .max(200)
          .regex(new RegExp(`^${rule.kind.prefix}`))
      : z.string().max(MAX_STRING);
  return base.superRefine((text, issues) => {
    try {
      readValue(rule, text, property);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      issues.addIssue({ code: 'custom', message: error.message });
    }
  });
}

function valueSchema(z: Zod, rule: ValueRule, property: string, closed: string[] | undefined): ZodType {
  if (rule.choices ?? closed) return z.enum((rule.choices ?? closed) as [string, ...string[]]);
  const kind = rule.kind;
  if (kind?.type === 'integer') {
    let schema = z.number().int();
    if (kind.min !== undefined) schema = schema.min(kind.min);
    if (kind.max !== undefined) schema = schema.max(kind.max);
    return schema;
  }
  return kind ? ruled(z, rule, property) : z.string().max(MAX_STRING);
}

function paramSchema(z: Zod, param: Param, facts: ToolFacts | undefined): ZodType {
  const { spec } = param;
  let schema: ZodType;
  if (param.from === 'flag' && !param.spec.value) schema = z.boolean();
  else if (param.property === 'cursor') schema = z.string().min(1).max(MAX_CURSOR);
  else {
    const closed = facts?.closed?.[param.property];
    const one = valueSchema(z, spec, param.property, closed ? closedSet(closed) : undefined);
    const many = param.from === 'arg' ? param.spec.variadic : param.spec.repeatable;
    // A variadic argument's words are joined with spaces by the command: one string does too.
    schema = many ? (param.from === 'arg' ? z.union([one, z.array(one).max(MAX_ITEMS)]) : z.array(one).max(MAX_ITEMS)) : one;
  }
  const hint = spec.kind ? HINT[spec.kind.type] : undefined;
  // The help's own example is enough; "(repeatable)" is the command line's way of saying what the array type says.
  const said = spec.help.replace(/ \(repeatable\)/, '');
  const help = [
    said,
    said.includes('e.g.') ? undefined : hint,
    param.from === 'flag' && param.spec.default !== undefined ? `default ${param.spec.default}` : undefined,
  ];
  schema = schema.describe(help.filter(Boolean).join('; '));
  return spec.required === true ? schema : schema.optional();
}

/** The tool's input as a zod object; properties not declared are refused. */
export function inputSchema(z: Zod, tool: ToolSpec): ZodType<Record<string, unknown>> {
  const facts = tool.leaf.decl.tool;
  return z.strictObject(Object.fromEntries(tool.params.map((param) => [param.property, paramSchema(z, param, facts)])));
}
