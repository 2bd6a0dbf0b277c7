// `events_wait` as an MCP tool: its input, its progress notifications while it waits (when the
// request asks for progress), and its result; the queue itself is events-wait.ts. It takes the
// path every tool call takes (call-path.ts callTool): the audit's intent line before it waits,
// the result line after.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ListPage } from '../contract/endpoints.js';
import { openSse } from '../api/sse.js';
import { random01From } from '../api/resume.js';
import type { TypePattern } from '../events/filter.js';
import { EventFeed, type EventRules } from './events-wait.js';
import { MAX_PAGE_CHARS, resultOf } from './paging.js';
import { toolError } from './result.js';
import { closedSet } from './schema.js';
import { callTool } from './call-path.js';
import type { SessionState } from './session.js';

type Zod = typeof import('zod');

export interface EventsWaitDeps {
  /** Aborted when the session ends: the feed's stream closes. */
  sessionEnd: AbortSignal;
  /** The SDK handed the call to the tool (it is audited here, not as refused input). */
  started(requestId: string | number): void;
}

/** The events command's own rules (types, frames, positions), loaded for this session. */
async function eventRules(): Promise<EventRules & { parseTypePattern(raw: string): TypePattern | { error: string } }> {
  const [filter, format, gap, checkpoint] = await Promise.all([
    import('../events/filter.js'),
    import('../events/format.js'),
    import('../events/gap.js'),
    import('../events/checkpoint.js'),
  ]);
  return { ...filter, parseEvent: format.parseEvent, isGapFrame: gap.isGapFrame, parseGap: gap.parseGap, startPosition: checkpoint.START_POSITION };
}

/** The feed of the session, its position taken now. */
function feedOf({ ctx }: SessionState, { sessionEnd }: EventsWaitDeps, rules: EventRules): EventFeed {
  return new EventFeed({
    rules,
    newest: async (signal) => {
      const page = await (await ctx.api()).request<ListPage<{ id: string }>>({ endpoint: 'events.list', query: { limit: '1' }, signal });
      return page.data[0]?.id;
    },
    open: async (lastEventId, signal) => openSse(await ctx.api(), { endpoint: 'events.stream', signal }, lastEventId),
    clock: ctx.clock,
    random01: () => random01From(ctx.random.bytes(3)),
    signal: sessionEnd,
  });
}

/** events_wait, registered; its feed starts (the position taken) when the session is ready (server.ts), or at the first wait. */
export interface EventsWait {
  start(): Promise<void>;
}

export function registerEventsWait(s: SessionState, server: McpServer, z: Zod, deps: EventsWaitDeps): EventsWait {
  let started: Promise<{ rules: Awaited<ReturnType<typeof eventRules>>; feed: EventFeed }> | undefined;
  const feedStarted = () =>
    (started ??= eventRules().then(async (rules) => {
      const feed = feedOf(s, deps, rules);
      await feed.positioned;
      return { rules, feed };
    }));
  server.registerTool(
    'events_wait',
    {
      title: 'Wait for events',
      description:
        'Waits for the next events of the organization and returns them: at most max_events, within wait_seconds, and about 5,000 tokens (more: true when others matched; the next wait returns them at once). Each event is returned once: none that happened since the session started is skipped, whatever types earlier waits asked for.',
      inputSchema: {
        type: z
          .array(z.enum(closedSet('event_pattern') as [string, ...string[]]))
          .max(20)
          .optional()
          .describe('only these types or families'),
        max_events: z.number().int().min(1).max(100).optional().describe('default 10'),
        wait_seconds: z.number().int().min(1).max(60).optional().describe('default 20'),
      },
      outputSchema: {
        events: z.array(z.looseObject({ id: z.string(), type: z.string() })).optional(),
        timed_out: z.boolean().optional(),
        more: z.boolean().optional().describe('more events matched than fit in one result: wait again to get them at once'),
      },
      annotations: { title: 'Wait for events', readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (input, extra) => {
      deps.started(extra.requestId);
      const token = extra._meta?.progressToken;
      const waitMs = (input.wait_seconds ?? 20) * 1000;
      const progress = (waited: number) =>
        void extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token!, progress: Math.floor(waited / 1000), total: waitMs / 1000, message: 'waiting for events' },
          })
          .catch(() => {});
      return callTool(s, { name: 'events_wait' }, input, extra.signal, async (signal) => {
        const limited = await s.paced(signal);
        if (limited) return limited;
        const { rules, feed } = await feedStarted();
        try {
          const waited = await feed.wait({
            types: (input.type ?? []).map((t) => rules.parseTypePattern(t) as TypePattern),
            maxEvents: input.max_events ?? 10,
            waitMs,
            signal,
            ...(token !== undefined ? { progress } : {}),
            // As a list's page: about 5,000 tokens at most; what did not fit comes with the next wait.
            maxChars: MAX_PAGE_CHARS - 200,
          });
          return resultOf(waited as unknown as Record<string, unknown>);
        } catch (error) {
          return toolError('failed', `the events could not be read: ${(error as Error).message}`, null);
        }
      });
    },
  );
  return { start: async () => void (await feedStarted()) };
}
