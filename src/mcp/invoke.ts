// A tool call's input as the command's typed input: each property read by its flag's or
// argument's own declaration (readValue, as the command line's parser reads a word), never
// re-assembled into a command line. So a text is text whatever its first character
// ("- buy milk", "--base-url=…", "--"), and no input can name a global flag: the session's
// profile, base URL, credential and mode are not properties of any tool.
import { UsageError } from '../errors.js';
import { readValue } from '../validate/kinds.js';
import { kebab, readRepeated, type CommandDecl } from '../kit/define.js';
import type { Param } from './tool-spec.js';

/** What the command's parse() receives: positional values in order (variadic ones flattened), flags by their camelCase key. */
export interface TypedInput {
  args: unknown[];
  flags: Record<string, unknown>;
}

/** `input`, already checked against the tool's schema, as the command's typed input; a value its declaration refuses is that rule's UsageError. */
export function typedInput(tool: { params: readonly Param[] }, input: Record<string, unknown>): TypedInput {
  const args: unknown[] = [];
  const flags: Record<string, unknown> = {};
  for (const param of tool.params) {
    const given = input[param.property];
    const present = given !== undefined && given !== null;
    const term = param.from === 'arg' ? param.spec.name.toUpperCase() : `--${kebab(param.key)}`;
    const read = (value: unknown) => readValue(param.spec, String(value), term);
    if (param.from === 'arg') {
      if (!present) continue;
      args[param.index] = Array.isArray(given) || param.spec.variadic ? readRepeated(given, read) : read(given);
      continue;
    }
    const { spec, key } = param;
    if (!spec.value) {
      // A switch: true when given true; a `--no-` switch is true unless given false (as commander sets it).
      if (spec.negate) flags[key] = given !== false;
      else if (given === true) flags[key] = true;
      continue;
    }
    if (present) flags[key] = spec.repeatable ? readRepeated(given, read) : read(given);
    else if (spec.default !== undefined) flags[key] = readValue(spec, spec.default, term);
  }
  for (const param of tool.params) {
    if (param.from !== 'flag' || !param.spec.conflicts) continue;
    const other = tool.params.find((p) => p.from === 'flag' && p.key === param.spec.conflicts);
    if (other && input[param.property] !== undefined && input[other.property] !== undefined)
      throw new UsageError(`${param.property} cannot be given with ${other.property}`);
  }
  return { args: args.flat().filter((a) => a !== undefined), flags };
}

/** A command svc mcp runs for itself (a balance, a call's end): its input named by the declaration's own keys, read the same way. */
export function ownInput(decl: CommandDecl, input: Record<string, unknown>): TypedInput {
  const params: Param[] = [
    ...(decl.args ?? []).map((spec, index): Param => ({ property: spec.name, from: 'arg', index, spec })),
    ...Object.entries(decl.flags ?? {}).map(([key, spec]): Param => ({ property: key, from: 'flag', key, spec })),
  ];
  return typedInput({ params }, input);
}
