// What the `svc mcp` suites share: one emulator for the file (its seed again before each test),
// a fresh HOME per test that no run has used yet, the environment of an svc mcp process, and an
// MCP client connected to one over stdio (the built program, as an assistant would start it),
// closed after the test with anything else the test asked to close.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { useTestEmulator, type TestEmulator } from './emulator.js';
import { svcCommand } from './spawn.js';
import { TEST_CA_DIR, testCaFile } from './test-ca.js';

export type ToolResult = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

/** A tool call as an assistant makes it. */
export const callTool = (client: Client, name: string, args: Record<string, unknown> = {}, options: { signal?: AbortSignal } = {}) =>
  client.callTool({ name, arguments: args }, undefined, options) as Promise<ToolResult>;

export interface McpConnection {
  client: Client;
  transport: StdioClientTransport;
  /** What svc mcp wrote on stderr so far. */
  stderr: () => string;
  /** The log messages svc sent. */
  logged: string[];
}

export interface McpConnectOptions {
  /** The process's environment; by default envFor the seed's test key. */
  env?: Record<string, string>;
  /** The client's name in the MCP handshake. */
  name?: string;
  /** Answers svc's approval questions; with it the client says it can be asked (elicitation). */
  elicit?: (message: string) => ElicitResult | Promise<ElicitResult>;
}

export interface McpSuite {
  emulator: () => TestEmulator;
  /** This test's HOME, which no run has used yet. */
  home: () => string;
  /** Where svc keeps its files in this test: SVC_CONFIG_DIR with `configDir`, else HOME's .config/svc. */
  svcDir: () => string;
  /** The environment of an svc process of this test, with `key` as SVC_API_KEY. */
  envFor: (key: string, extra?: Record<string, string>) => Record<string, string>;
  connect: (args: string[], options?: McpConnectOptions) => Promise<McpConnection>;
  /** Closed after the test (a server the test started). */
  closers: Array<() => void>;
}

/**
 * The hooks and helpers of an svc mcp suite. `tmpPrefix` names the test's folder; with
 * `configDir` svc's folder is SVC_CONFIG_DIR (the folder itself) and HOME a folder inside it.
 */
export function useMcpSuite(opts: { tmpPrefix: string; configDir?: boolean; https?: boolean }): McpSuite {
  // Over https, the emulator's certificate is the tests' CA's, which svc trusts as a user trusts the emulator's (NODE_EXTRA_CA_CERTS).
  const emulator = useTestEmulator({ resetEach: true, ...(opts.https ? { https: { caDir: TEST_CA_DIR } } : {}) });
  let dir: string | undefined;
  let clients: Client[] = [];
  const closers: Array<() => void> = [];
  const folder = () => {
    if (!dir) throw new Error("the test's folder is made before each test (use it inside tests or hooks)");
    return dir;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), opts.tmpPrefix));
  });
  afterEach(async () => {
    await Promise.all(clients.map((client) => client.close()));
    clients = [];
    for (const close of closers.splice(0)) close();
  });
  const home = () => (opts.configDir ? join(folder(), 'home') : folder());
  const svcDir = () => (opts.configDir ? folder() : join(folder(), '.config', 'svc'));
  const envFor = (key: string, extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: process.env.PATH ?? '',
    HOME: home(),
    ...(opts.configDir ? { SVC_CONFIG_DIR: folder() } : {}),
    SVC_API_KEY: key,
    SVC_BASE_URL: emulator().url,
    NO_COLOR: '1',
    ...(opts.https ? { NODE_EXTRA_CA_CERTS: testCaFile() } : {}),
    ...extra,
  });
  const connect = async (args: string[], options: McpConnectOptions = {}): Promise<McpConnection> => {
    const [command, prefix] = svcCommand(['mcp', ...args]);
    const transport = new StdioClientTransport({ command, args: prefix, env: options.env ?? envFor(emulator().seed.keys.test), stderr: 'pipe' });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = new Client({ name: options.name ?? 'svc-test', version: '1.0.0' }, options.elicit ? { capabilities: { elicitation: { form: {} } } } : {});
    const { elicit } = options;
    if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
    const logged: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (note) => void logged.push(String(note.params.data)));
    await client.connect(transport);
    clients.push(client);
    return { client, transport, stderr: () => stderr, logged };
  };
  return { emulator, home, svcDir, envFor, connect, closers };
}
