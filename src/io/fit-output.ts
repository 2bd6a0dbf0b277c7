// Everything svc writes to stderr at a terminal fits the terminal: errors, hints,
// warnings, notes, progress. Rather than each message wrapping itself, the stderr the
// process edge hands in is wrapped once here (src/main.ts), so no message is left out.
// Piped or redirected, stderr stays whole, one message per line, for logs and scripts.
import type { Output } from './io.js';
import { wrapText } from './width.js';

/**
 * `output` wrapping each line of prose at word boundaries to the terminal's width, with a
 * hanging indent (src/io/width.ts wrapProse). A write that continues a line already begun
 * (a prompt's answer, "…" then "done") is written as it is.
 */
export function fitToTerminal(output: Output): Output {
  let midLine = false;
  return {
    write(chunk) {
      const columns = output.isTTY ? output.columns : undefined;
      if (!columns || columns < 20) return output.write(chunk);
      const cut = midLine ? chunk.indexOf('\n') + 1 : 0;
      if (midLine && cut === 0) return output.write(chunk);
      const fresh = chunk.slice(cut);
      midLine = fresh !== '' && !fresh.endsWith('\n');
      output.write(chunk.slice(0, cut) + wrapText(fresh, columns));
    },
    get isTTY() {
      return output.isTTY;
    },
    get columns() {
      return output.columns;
    },
  };
}
