// The dashboard's live stream: one small "change" message after requests (gathered), never the
// events themselves, so an open dashboard holds at most one message however many requests and
// events go by.
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { EmulatorEnv } from '../http.js';
import type { RequestLog } from './requests.js';

/** How long the stream gathers changes into one message; the pages refresh at most this often. */
const COALESCE_MS = 150;
const KEEPALIVE_MS = 15_000;

export function changeStream(c: Context<EmulatorEnv>, requests: RequestLog) {
  return streamSSE(c, async (stream) => {
    let changed = false;
    let closed = false;
    let wake: (() => void) | null = null;
    const stop = requests.listen(() => {
      changed = true;
      wake?.();
    });
    stream.onAbort(() => {
      closed = true;
      wake?.();
    });
    try {
      await stream.writeSSE({ event: 'ready', data: String(requests.total) });
      while (!closed) {
        if (!changed) {
          let timer: NodeJS.Timeout | undefined;
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, KEEPALIVE_MS);
          });
          clearTimeout(timer);
          wake = null;
        }
        if (closed) break;
        if (!changed) {
          await stream.write(': keepalive\n\n');
          continue;
        }
        await stream.sleep(COALESCE_MS);
        changed = false;
        await stream.writeSSE({ event: 'change', data: String(requests.total) });
      }
    } finally {
      stop();
    }
  });
}
