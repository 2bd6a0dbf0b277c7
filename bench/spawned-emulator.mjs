// `svc emulator --port 0 --json` in a process of its own, for the benches that time svc
// against it (bench/run.mjs, bench/requests.mjs, bench/standalone.mjs).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const svc = fileURLToPath(new URL('../bin/svc.js', import.meta.url));

/**
 * Starts the emulator (`command`: the svc to run, this checkout's bin/svc.js unless given;
 * `args`: more flags, such as --https) and answers its --json line (url, org_id, keys, …)
 * with stop().
 */
export async function spawnEmulator({ command = [process.execPath, svc], args = [], env = process.env } = {}) {
  const [program, ...before] = command;
  const child = spawn(program, [...before, 'emulator', '--port', '0', '--json', ...args], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const end = buffered.indexOf('\n');
      if (end >= 0) resolve(buffered.slice(0, end));
    });
    child.on('exit', (code) => reject(new Error(`svc emulator exited ${code}`)));
  });
  return { ...JSON.parse(line), stop: () => child.kill('SIGINT') };
}
