// `svc mcp`'s server: the MCP SDK's McpServer on the context's stdio, with one tool per command
// the declarations mark (tools.ts). A tool call is the command run in-process from typed input
// (invoke.ts: its validated JSON read by the declarations, never a command line), with the
// session's profile, base URL, credential and mode, fixed when the session started; its
// --json output is the tool's result, a failure svc's error report (code, message, hint) as an
// MCP tool error. Around each call: an audit line before it acts and one after (audit.ts), the
// pace the service's rate limit allows, the person's approval above --confirm-over (confirm.ts),
// and the ledger of a live session (budget.ts). What the tools say of themselves (titles,
// annotations, prices, output schemas) is describe.ts; a list's pages, paging.ts. A call's run is
// run-tool.ts; the session's end, and what ended sessions left open, session-end.ts.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Context } from '../context.js';
import type { RootSpec, RunInProcess } from '../kit/define.js';
import { dollars } from './budget.js';
import { checkSession, sessionProfile, sessionState, type ServeOptions, type SessionState } from './session.js';
import { MinuteMeter } from './minutes.js';
import { inputSchema } from './schema.js';
import { contextTransport } from './transport.js';
import { annotations, compactToolList, outputSchema, readPrices } from './describe.js';
import { approvalValidator, type Asker } from './confirm.js';
import { registerEventsWait } from './events-wait-tool.js';
import { toolsOf } from './tools.js';
import { auditFailed, runTool } from './run-tool.js';
import { callNow, endCallForCap, endSession, endedBy, recoverLeftOpen } from './session-end.js';

export type { ServeOptions };

/** How long what the client sends after initialize waits for the session's first reads from the service. */
export const READY_WITHIN_MS = 5_000;

/** The part of the transport the audit of refused calls wraps. */
type Wire = Pick<Transport, 'onmessage' | 'send'>;

/**
 * tools/call requests the SDK answers itself (an unknown tool, input its schema refuses), by id:
 * kept with the refused calls (audit.ts: their size and digest, apart from the calls that ran)
 * when answered, since no tool handler saw them.
 */
export function auditRefusals(s: SessionState, hasEventsWait: boolean): { answered(id: string | number): void; watch(transport: Wire): void } {
  const pending = new Map<string | number, { tool: string; args: unknown }>();
  const known = (name: string) => s.tools.some((t) => t.name === name) || (hasEventsWait && name === 'events_wait');
  return {
    answered: (id) => void pending.delete(id),
    watch(transport) {
      const receive = transport.onmessage;
      const send = transport.send.bind(transport);
      transport.onmessage = (message, extra) => {
        if ('method' in message && message.method === 'tools/call' && 'id' in message) {
          const params = (message.params ?? {}) as { name?: unknown; arguments?: unknown };
          const tool = String(params.name).slice(0, 100);
          // An unknown tool is a protocol error (MCP's tools, "Error Handling"): -32602, audited.
          if (!known(tool)) {
            const refuse = () => send({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `unknown tool: ${tool}` } });
            void s.audit
              .refused({ session: s.id, now: s.ctx.clock.now(), tool, reason: 'unknown_tool', args: params.arguments })
              .catch(auditFailed(s))
              .then(refuse, refuse);
            return;
          }
          if (params.arguments !== null && typeof params.arguments === 'object' && Object.hasOwn(params.arguments, '__proto__')) {
            // JSON.parse keeps a `__proto__` key, but the SDK's copy of the arguments drops it before
            // the schema sees it: refused here in the words the schema refuses any other undeclared key with.
            const text = `MCP error -32602: Input validation error: Invalid arguments for tool ${tool}: Unrecognized key: "__proto__"`;
            const answer = () => send({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError: true } });
            void s.audit
              .refused({ session: s.id, now: s.ctx.clock.now(), tool, reason: 'invalid_input', args: params.arguments })
              .catch(auditFailed(s))
              .then(answer, answer);
            return;
          }
          pending.set(message.id, { tool, args: params.arguments });
        }
        receive?.(message, extra);
      };
      transport.send = async (message, options) => {
        // tools/list as sent: without what says nothing (describe.ts).
        compactToolList(message);
        const id = 'id' in message && !('method' in message) ? message.id : undefined;
        const refused = id === undefined || id === null ? undefined : pending.get(id);
        if (refused) {
          pending.delete(id!);
          await s.audit
            .refused({ session: s.id, now: s.ctx.clock.now(), tool: refused.tool, reason: 'invalid_input', args: refused.args })
            .catch(auditFailed(s));
        }
        return send(message, options);
      };
    },
  };
}

/** The MCP server, until stdin ends (the calls in flight answered first) or Ctrl-C. */
export async function serve(opts: ServeOptions, ctx: Context, tree: RootSpec, runOther: RunInProcess): Promise<void> {
  const session = checkSession(opts, ctx);
  const [{ McpServer }, z] = await Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('zod')]);
  const s = sessionState(session, opts, ctx, tree, runOther, await sessionProfile(ctx));
  const confirmation = opts.confirmOver !== undefined ? ` A call priced over ${dollars(opts.confirmOver)} is put to the person first.` : '';
  const server = new McpServer(
    { name: 'svc', version: ctx.version },
    {
      // The SDK's default validator (Ajv, built with its formats when the server is made) checks
      // only answers to elicitation; svc's one question (confirm.ts) has one answer shape, checked
      // by its own few lines, which saves that start-up time.
      jsonSchemaValidator: { getValidator: approvalValidator },
      // Log messages: what svc does on its own in the session (a live call it ends at the cap).
      capabilities: { logging: {} },
      instructions:
        s.session.mode === 'live'
          ? `svc in LIVE mode: billed tools are priced before each call and refused once the session would pass ${dollars(s.session.maxSpend!)}; a live call's every minute counts, and svc ends a call before a minute the cap cannot cover.${confirmation}`
          : 'svc in test mode: nothing is billed; objects are the test-mode ones.',
    },
  );
  const asker: Asker = {
    canElicit: () => server.server.getClientCapabilities()?.elicitation !== undefined,
    elicit: (params, abort) => server.server.elicitInput(params, { signal: abort, timeout: 10 * 60_000 }),
  };
  const hasEventsWait = s.tools.some((t) => t.name === 'events_list');
  const refusedBySdk = auditRefusals(s, hasEventsWait);
  const registered = new Map<string, { description?: string }>();
  for (const tool of s.tools) {
    const handle = server.registerTool(
      tool.name,
      {
        title: tool.leaf.decl.tool!.title,
        description: tool.description,
        inputSchema: inputSchema(z, tool),
        outputSchema: outputSchema(z, tool),
        annotations: annotations(tool),
      },
      (input, extra) => {
        refusedBySdk.answered(extra.requestId);
        return runTool(s, tool, input ?? {}, extra.signal, asker);
      },
    );
    registered.set(tool.name, handle);
  }
  /** Aborted when the session ends: what it still reads from the service (events_wait's stream, the prices) stops with it. */
  const sessionEnd = new AbortController();
  // The prices the billable tools' descriptions state, read once. Set in place, not by
  // update(): that would tell the client its list changed, which it never saw.
  const describePrices = async () => {
    const prices = await readPrices(() => ctx.api(), sessionEnd.signal);
    if (!prices) return;
    s.prices = [...prices.values()];
    for (const priced of toolsOf(tree, session, { prices })) {
      const tool = s.tools.find((t) => t.name === priced.name);
      const handle = registered.get(priced.name);
      if (tool && handle) handle.description = tool.description = priced.description;
    }
  };
  const eventsWait = hasEventsWait
    ? registerEventsWait(s, server, z, { sessionEnd: sessionEnd.signal, started: (id) => refusedBySdk.answered(id) })
    : undefined;
  // What the session reads from the service (prices, events_wait's position), read once
  // initialize is answered: the handshake never waits for the network; the transport holds
  // every request after initialize until it is done.
  // A service that does not answer holds nothing past READY_WITHIN_MS: the tools are then
  // listed without their prices, and events_wait's first wait waits for its position.
  const prepare = async () => {
    // In the background, as one of the session's calls: its end waits for it.
    const recovered = recoverLeftOpen(s, server).catch(() => {});
    s.running.add(recovered);
    void recovered.finally(() => s.running.delete(recovered));
    const waited = new AbortController();
    await Promise.race([Promise.all([describePrices(), eventsWait?.start()]), ctx.clock.sleep(READY_WITHIN_MS, waited.signal).catch(() => {})]);
    waited.abort();
  };

  const transport = await contextTransport(ctx.io, ctx.signal, prepare);
  const ended = new Promise<string>((resolve) => {
    // stdin closed: the session's end begins at once, with answers still in flight (endSession).
    transport.oninputend = () => resolve('stdin was closed');
    transport.onclose = () => resolve(endedBy(ctx.signal));
  });
  await server.connect(transport);
  refusedBySdk.watch(transport);
  const say = (text: string) => {
    ctx.io.stderr.write(`svc mcp: ${text}\n`);
    void server.sendLoggingMessage({ level: 'warning', logger: 'svc', data: `svc mcp: ${text}.` }).catch(() => {});
  };
  s.minutes = s.ledger
    ? new MinuteMeter({ ledger: s.ledger, clock: ctx.clock, end: (id, why) => endCallForCap(s, server, id, why), read: (id) => callNow(s, id), say })
    : undefined;
  // The server's own note goes to stderr: stdout is the protocol's alone.
  ctx.io.stderr.write(
    `svc mcp: ${s.tools.length + (hasEventsWait ? 1 : 0)} tools, ${s.session.mode} mode${opts.allowWrite ? ', writes allowed' : ', read-only'}${s.ledger ? `, spending cap ${dollars(s.ledger.capUnits)}` : ''}; audit log ${s.audit.path}\n`,
  );
  let why = 'the session ended';
  const ending = holdTheEnd(ctx);
  try {
    why = await ended;
  } finally {
    ending.begin();
    await endSession(s, why, () => transport.allAnswered()).finally(ending.done);
    sessionEnd.abort();
    await server.close().catch(() => {});
    await s.audit.flushRefused().catch(auditFailed(s));
    // Last: while it is held, no other session takes this one's calls for left behind.
    await s.release();
  }
}

/**
 * From the first signal, or the end's first step, until the live calls the session started are
 * ended and written down, a Ctrl-C does not end the process (said on stderr): only SIGKILL
 * cuts the end short. The first signal still stops the session (ctx.signal), which hastens
 * its end. Without it, a second Ctrl-C would leave calls running, billed.
 */
function holdTheEnd(ctx: Context): { begin(): void; done(): void } {
  let release: (() => void) | undefined;
  const begin = () => {
    release ??= ctx.keepEnding?.('the live calls it started are ended and written down') ?? (() => {});
  };
  ctx.signal.addEventListener('abort', begin, { once: true });
  return {
    begin,
    done: () => {
      ctx.signal.removeEventListener('abort', begin);
      release?.();
    },
  };
}
