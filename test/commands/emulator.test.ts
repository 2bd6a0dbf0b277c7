// `svc emulator`: its parse rules (flags and arguments, apart from running: the runF seam).
import { describe, expect, it } from 'vitest';
import { parsing } from '../helpers/parse.js';

const { ok, refused } = parsing('emulator');

describe('svc emulator: parse', () => {
  it('parses its flags and arguments', async () => {
    expect(await ok('emulator')).toEqual({ port: 4010, host: '127.0.0.1', json: false });
    expect(await ok('emulator', '--port', '0', '--host', '0.0.0.0')).toEqual({ port: 0, host: '0.0.0.0', json: false });
    expect(await refused('emulator', '--port', '65536')).toContain('--port "65536" must be a whole number from 0 to 65535');
    expect(await ok('emulator', '--state', 's.jsonl', '--export', 'out.json', '--allow-host', 'svc.test', '--allow-host', 'b.test')).toMatchObject({
      state: 's.jsonl',
      exportTo: 'out.json',
      allowHosts: ['svc.test', 'b.test'],
    });
  });
});
