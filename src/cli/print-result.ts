// The runner prints what a command's run() returned (src/kit/result.ts): `--json` prints its
// value as one document; otherwise a table or fields at a terminal, tab-separated lines piped
// (src/io/output.ts), then what goes on stderr after it (a list that goes on, a dry run).
import type { Context } from '../context.js';
import { note, printJson, printList, printObject, printText } from '../io/output.js';
import type { CommandResult } from '../kit/result.js';
import { noteMore } from '../kit/resources.js';
import { sanitizeText } from '../io/sanitize.js';

export async function printResult(ctx: Context, result: CommandResult): Promise<void> {
  await printShown(ctx, result);
  if (result.kind === 'list' && result.page) noteMore(ctx, { items: result.rows, ...result.page });
  if (result.after !== undefined) note(ctx, result.after);
}

async function printShown(ctx: Context, result: CommandResult): Promise<void> {
  if (ctx.globals.json) return printJson(ctx, result.value);
  switch (result.kind) {
    case 'object':
      return printObject(ctx, result.fields, result.value);
    case 'list':
      return printList(ctx, result.rows, result.columns, result.value);
    case 'prose':
      return printText(ctx, result.text);
    case 'text':
      return ctx.io.stdout.write(`${sanitizeText(result.text)}\n`);
    case 'dry-run':
      // The request is the caller's own, as it would be sent: not wrapped, not cut.
      ctx.io.stdout.write(result.lines.join('\n') + '\n');
      return note(ctx, 'dry run: nothing was sent');
    case 'json-only':
      return;
  }
}
