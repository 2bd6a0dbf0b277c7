// The context an assistant spends on svc's tool list (docs/design.md, Performance budget): the
// `tools/list` answer as `svc mcp` sends it (descriptions, input and output schemas,
// annotations), in tokens counted as characters / 4. Budgets: ≤ 6,000 with every tool (the
// larger of a live --allow-write session and a test --allow-write one: each offers a tool the
// other cannot use), ≤ 3,000 for the default session (test mode, read-only).
//   npm run build && node bench/mcp-tools.mjs     (also part of npm run bench)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnEmulator } from './spawned-emulator.mjs';

const svc = fileURLToPath(new URL('../bin/svc.js', import.meta.url));

/** The raw `tools/list` result line a spawned `svc mcp <args>` answers. */
async function toolsListed(emulator, key, args, scratch) {
  const env = { PATH: process.env.PATH, HOME: scratch, SVC_CONFIG_DIR: scratch, SVC_API_KEY: key, SVC_BASE_URL: emulator.url };
  const child = spawn(process.execPath, [svc, 'mcp', ...args], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const lines = [];
  let buffered = '';
  const answered = new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        lines.push(buffered.slice(0, at));
        buffered = buffered.slice(at + 1);
        const listed = lines.find((line) => JSON.parse(line).id === 2);
        if (listed) resolve(listed);
      }
    });
    child.on('exit', (code) => reject(new Error(`svc mcp ${args.join(' ')} exited ${code}`)));
  });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  send({ method: 'notifications/initialized' });
  send({ id: 2, method: 'tools/list', params: {} });
  const line = await answered;
  child.stdin.end();
  const result = JSON.parse(line).result;
  // The tools as a model receives them: the list's JSON, the envelope left out.
  const text = JSON.stringify(result.tools);
  return { tools: result.tools.length, chars: text.length, tokens: Math.ceil(text.length / 4) };
}

export async function runMcpToolsBench() {
  const emulator = await spawnEmulator();
  const scratch = mkdtempSync(join(tmpdir(), 'svc-bench-tools-'));
  try {
    const readOnly = await toolsListed(emulator, emulator.keys.test, [], scratch);
    const testWrite = await toolsListed(emulator, emulator.keys.test, ['--allow-write'], scratch);
    const liveWrite = await toolsListed(emulator, emulator.keys.live, ['--live', '--max-spend', '5', '--allow-write'], scratch);
    return { readOnly, testWrite, liveWrite };
  } finally {
    emulator.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Prints the rows; answers how many are over budget. */
export function reportMcpToolsBench(figures, log) {
  const rows = [
    ['default (test, read-only)', figures.readOnly, 3000],
    ['test --allow-write', figures.testWrite, 6000],
    ['live --max-spend --allow-write', figures.liveWrite, 6000],
  ];
  let over = 0;
  for (const [label, { tools, tokens }, budget] of rows) {
    if (tokens > budget) over++;
    log(`svc mcp tools/list, ${label}: ${tools} tools, ${tokens} tokens (budget ${budget}) ${tokens > budget ? 'OVER' : 'ok'}`);
  }
  return over;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const over = reportMcpToolsBench(await runMcpToolsBench(), console.log);
  process.exitCode = over ? 1 : 0;
}
