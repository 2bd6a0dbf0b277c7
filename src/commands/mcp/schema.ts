// A tool's input schema from its command's typed flags and arguments (src/cli/define.ts
// FlagKind): zod, which the MCP SDK turns into the JSON Schema the assistant sees and checks
// each call against. The schema says the shape; the command's own parse still checks every
// value, as it does on a command line.
import type { ZodType } from 'zod';
import type { FlagKind } from '../define.js';
import type { Param, ToolSpec } from './tools.js';

type Zod = typeof import('zod');

/** No string an assistant sends is longer: svc's longest input (a translation) is 5,000 characters. */
export const MAX_STRING = 20_000;
/** Nor a list longer. */
export const MAX_ITEMS = 100;

/** A duration as svc takes it: `90s`, `15m`, `1h30m`. */
const DURATION = /^(\d+[smhd])+$/;
/** Dollars: `12`, `0.10`, `$0.10`. */
const DOLLARS = /^\$?\d+(\.\d+)?$/;

function valueSchema(z: Zod, kind: FlagKind | undefined, choices: readonly string[] | undefined): ZodType {
  if (choices) return z.enum(choices as [string, ...string[]]);
  switch (kind?.type) {
    case 'integer': {
      let schema = z.number().int();
      if (kind.min !== undefined) schema = schema.min(kind.min);
      if (kind.max !== undefined) schema = schema.max(kind.max);
      return schema;
    }
    case 'duration':
      return z
        .string()
        .regex(DURATION)
        .describe(`a duration: a number and a unit, e.g. 90s, 15m, 1h30m${kind.min ? `; at least ${kind.min}` : ''}${kind.max ? `; at most ${kind.max}` : ''}`);
    case 'money':
      return z.union([z.string().regex(DOLLARS), z.number().nonnegative()]).describe('dollars, e.g. 0.10');
    case 'id':
      return z
        .string()
        .max(200)
        .regex(new RegExp(`^${kind.prefix}`))
        .describe(`an id starting ${kind.prefix}`);
    case 'language':
      return z.string().max(100).describe('a BCP 47 language tag, e.g. en, es, pt-BR');
    default:
      return z.string().max(MAX_STRING);
  }
}

function paramSchema(z: Zod, param: Param): ZodType {
  const { spec } = param;
  let schema: ZodType;
  if (param.from === 'flag' && !param.spec.value) schema = z.boolean();
  else {
    const one = valueSchema(z, spec.kind, spec.choices);
    const many = param.from === 'arg' ? param.spec.variadic : param.spec.repeatable;
    // A variadic argument's words are joined with spaces by the command: one string does too.
    schema = many ? (param.from === 'arg' ? z.union([one, z.array(one).max(MAX_ITEMS)]) : z.array(one).max(MAX_ITEMS)) : one;
  }
  const help = param.from === 'flag' && param.spec.default !== undefined ? `${spec.help} (default ${param.spec.default})` : spec.help;
  schema = schema.describe(help);
  const required = param.from === 'arg' ? spec.required === true : spec.required === true;
  return required ? schema : schema.optional();
}

/** The tool's input as a zod object; properties not declared are refused. */
export function inputSchema(z: Zod, tool: ToolSpec): ZodType<Record<string, unknown>> {
  return z.strictObject(Object.fromEntries(tool.params.map((param) => [param.property, paramSchema(z, param)])));
}
