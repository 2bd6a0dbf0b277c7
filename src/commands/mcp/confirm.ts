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

function refusal(code: string, message: string, hint: string | null): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `error (${code}): ${message}${hint ? `\n${hint}` : ''}` }],
    structuredContent: { error: { code, status: null, message, hint, exit_code: 1 } },
  };
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
    const message = `${call.title}: ${price}, billed to your organization (live mode). Approve?`;
    answer = await asker.elicit({ message, requestedSchema: APPROVAL_SCHEMA }, signal);
  } catch (error) {
    // No answer (the client failed, or the question timed out): not an approval.
    return refusal('declined', `not done: ${call.title} at ${price} was put to the person and no answer came (${(error as Error).message})`, null);
  }
  if (answer.action === 'accept' && answer.content?.approve === true) return null;
  return refusal('declined', `not done: the person did not approve ${call.title} at ${price}`, null);
}
