// `svc mcp`'s server: the MCP SDK's McpServer on the context's stdio, with one tool per command
// the declarations mark (tools.ts). A tool call is the command run in-process from typed input
// (invoke.ts: its validated JSON read by the declarations, never a command line), with the
// session's profile, base URL, credential and mode, fixed when the session started; its
// --json output is the tool's result, a failure svc's error report (code, message, hint) as an
// MCP tool error. Around each call: an audit line before it acts and one after (audit.ts), the
// pace the service's rate limit allows, and the ledger of a live session (budget.ts).
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Context } from '../../context.js';
import type { RootSpec, RunInProcess } from '../define.js';
import { EXIT } from '../../errors.js';
import { loggedArgs } from './audit.js';
import { dollars, drawnFor, priceOf, unitsToCents, type DryRun } from './budget.js';
import { typedInput, type TypedInput } from './invoke.js';
import { failureOf, reportOf, successOf, toolError } from './result.js';
import { callTool, sessionState, type ServeOptions, type SessionState, type Settled } from './session.js';
import { inputSchema } from './schema.js';
import type { ToolSpec } from './tools.js';
import { contextTransport } from './transport.js';
import { registerEventsWait } from './events-wait.js';

export type { ServeOptions };

/**
 * A billed call: priced by the command's own dry run, refused past the cap, its price reserved
 * while it runs and settled with what the service drew. A call sent and never answered keeps
 * its reservation (it may have been drawn); one the service refused draws nothing.
 */
async function billed(s: SessionState, tool: ToolSpec, input: TypedInput, signal: AbortSignal, settled: Settled): Promise<CallToolResult> {
  const ledger = s.ledger!;
  settled.spent = unitsToCents(ledger.spent);
  const path = tool.path.join(' ');
  const priced = await s.run(path, { args: input.args, flags: { ...input.flags, dryRun: true } }, signal);
  if (priced.exitCode !== 0) return failureOf(priced);
  const price = priceOf(JSON.parse(priced.stdout) as DryRun);
  if ('refused' in price) return toolError('not_priceable', price.refused, null);
  settled.price_asked = unitsToCents(price.units);
  const reserved = ledger.reserve(price.units);
  if (!reserved.ok) return toolError('spend_cap', reserved.message, reserved.hint, null, EXIT.paymentRequired);
  let drawn: number | undefined;
  try {
    const limited = await s.paced(signal);
    if (limited) {
      drawn = 0;
      return limited;
    }
    const ran = await s.run(path, input, signal, true);
    if (ran.exitCode !== 0) {
      const result = failureOf(ran);
      // The service answered (or nothing was sent): nothing was drawn. Otherwise it may have been.
      if (reportOf(result)?.status !== null || ran.exitCode === EXIT.usage) drawn = 0;
      return result;
    }
    const result = successOf(ran.stdout);
    drawn = drawnFor(price, result.structuredContent);
    noteLiveCall(s, result.structuredContent);
    return result;
  } finally {
    if (drawn !== undefined) ledger.settle(reserved.reservation, drawn);
    settled.spent = unitsToCents(ledger.spent);
  }
}

/** A call started or dialled into: ended with the session, which no cap would count past. */
function noteLiveCall(s: SessionState, answer: unknown): void {
  const { id, call_id: callId } = (answer ?? {}) as { id?: unknown; call_id?: unknown };
  const call = typeof callId === 'string' ? callId : id;
  if (typeof call === 'string' && call.startsWith('call_')) s.liveCalls.add(call);
}

/** A tool of the tree, called: its input typed, then run (billed ones through the ledger). */
function runTool(s: SessionState, tool: ToolSpec, args: Record<string, unknown>, clientSignal: AbortSignal): Promise<CallToolResult> {
  return callTool(s, tool, args, clientSignal, async (signal, settled) => {
    const input = typedInput(tool, args);
    if (tool.billed) return billed(s, tool, input, signal, settled);
    const limited = await s.paced(signal);
    if (limited) return limited;
    const ran = await s.run(tool.path.join(' '), input, signal);
    return ran.exitCode === 0 ? successOf(ran.stdout) : failureOf(ran);
  });
}

/** The part of the transport the audit of refused calls wraps. */
type Wire = Pick<Transport, 'onmessage' | 'send'>;

/**
 * tools/call requests the SDK answers itself (an unknown tool, input its schema refuses), by id:
 * audited (intent and result) when answered, since no tool handler saw them.
 */
export function auditRefusals(s: SessionState): { answered(id: string | number): void; watch(transport: Wire): void } {
  const pending = new Map<string | number, { tool: string; args: unknown }>();
  const known = (name: string) => s.tools.some((t) => t.name === name) || name === 'events_wait';
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
            void callTool(s, { name: tool }, params.arguments, new AbortController().signal, async () => toolError('unknown_tool', 'refused', null)).then(
              refuse,
              refuse,
            );
            return;
          }
          pending.set(message.id, { tool, args: params.arguments });
        }
        receive?.(message, extra);
      };
      transport.send = async (message, options) => {
        const id = 'id' in message && !('method' in message) ? message.id : undefined;
        const refused = id === undefined || id === null ? undefined : pending.get(id);
        if (refused) {
          pending.delete(id!);
          await callTool(s, { name: refused.tool }, refused.args, new AbortController().signal, async () => toolError('usage', 'refused', null));
        }
        return send(message, options);
      };
    },
  };
}

/** The MCP server, until stdin ends (the calls in flight answered first) or Ctrl-C. */
export async function serve(opts: ServeOptions, ctx: Context, tree: RootSpec, runOther: RunInProcess): Promise<void> {
  const s = sessionState(opts, ctx, tree, runOther);
  const [{ McpServer }, z] = await Promise.all([import('@modelcontextprotocol/sdk/server/mcp.js'), import('zod')]);
  const server = new McpServer(
    { name: 'svc', version: ctx.version },
    {
      // The SDK's default validator (Ajv, built with its formats when the server is made) checks
      // only answers to elicitation, which svc never asks for: not building it saves start-up time.
      jsonSchemaValidator: { getValidator: () => () => ({ valid: false, data: undefined, errorMessage: 'svc mcp asks the client nothing' }) },
      instructions:
        s.session.mode === 'live'
          ? `svc in LIVE mode: billed tools are priced before each call and refused once the session would pass ${dollars(s.session.maxSpend!)} (--max-spend).`
          : 'svc in test mode: nothing is billed; objects are the test-mode ones.',
    },
  );
  const refusedBySdk = auditRefusals(s);
  for (const tool of s.tools) {
    server.registerTool(
      tool.name,
      {
        title: `svc ${tool.path.join(' ')}`,
        description: tool.description,
        inputSchema: inputSchema(z, tool),
        annotations: { readOnlyHint: tool.readOnly, destructiveHint: false, idempotentHint: tool.readOnly, openWorldHint: false },
      },
      (input, extra) => {
        refusedBySdk.answered(extra.requestId);
        return runTool(s, tool, input ?? {}, extra.signal);
      },
    );
  }
  registerEventsWait(s, server, z, refusedBySdk);

  const transport = await contextTransport(ctx.io, ctx.signal);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
  });
  await server.connect(transport);
  refusedBySdk.watch(transport);
  // The server's own note goes to stderr: stdout is the protocol's alone.
  ctx.io.stderr.write(
    `svc mcp: ${s.tools.length + 1} tools, ${s.session.mode} mode${opts.allowWrite ? ', writes allowed' : ', read-only'}${s.ledger ? `, spending cap ${dollars(s.ledger.capUnits)}` : ''}; audit log ${s.audit.path}\n`,
  );
  try {
    await closed;
  } finally {
    // The session's live calls still running end with it.
    const never = new AbortController().signal;
    await Promise.all([...s.liveCalls].map((id) => s.own('calls end', { id }, never)));
    await server.close().catch(() => {});
  }
}
