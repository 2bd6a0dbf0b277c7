// How a delivery is POSTed: through the context's HTTP (its keep-alive pool), never with the
// credential. The Forwarder takes any PostJson; the commands hand it this one.
import type { HttpTransport } from '../api/http.js';
import type { PostJson } from './delivery.js';

/** Bytes of a handler's answer read (and dropped) to keep its connection for the next delivery. */
const ANSWER_READ_LIMIT = 64 * 1024;

export function pooledPost(http: Pick<HttpTransport, 'fetch'>): PostJson {
  return async (url, body, headers, postSignal) => {
    // A signal per request: the forwarder's lasts for many, and the pool's listeners and
    // AbortSignal.any must not pile up on it.
    const request = new AbortController();
    const onAbort = () => request.abort(postSignal.reason);
    postSignal.addEventListener('abort', onAbort, { once: true });
    if (postSignal.aborted) onAbort();
    try {
      const response = await http.fetch(url, { method: 'POST', body, headers, signal: request.signal });
      await readToEnd(response.body);
      return { status: response.status };
    } finally {
      postSignal.removeEventListener('abort', onAbort);
    }
  };
}

/**
 * Reads the answer to its end, so the keep-alive connection goes back to the pool (cancelling
 * it would close the socket: a new connection per delivery, ten times slower). An answer
 * longer than the limit is cut instead.
 */
async function readToEnd(body: (AsyncIterable<Uint8Array> & { cancel(): Promise<void> }) | null): Promise<void> {
  if (!body) return;
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.byteLength;
      if (read > ANSWER_READ_LIMIT) {
        await body.cancel().catch(() => {});
        return;
      }
    }
  } catch {
    // The status is what counts; a broken answer body changes nothing.
  }
}
