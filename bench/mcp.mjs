// `svc mcp`'s budgets (issue 40; docs/design.md "Performance budget"), not tests:
// - `initialize` answered from spawn in at most 1.10 times a bundled minimal SDK server with one
//   tool, that server built here with esbuild and started alternately with svc in the same run;
// - resident memory after 10,000 tool calls at most 128 MiB, and flat: its highest reading over
//   the last quarter of the calls less than 5 % above its highest over the second quarter;
// - a tool call adds at most 3 ms to the command's own request time (issue 48's budget).
//   node scripts/build.mjs && node bench/mcp.mjs [--node PATH]    BENCH_RUNS=15, BENCH_CALLS=10000,
//   BENCH_RSS_TRACE=1 (prints the resident memory read at every 1,000th call)
// `npm run bench` runs it too, on Node 26 (exit code 1 when a budget is missed).
// The tool is `account_balance` against a small local service answering GET /v1/balance at
// once, so the figures are svc's own: the command's request time is a bare keep-alive
// node:http GET to the same service. The pace of the real limit (600 a minute) is lifted with
// SVC_MCP_REQUESTS_PER_MINUTE, or 10,000 calls would take 17 minutes of waiting by design.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { nodeBinary } from '../scripts/nodes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const node = args[args.indexOf('--node') + 1] && args.includes('--node') ? args[args.indexOf('--node') + 1] : nodeBinary('26.12.1');
const runs = Number(process.env.BENCH_RUNS ?? 15);
const calls = Number(process.env.BENCH_CALLS ?? 10_000);
const nodeVersion = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();

const balance = JSON.stringify({ object: 'balance', currency: 'usd', available: 10_000, livemode: false });
const service = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(balance) });
  res.end(balance);
});
await new Promise((resolve) => service.listen(0, '127.0.0.1', resolve));
const baseUrl = `http://127.0.0.1:${service.address().port}`;
const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-mcp-'));
const env = {
  PATH: process.env.PATH,
  HOME: scratch,
  SVC_CONFIG_DIR: scratch,
  SVC_API_KEY: `svc_test_${'b'.repeat(32)}`,
  SVC_BASE_URL: baseUrl,
  SVC_MCP_REQUESTS_PER_MINUTE: '100000000',
  ...(process.env.BENCH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS } : {}),
};

// The reference: the SDK's own minimal server with one tool, bundled as svc is (one file, ESM).
const minimalServer = join(scratch, 'minimal-sdk-server.mjs');
await build({
  stdin: {
    resolveDir: root,
    loader: 'js',
    contents: `
      import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
      import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
      const server = new McpServer({ name: 'minimal', version: '1.0.0' });
      server.registerTool('ping', { description: 'Answers pong.' }, async () => ({ content: [{ type: 'text', text: 'pong' }] }));
      await server.connect(new StdioServerTransport());
    `,
  },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  minify: true,
  outfile: minimalServer,
  logLevel: 'error',
});
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** A spawned `svc mcp` and a line-at-a-time JSON-RPC client over its stdio. */
function startServer(argv = [join(root, 'bin/svc.js'), 'mcp']) {
  const started = process.hrtime.bigint();
  const child = spawn(node, argv, { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const waiting = new Map();
  let buffered = '';
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, at));
      buffered = buffered.slice(at + 1);
      waiting.get(message.id)?.(message);
      waiting.delete(message.id);
    }
  });
  let id = 0;
  const request = (method, params) =>
    new Promise((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const initialize = () => request('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } });
  const close = () => new Promise((resolve) => (child.on('close', resolve), child.stdin.end()));
  return { child, started, request, initialize, close };
}

// 0. `node -e 0` of the same Node, for scale (the machine's load moves both alike).
const bareStartMs = [];
for (let i = 0; i < runs + 2; i++) {
  const t = process.hrtime.bigint();
  spawnSync(node, ['-e', '0']);
  if (i >= 2) bareStartMs.push(Number(process.hrtime.bigint() - t) / 1e6);
}

// 1. initialize from spawn, svc and the minimal SDK server taking turns (load moves both alike);
// then tools/list, sent as soon as initialize is answered, as clients do: svc reads what the
// session needs from the service (prices, events_wait's position) after initialize, and holds
// the list until then, so this shows what that read costs a client.
const initMs = [];
const sdkInitMs = [];
const listMs = [];
const sdkListMs = [];
const timeInitialize = async (argv) => {
  const server = startServer(argv);
  await server.initialize();
  const ms = Number(process.hrtime.bigint() - server.started) / 1e6;
  server.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  await server.request('tools/list', {});
  const listed = Number(process.hrtime.bigint() - server.started) / 1e6;
  await server.close();
  return [ms, listed];
};
for (let i = 0; i < runs + 2; i++) {
  const [svcMs, svcListed] = await timeInitialize();
  const [sdkMs, sdkListed] = await timeInitialize([minimalServer]);
  if (i >= 2) (initMs.push(svcMs), sdkInitMs.push(sdkMs), listMs.push(svcListed), sdkListMs.push(sdkListed));
}
const initRatio = median(initMs) / median(sdkInitMs);

// 2. A tool call against the command's own request (a bare keep-alive GET of the same answer).
const agent = new Agent({ keepAlive: true });
const bareOnce = () =>
  new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    get(`${baseUrl}/v1/balance`, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve(Number(process.hrtime.bigint() - t) / 1e6));
    }).on('error', reject);
  });
const server = startServer();
await server.initialize();
server.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
const toolOnce = async () => {
  const t = process.hrtime.bigint();
  const answer = await server.request('tools/call', { name: 'account_balance', arguments: {} });
  if (answer.result?.isError || answer.error) throw new Error(`the tool failed: ${JSON.stringify(answer)}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const statusOf = (pid) => readFileSync(`/proc/${pid}/status`, 'utf8');
const rssAfterInit = Number(/VmRSS:\s+(\d+)/.exec(statusOf(server.child.pid))?.[1] ?? NaN) / 1024;
for (let i = 0; i < 50; i++) await Promise.all([toolOnce(), bareOnce()]);
const tool = [];
const bare = [];
for (let i = 0; i < 300; i++) {
  tool.push(await toolOnce());
  bare.push(await bareOnce());
}

// 3. Resident memory over the calls, from /proc every 100 calls (VmHWM is the peak). RSS moves
// in a sawtooth with V8's collections, so "flat" compares peaks over windows, not two samples:
// the highest RSS over the last quarter of the calls against the highest over the second.
const mibOf = (field, status) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
const samples = [];
for (let done = 350; done < calls; done++) {
  await toolOnce();
  if ((done + 1) % 100 === 0) samples.push([done + 1, mibOf('VmRSS', statusOf(server.child.pid))]);
}
const peakBetween = (from, to) => Math.max(...samples.filter(([at]) => at > from && at <= to).map(([, mib]) => mib));
const quarter = Math.floor(calls / 4);
const rssSecondPeak = peakBetween(quarter, 2 * quarter);
const status = statusOf(server.child.pid);
const rssAtEnd = mibOf('VmRSS', status);
const rssLastPeak = peakBetween(3 * quarter, calls);
const growth = (rssLastPeak - rssSecondPeak) / rssSecondPeak;
if (process.env.BENCH_RSS_TRACE)
  console.log(
    samples
      .filter(([at]) => at % 1000 === 0)
      .map(([at, mib]) => `${at}:${mib.toFixed(0)}`)
      .join(' '),
  );
await server.close();
service.close();
agent.destroy();
rmSync(scratch, { recursive: true, force: true });

let over = 0;
const row = (label, value, budget, ok) => {
  if (budget && !ok) over++;
  console.log(`${label.padEnd(48)} ${value.padStart(10)}   ${budget ? `budget ${budget.padEnd(9)} ${ok ? 'met' : 'OVER'}` : ''}`);
};
console.log(`svc mcp on Node ${nodeVersion} (${runs} starts each, 300 timed calls, ${calls} calls in all)`);
row('node -e 0, same Node (median)', `${median(bareStartMs).toFixed(1)} ms`);
row('initialize answered from spawn, svc (median)', `${median(initMs).toFixed(1)} ms`);
row('  the same, minimal SDK server, one tool', `${median(sdkInitMs).toFixed(1)} ms`);
row('  svc in times the minimal SDK server', `${initRatio.toFixed(2)}x`, '1.10x', initRatio <= 1.1);
row('tools/list answered from spawn, svc (median)', `${median(listMs).toFixed(1)} ms`);
row('  the same, minimal SDK server, one tool', `${median(sdkListMs).toFixed(1)} ms`);
row('tool call account_balance (median)', `${median(tool).toFixed(2)} ms`);
row('its request alone, bare node:http (median)', `${median(bare).toFixed(2)} ms`);
row('a tool call adds', `${(median(tool) - median(bare)).toFixed(2)} ms`, '3 ms', median(tool) - median(bare) <= 3);
row('resident memory after initialize (VmRSS)', `${rssAfterInit.toFixed(1)} MiB`);
row(`resident memory after ${calls} calls (VmRSS)`, `${rssAtEnd.toFixed(1)} MiB`, '128 MiB', rssAtEnd <= 128);
row(`  highest over calls ${quarter}-${2 * quarter} (VmRSS)`, `${rssSecondPeak.toFixed(1)} MiB`);
row(`  highest over calls ${3 * quarter}-${calls} (VmRSS)`, `${rssLastPeak.toFixed(1)} MiB`);
row(`  growth of the highest, second to last quarter`, `${(growth * 100).toFixed(1)} %`, '< 5 %', growth < 0.05);
row('peak resident memory (VmHWM)', `${mibOf('VmHWM', status).toFixed(1)} MiB`);
// `npm run bench` (bench/run.mjs) counts a budget missed by the exit code.
process.exitCode = over > 0 ? 1 : 0;
