// Printing an error: svc's message and hint on stderr (one JSON object with --json) and
// the exit code of docs/design.md.
import { CliError, EXIT, JqFailedError, exitCodeOf } from '../errors.js';
import { redactText } from '../io/redact.js';
import { escapeJsonControls, sanitizeText } from '../io/sanitize.js';
import { errorReport, type ErrorReport } from './error-report.js';
import type { Runtime } from './context.js';

/** An error's message and hint as svc says them: its own, or "unexpected failure" and where to look. */
function wordsOf(error: unknown, debug: boolean): { known: boolean; message: string; hint: string | undefined } {
  const known = error instanceof CliError;
  const message = known ? error.message : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
  const hint = known ? error.hint : debug ? undefined : 'run it again with --debug for details';
  return { known, message, hint };
}

/** The report `--json` prints for an error, as a value (what a command run by another fails with). */
export function reportOfError(error: unknown): ErrorReport['error'] {
  const { message, hint } = wordsOf(error, false);
  return errorReport(error, message, hint).error;
}

export function printError(runtime: Pick<Runtime, 'stderr'>, error: unknown, debug: boolean, json = false): number {
  const code = exitCodeOf(error);
  if (code === EXIT.interrupted) return code;
  // jq's own words are on stderr already, as jq printed them: svc adds none (a script reads jq's).
  if (error instanceof JqFailedError) return code;
  const { known, message, hint } = wordsOf(error, debug);
  if (json) {
    // One JSON object on stderr, for scripts (src/cli/error-report.ts lists the codes).
    runtime.stderr.write(escapeJsonControls(JSON.stringify(errorReport(error, message, hint))) + '\n');
    if (!known && debug && error instanceof Error && error.stack) runtime.stderr.write(redactText(error.stack) + '\n');
    return code;
  }
  // Messages may quote the server (a detail, an error_description): control characters made inert.
  runtime.stderr.write(`error: ${sanitizeText(redactText(message))}\n`);
  if (!known && debug && error instanceof Error && error.stack) runtime.stderr.write(sanitizeText(redactText(error.stack)) + '\n');
  else if (hint) runtime.stderr.write(`  ${sanitizeText(redactText(hint))}\n`);
  return code;
}
