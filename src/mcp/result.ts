// A tool call's result as MCP carries it when it failed: svc's error report (code, message,
// hint, exit code), as the command's run threw it, as a tool error. A success's result is paging.ts.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EXIT } from '../errors.js';
import { redactText } from '../io/redact.js';
import type { InProcessOutcome } from '../kit/define.js';

/** What a command run in-process came to: what its run() returned, or the report of its error (src/cli/run.ts runNested). */
export type Ran = InProcessOutcome;

export interface ErrorReport {
  error: { code: string; status: number | null; message: string; hint: string | null; exit_code: number };
}

export function toolError(code: string, message: string, hint: string | null, status: number | null = null, exitCode: number = EXIT.failure): CallToolResult {
  const report: ErrorReport = { error: { code, status, message: redactText(message), hint: hint === null ? null : redactText(hint), exit_code: exitCode } };
  // The text is the report's JSON, as a success's is its object's: a client reading only the text reads the same fields.
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(report) }], structuredContent: report as unknown as Record<string, unknown> };
}

export function reportOf(result: CallToolResult): ErrorReport['error'] | undefined {
  return (result.structuredContent as Partial<ErrorReport> | undefined)?.error;
}

/** A failed run's result: the report of the error its run threw. */
export function failureOf(ran: Ran): CallToolResult {
  if (!('error' in ran)) return toolError('failed', `the command ended with exit code ${ran.exitCode}`, null, null, ran.exitCode);
  const { error } = ran;
  return toolError(error.code, error.message, error.hint, error.status, error.exit_code);
}
