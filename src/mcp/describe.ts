// What an assistant reads of a tool: its title, description, annotations and output schema,
// from the command's declaration (`tool`, src/kit/define.ts ToolFacts) and the session.
// In an assistant's terms: no flags, stdin or output formats; money in dollars, and a billable
// tool's price as the service lists it (GET /v1/prices, read when the session starts).
import type { ZodType } from 'zod';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ApiClient } from '../api/client.js';
import type { ListPage } from '../contract/endpoints.js';
import { money } from '../contract/money.js';
import { PRICE_ITEM, unitWords } from '../kit/dry-run.js';
import type { Price } from '../kit/account-types.js';
import { kebab } from '../kit/define.js';
import { priceOf } from './budget.js';
import type { ToolSpec } from './tool-spec.js';

type Zod = typeof import('zod');

/** The service's prices by item (`translation_character`), read once when the session starts; absent when they could not be read. */
export type PriceList = ReadonlyMap<string, Price>;

/**
 * Whether svc mcp can keep a live call of this command within its cap: asked of the pricing
 * itself (budget.ts priceOf), which refuses what is billed for as long as it lasts (a line,
 * by the month). A tool it would refuse every time is not offered in a live session.
 */
export function priceable(tool: { leaf: ToolSpec['leaf'] }): boolean {
  const bills = tool.leaf.decl.tool?.bills;
  if (!bills) return true;
  const price = { item: PRICE_ITEM[bills], unit_amount: 0, currency: 'usd' };
  const request = { method: 'POST', path: '', body: { text: '' } };
  return !('refused' in priceOf({ dry_run: true, mode: 'live', billed: true, request, price }));
}

/** `$0.00002 per translated character`, or undefined when the price is not known. */
export function priceText(tool: ToolSpec, prices: PriceList | undefined): string | undefined {
  const bills = tool.leaf.decl.tool?.bills;
  if (!bills) return undefined;
  const price = prices?.get(PRICE_ITEM[bills]);
  return price ? `${money(price.unit_amount, price.currency)} ${unitWords(bills)}` : undefined;
}

/** The text an assistant reads: what the tool does, and what a call costs or changes in this session. */
export function description(tool: ToolSpec, prices: PriceList | undefined, maxSpendUnits?: string): string {
  const facts = tool.leaf.decl.tool!;
  const lines = [facts.does];
  const price = priceText(tool, prices);
  if (tool.billed) {
    lines.push(
      `Billed: ${price ?? 'at the price account_prices lists'}. Each call is priced first and refused past the session's cap${maxSpendUnits ? ` (${maxSpendUnits})` : ''}.`,
    );
  } else if (facts.bills) {
    lines.push(`Free here (test mode)${price ? `; in live mode ${price}` : ''}.`);
  }
  if (facts.destructive) lines.push('Cannot be undone.');
  return lines.join(' ');
}

/** The MCP tool annotations (the spec's hints: a client may run a read-only tool without asking). */
export function annotations(tool: ToolSpec): ToolAnnotations {
  const facts = tool.leaf.decl.tool!;
  return {
    title: facts.title,
    readOnlyHint: tool.readOnly,
    // The spec's defaults for a tool that writes are destructive and not idempotent: each said outright.
    destructiveHint: !tool.readOnly && facts.destructive === true,
    idempotentHint: tool.readOnly || facts.idempotent === true,
    openWorldHint: facts.openWorld === true,
  };
}

/**
 * The structured result's shape: an object (with its id), or `items`, one page of a list. Its
 * fields are optional because a failed call's structured content is svc's error report
 * (`{ error }`) and clients check that against this schema too.
 */
export function outputSchema(z: Zod, tool: ToolSpec): ZodType {
  const { returns } = tool.leaf.decl.tool!;
  const one = returns.id ? z.looseObject({ id: z.string().describe(`${returns.id}…`) }) : z.looseObject({});
  if (!returns.list) return returns.id ? z.looseObject({ id: z.string().optional().describe(`${returns.id}…`) }) : one;
  const page = { items: z.array(one).optional() };
  return tool.params.some((p) => p.property === 'cursor')
    ? z.looseObject({ ...page, next_cursor: z.string().nullable().optional().describe('the next page: give it as cursor') })
    : z.looseObject(page);
}

/** The service's prices (GET /v1/prices), read when the session starts; undefined when they cannot be read (a key without account:read). */
export async function readPrices(api: () => Promise<ApiClient>, signal: AbortSignal): Promise<PriceList | undefined> {
  try {
    const page = await (await api()).request<ListPage<Price>>({ endpoint: 'prices.list', signal });
    return new Map(page.data.map((price) => [price.item, price]));
  } catch {
    return undefined;
  }
}

/** The command line's words an assistant has no use for, in a tool's terms. */
const COMMAND_LINE_WORDS: Array<[RegExp, string]> = [
  [/check the arguments and flags against the command's --help/g, "check the tool's arguments against its input schema"],
  [/,? ?(?:pass it as an argument or )?(?:pipe it |give it )?on stdin/g, ''],
  [/\barguments and flags\b/g, 'arguments'],
];

/** A hint that is a command line to run (`svc …`, a --help to read): the person's way forward, not the assistant's. */
const COMMAND_LINE_HINT = /`svc |--help\b|\bstdin\b/;

/**
 * A refusal in the tool's terms: the command's messages name its flags (`--to`), which an
 * assistant never saw; each becomes the input it gave (`to`). Words about the command line
 * (stdin, --help, "flags") become the tool's, and a hint that is a command line to run is left out.
 */
export function inToolTerms(tool: ToolSpec, result: CallToolResult): CallToolResult {
  if (!result.isError) return result;
  const flags = tool.params.flatMap((p) => (p.from === 'flag' ? [{ flag: `--${kebab(p.key)}`, property: p.property }] : []));
  // Longest first, so `--area-code` is not read as `--area`.
  const pattern = flags.length
    ? new RegExp(
        `(${flags
          .map((f) => f.flag)
          .sort((a, b) => b.length - a.length)
          .join('|')})(?![a-z0-9-])`,
        'g',
      )
    : undefined;
  const byFlag = new Map(flags.map((f) => [f.flag, f.property]));
  const say = (text: string) =>
    COMMAND_LINE_WORDS.reduce((said, [words, instead]) => said.replace(words, instead), pattern ? text.replace(pattern, (flag) => byFlag.get(flag)!) : text);
  const error = (result.structuredContent as { error?: { message?: string; hint?: string | null } } | undefined)?.error;
  if (!error) return { ...result, content: result.content.map((part) => (part.type === 'text' ? { ...part, text: say(part.text) } : part)) };
  const message = say(error.message ?? '');
  const hint = error.hint && !COMMAND_LINE_HINT.test(say(error.hint)) ? say(error.hint) : null;
  const code = (result.structuredContent as { error: { code?: string } }).error.code ?? 'failed';
  const structuredContent = { ...result.structuredContent, error: { ...error, code, message, hint } };
  return { ...result, content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
}

/**
 * The tool list as sent, without what says nothing (every tool list costs an assistant context):
 * the SDK's `$schema` on each schema (MCP's default dialect reads these schemas the same) and
 * `execution` when it is the protocol's default (no tasks).
 */
export function compactToolList<M>(message: M): M {
  const tools = (message as { result?: { tools?: unknown } }).result?.tools;
  if (!Array.isArray(tools)) return message;
  for (const tool of tools as Array<Record<string, { $schema?: unknown; taskSupport?: unknown } | undefined>>) {
    delete tool.inputSchema?.$schema;
    delete tool.outputSchema?.$schema;
    if (tool.execution?.taskSupport === 'forbidden' && Object.keys(tool.execution).length === 1) delete tool.execution;
  }
  return message;
}
