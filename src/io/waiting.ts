// Waiting is said: at a terminal, a request with no answer after WAIT_NOTICE_MS
// shows one spinner line on stderr naming what it waits for, gone when the answer comes;
// nothing on a pipe or with --json. Ctrl-C during a request says what was stopped and
// whether a write may have reached the service, with the command that checks.
import type { Clock } from '../shared/runtime.js';
import type { Io, Spinner } from './io.js';
import { sanitizeLine } from './sanitize.js';

/** How long a request goes unanswered before the spinner shows. */
export const WAIT_NOTICE_MS = 2000;

export interface WaitWatch {
  io: Pick<Io, 'spinner' | 'stderr'>;
  clock: Clock;
  /** Ctrl-C (a reader closing stdout aborts it too, with reason code EPIPE: no word then). */
  signal: AbortSignal;
  /** --json: stderr carries JSON objects only, and a script is not watched. */
  json: boolean;
}

/** The svc command that shows whether a write reached the service, from the path it went to. */
export function checkingCommand(method: string, path: string): string | undefined {
  const [, , resource, id, sub] = path.split('?')[0]!.split('/');
  if (method === 'GET') return undefined;
  if (resource === 'calls') return id ? `svc calls get ${id}` : 'svc calls list';
  if (resource === 'chats') return id ? (sub === 'messages' || sub === 'voice' ? `svc chats messages ${id}` : `svc chats get ${id}`) : 'svc chats list';
  if (resource === 'links') return 'svc calls links list';
  if (resource === 'lines') return 'svc calls lines list';
  return undefined;
}

/** What Ctrl-C stopped: a read changed nothing; a write already sent may have been received. */
export function interruptedWords(method: string, url: URL): string {
  const what = `${method} ${sanitizeLine(url.pathname)} to ${url.host}`;
  if (method === 'GET' || method === 'HEAD') return `svc: stopped ${what} before its answer came; nothing was changed`;
  const check = checkingCommand(method, url.pathname);
  return `svc: stopped ${what} before its answer came; it was sent, so the service may have acted on it${check ? `: check with \`${check}\`` : ''}`;
}

/**
 * Watches one request until `answered` settles: a spinner after WAIT_NOTICE_MS at a terminal,
 * and, on Ctrl-C meanwhile, the words for what was stopped.
 */
export async function watchRequest<T>(watch: WaitWatch, method: string, url: URL, answered: Promise<T>): Promise<T> {
  const done = new AbortController();
  let spinner: Spinner | undefined;
  const onInterrupt = () => {
    spinner?.stop();
    spinner = undefined;
    const reason = watch.signal.reason as { code?: unknown } | undefined;
    if (!watch.json && reason?.code !== 'EPIPE') watch.io.stderr.write(`${interruptedWords(method, url)}\n`);
  };
  if (!watch.signal.aborted) watch.signal.addEventListener('abort', onInterrupt, { once: true });
  if (!watch.json && watch.io.stderr.isTTY) {
    void watch.clock.sleep(WAIT_NOTICE_MS, done.signal).then(
      async () => {
        if (done.signal.aborted || watch.signal.aborted) return;
        const shown = await watch.io.spinner(`waiting for ${url.host} to answer ${method} ${sanitizeLine(url.pathname)}`);
        if (done.signal.aborted || watch.signal.aborted) shown.stop();
        else spinner = shown;
      },
      () => {},
    );
  }
  try {
    return await answered;
  } finally {
    done.abort();
    watch.signal.removeEventListener('abort', onInterrupt);
    spinner?.stop();
  }
}
