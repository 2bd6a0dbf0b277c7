// `events_wait`: the next events matching a filter, bounded in count and time, resuming where
// the last call stopped (svc events tail, run from typed input like every tool).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { EXIT } from '../../errors.js';
import { failureOf, successOf } from './result.js';
import { callTool, type SessionState } from './session.js';

type Zod = typeof import('zod');
interface WaitInput {
  type?: string[];
  max_events?: number;
  wait_seconds?: number;
}

export function registerEventsWait(s: SessionState, server: McpServer, z: Zod, refusedBySdk: { answered(id: string | number): void }): void {
  if (!s.tools.some((t) => t.name === 'events_list')) return;
  /** Where the tool resumes: the last event it returned. */
  let lastEventId: string | undefined;

  async function waitForEvents(input: WaitInput, signal: AbortSignal): Promise<CallToolResult> {
    // The first call starts after the newest event retained, so what happens from now on is seen.
    if (lastEventId === undefined) {
      const newest = await s.own('events list', { limit: '1' }, signal);
      if (newest.exitCode !== 0) return failureOf(newest);
      // (`events list --json` prints the events themselves, as the other lists print their rows.)
      const listed = JSON.parse(newest.stdout) as Array<{ id: string }> | { data: Array<{ id: string }> };
      lastEventId = (Array.isArray(listed) ? listed : listed.data)[0]?.id;
    }
    const named: Record<string, unknown> = { maxEvents: String(input.max_events ?? 10), type: input.type ?? [] };
    if (lastEventId) named.since = lastEventId;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), (input.wait_seconds ?? 20) * 1000);
    const either = new AbortController();
    const stop = () => either.abort();
    signal.addEventListener('abort', stop, { once: true });
    timer.signal.addEventListener('abort', stop, { once: true });
    try {
      const ran = await s.own('events tail', named, either.signal);
      const stoppedByTimer = timer.signal.aborted && !signal.aborted;
      if (ran.exitCode !== 0 && !(stoppedByTimer && ran.exitCode === EXIT.interrupted)) return failureOf(ran);
      const events = ran.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { id?: string });
      const resumedAfter = lastEventId ?? null;
      const last = events.at(-1)?.id;
      if (last) lastEventId = last;
      return successOf(JSON.stringify({ events, resumed_after: resumedAfter, next_after: lastEventId ?? null, timed_out: stoppedByTimer }));
    } finally {
      clearTimeout(timeout);
      signal.removeEventListener('abort', stop);
    }
  }

  server.registerTool(
    'events_wait',
    {
      title: 'svc events tail, bounded',
      description:
        'Waits for the next events (svc events tail) and returns them: at most max_events, within wait_seconds. Each call resumes after the last event the previous call returned, so none is missed or repeated between calls.',
      inputSchema: {
        type: z.array(z.string().max(100)).max(20).optional().describe('only these types or families, e.g. call.* or chat.closed'),
        max_events: z.number().int().min(1).max(100).optional().describe('return after this many events (default 10)'),
        wait_seconds: z.number().int().min(1).max(60).optional().describe('return after this long even with fewer events (default 20)'),
      },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input, extra) => {
      refusedBySdk.answered(extra.requestId);
      return callTool(s, { name: 'events_wait' }, input, extra.signal, async (signal) => (await s.paced(signal)) ?? (await waitForEvents(input, signal)));
    },
  );
}
