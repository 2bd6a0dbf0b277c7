// A tool call's result as MCP carries it when it failed: svc's error report (code, message,
// hint, exit code) as a tool error. A success's result is paging.ts.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EXIT } from '../errors.js';
import { redactText } from '../io/redact.js';

/** What a command run in-process left: its exit code and its two outputs. */
export interface Ran {
  exitCode: number;
  stdout: string;
  stderr: string;
}

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

/** A failed run's result: svc's own error report from its stderr (--json prints one). */
export function failureOf(ran: Ran): CallToolResult {
  const line = ran.stderr
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{"error"'));
  if (line) {
    try {
      const { error } = JSON.parse(line) as ErrorReport;
      return toolError(error.code, error.message, error.hint, error.status, error.exit_code);
    } catch {
      // Not svc's report after all: said as it is below.
    }
  }
  return toolError('failed', ran.stderr.trim().slice(0, 500) || `the command ended with exit code ${ran.exitCode}`, null, null, ran.exitCode);
}
