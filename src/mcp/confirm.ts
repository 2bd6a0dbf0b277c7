// `--confirm-over <dollars>`: a billed call priced above it is put to the person, not the
// model, through MCP elicitation (elicitation/create, form mode): the price and what it buys,
// approve or not. A client without the elicitation capability cannot ask, so the call is
// refused and the refusal says why. Only ever a yes or no: the spec forbids asking a form for
// secrets, and svc asks for nothing else.
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import { dollars } from './budget.js';

/** The form's one field. */
export const APPROVAL_SCHEMA: { type: 'object'; properties: { approve: { type: 'boolean'; title: string } }; required: string[] } = {
  type: 'object',
  properties: { approve: { type: 'boolean', title: 'Approve this charge' } },
  required: ['approve'],
};

/** What the SDK checks an accepted answer with (svc asks nothing else, so nothing else is valid). */
export function approvalValidator<T>(): JsonSchemaValidator<T> {
  return (value: unknown) => {
    const ok = value !== null && typeof value === 'object' && typeof (value as { approve?: unknown }).approve === 'boolean' && Object.keys(value).length === 1;
    return ok
      ? { valid: true, data: value as T, errorMessage: undefined }
      : { valid: false, data: undefined, errorMessage: 'expected { approve: true | false }' };
  };
}

/** The parts of the SDK's server the question needs. */
export interface Asker {
  canElicit(): boolean;
  elicit(params: { message: string; requestedSchema: typeof APPROVAL_SCHEMA }, signal: AbortSignal): Promise<ElicitResult>;
}

export interface PricedCall {
  /** The tool's title: "Start a call". */
  title: string;
  /** The arguments as the assistant gave them, by name: what a person checks before approving. */
  args?: Record<string, unknown>;
  /** The session's charges (reserved included) if this call is made, and its cap; units. */
  totalAfter?: number;
  cap?: number;
  /** What the price is for, in units of 1/10,000 cent (budget.ts). */
  units: number;
  /** A call billed by the minute: each further minute's price. */
  perMinute?: number;
}

/** `$0.02 for its first minute, then $0.02 a minute until it is ended`. */
export function whatItBuys(call: PricedCall): string {
  return call.perMinute !== undefined
    ? `${dollars(call.units)} for its first minute, then ${dollars(call.perMinute)} a minute until it is ended`
    : dollars(call.units);
}

/** No argument is shown longer than this: a longer text shows its first words and its length. */
const SHOWN_CHARS = 60;
/**
 * What a person cannot see, or cannot tell from something else: controls, format characters
 * (bidi controls, zero-width marks, the word joiner, the soft hyphen, Unicode tag characters
 * U+E0000–E007F, which can spell a whole hidden text), every default-ignorable code point
 * (Hangul fillers U+115F, U+1160, U+3164, U+FFA0, variation selectors), blanks that look like
 * nothing (U+2800), spaces other than the plain one, line and paragraph separators, private-use
 * and unassigned code points, and lone surrogates. Each is shown as its code point.
 */
const UNSHOWABLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}\u2800\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]|\p{Cs}/gu;

/** `\u2060`, or `\u{E0041}` past the Basic Multilingual Plane; a backslash and a quote escaped, so a text cannot close its quotes. */
function escaped(text: string): string {
  return text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(UNSHOWABLE, (c) => {
      const point = c.codePointAt(0)!;
      return point > 0xffff ? `\\u{${point.toString(16).toUpperCase()}}` : `\\u${point.toString(16).padStart(4, '0')}`;
    });
}

/** A value as the question shows it: quoted, escaped, a long text cut at a word with its length. */
export function shownValue(value: unknown): string {
  const text = Array.isArray(value) ? value.map(String).join(' ') : typeof value === 'string' ? value : JSON.stringify(value);
  if (typeof value !== 'string' && !Array.isArray(value)) return text.replace(UNSHOWABLE, (c) => `\\u{${c.codePointAt(0)!.toString(16).toUpperCase()}}`);
  // Cut by code points, never inside a pair: the cut shows no half character.
  const points = [...text];
  if (points.length <= SHOWN_CHARS) return `"${escaped(text)}"`;
  const start = points.slice(0, SHOWN_CHARS).join('');
  const words = start.slice(0, Math.max(start.lastIndexOf(' '), start.length / 2));
  return `"${escaped(words)}…" (${points.length.toLocaleString('en-US')} characters)`;
}

/** `Dial a phone into a call: id "call_…", to "+14155550100"`. */
export function actionOf(call: PricedCall): string {
  const args = Object.entries(call.args ?? {}).filter(([, v]) => v !== undefined && v !== null);
  return args.length ? `${call.title}: ${args.map(([name, v]) => `${name} ${shownValue(v)}`).join(', ')}` : call.title;
}

function refusal(code: string, message: string, hint: string | null): CallToolResult {
  const structuredContent = { error: { code, status: null, message, hint, exit_code: 1 } };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(structuredContent) }], structuredContent };
}

/** Null when the call may go ahead: priced at or under the threshold, or approved by the person; else the tool's refusal. */
export async function approved(asker: Asker, call: PricedCall, overUnits: number | undefined, signal: AbortSignal): Promise<CallToolResult | null> {
  if (overUnits === undefined || call.units <= overUnits) return null;
  const price = whatItBuys(call);
  if (!asker.canElicit())
    return refusal(
      'confirmation_unavailable',
      `not done: ${call.title} costs ${price}, over the ${dollars(overUnits)} above which this session asks the person (--confirm-over), and this client cannot ask (it does not support MCP elicitation)`,
      'ask the person to run it themselves, or to start svc mcp with a higher --confirm-over',
    );
  let answer: ElicitResult;
  try {
    const total =
      call.totalAfter !== undefined
        ? `; the session's total after it: ${dollars(call.totalAfter)}${call.cap !== undefined ? ` of its ${dollars(call.cap)} cap` : ''}`
        : '';
    const message = `${actionOf(call)}.\nPrice: ${price}, billed to your organization (live mode)${total}.\nApprove?`;
    answer = await asker.elicit({ message, requestedSchema: APPROVAL_SCHEMA }, signal);
  } catch (error) {
    // No answer (the client failed, or the question timed out): not an approval.
    return refusal('declined', `not done: ${call.title} at ${price} was put to the person and no answer came (${(error as Error).message})`, null);
  }
  if (answer.action === 'accept' && answer.content?.approve === true) return null;
  return refusal('declined', `not done: the person did not approve ${call.title} at ${price}`, null);
}
