// `svc events tail` and the files it writes (--checkpoint, --record, --dead-letter): checked at start, written whole.
import { writeFileSync, chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useStreamEmulator } from '../../../helpers/emulator.js';
import { runCli } from '../../../helpers/cli.js';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';

// The files `events tail` writes (--checkpoint, --record, --dead-letter) are checked when it
// starts, before the stream is opened (issue 24): a path that cannot be written fails with
// exit 2 naming it, before any event is consumed; whatever is at the path must be a regular
// file (a FIFO, folder, link or oversized checkpoint is refused unread), and permissions are
// tightened on the opened file itself, never through a link.
describe('events tail and the files it writes', () => {
  const { emu, plane } = useStreamEmulator();
  const env = () => ({ SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url });
  const tmp = () => mkdtempSync(join(tmpdir(), 'svc-own-files-'));
  const forward = ['--forward-to', 'http://127.0.0.1:9/hook'];

  /** Runs a tail that must be refused at start: exit 2, nothing on stdout, no request to the service. */
  async function refused(argv: string[]): Promise<string> {
    await plane().publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 3 });
    const before = (await plane().stats()).requests;
    const { exitCode, stdout, stderr } = await runCli(['events', 'tail', '--json', '--max-events', '1', ...argv], { env: env() });
    expect(exitCode, stderr).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).not.toMatch(/Tailing|unexpected/);
    // The stats call itself is the only request, if the emulator counts control requests at all.
    expect((await plane().stats()).requests - before).toBeLessThanOrEqual(1);
    return stderr;
  }

  describe('events tail: files it writes, checked at start', () => {
    it('a --checkpoint, --record or --dead-letter in a folder that does not exist: exit 2 naming the path, before any event', async () => {
      const missing = join(tmp(), 'nonexistent', 'dir');
      expect(await refused(['--checkpoint', join(missing, 'ck')])).toContain(
        `--checkpoint ${join(missing, 'ck')}: cannot write it (its folder does not exist)`,
      );
      expect(await refused(['--record', join(missing, 'rec')])).toContain(`--record ${join(missing, 'rec')}: cannot write it (its folder does not exist)`);
      expect(await refused([...forward, '--dead-letter', join(missing, 'dead')])).toContain(`--dead-letter ${join(missing, 'dead')}: cannot write it`);
    });

    it.skipIf(process.getuid?.() === 0)('a folder without write permission: exit 2 naming the path', async () => {
      const dir = tmp();
      chmodSync(dir, 0o500);
      try {
        expect(await refused(['--checkpoint', join(dir, 'ck')])).toContain(`--checkpoint ${join(dir, 'ck')}: cannot write it (permission denied)`);
        expect(await refused(['--record', join(dir, 'rec')])).toContain('permission denied');
      } finally {
        chmodSync(dir, 0o700);
      }
    });

    it('a checkpoint that is a FIFO, a folder, a link or over 1 MiB is refused unread, naming it', async () => {
      const dir = tmp();
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      expect(await refused(['--checkpoint', fifo])).toContain(`--checkpoint ${fifo} is a FIFO, not a regular file`);
      const folder = join(dir, 'folder');
      mkdirSync(folder);
      expect(await refused(['--checkpoint', folder])).toContain(`--checkpoint ${folder} is a directory`);
      const big = join(dir, 'big');
      writeFileSync(big, 'x'.repeat(1024 * 1024 + 1));
      expect(await refused(['--checkpoint', big])).toContain(`--checkpoint ${big} is larger than 1024 KiB`);
      const target = join(dir, 'elsewhere');
      writeFileSync(target, JSON.stringify({ last_event_id: 'evt_0000000001', updated_at: new Date().toISOString() }));
      const link = join(dir, 'link');
      symlinkSync(target, link);
      expect(await refused(['--checkpoint', link])).toContain(`--checkpoint ${link} is a symbolic link`);
    });

    it('a --record or --dead-letter that is a FIFO or a link is refused; the linked file is neither written nor changed', async () => {
      const dir = tmp();
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      expect(await refused(['--record', fifo])).toContain(`--record ${fifo}: cannot write it (it is a FIFO or device, not a regular file)`);
      const target = join(dir, 'someone-elses');
      writeFileSync(target, 'theirs\n');
      chmodSync(target, 0o644);
      const link = join(dir, 'link');
      symlinkSync(target, link);
      expect(await refused(['--record', link])).toContain(`is a symbolic link`);
      expect(await refused([...forward, '--dead-letter', link])).toContain(`--dead-letter ${link} is a symbolic link`);
      expect(readFileSync(target, 'utf8')).toBe('theirs\n');
      expect(statSync(target).mode & 0o777).toBe(0o644);
      expect(lstatSync(link).isSymbolicLink()).toBe(true);
    });

    it('an existing --record readable by others is tightened to 0600 on the file itself, and appended to', async () => {
      const dir = tmp();
      const file = join(dir, 'rec.ndjson');
      writeFileSync(file, '{"earlier":true}\n');
      chmodSync(file, 0o644);
      const run = runCli(['events', 'tail', '--json', '--max-events', '1', '--record', file], { env: env() });
      await plane().streamsOpen();
      await plane().publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 1 });
      const { exitCode, stderr } = await run;
      expect(exitCode, stderr).toBe(0);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
      expect(lines).toHaveLength(2);
      expect(JSON.parse(lines[1]!).type).toBe('call.started');
    });
  });
});
