// The browser opener (src/cli/process/browser.ts): which program opens the sign-in address, and
// that it never sees svc's own variables (they may hold secrets).
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openBrowser, openerCommand, openerEnv } from '../../src/cli/process/browser.js';
import { tempConfigDir } from '../helpers/cli.js';

const url = 'http://127.0.0.1:4010/oauth/authorize?client_id=svc_app_cli&state=a&scope=calls%3Aread';

describe('browser opener', () => {
  it('uses $BROWSER (with %s, or the address appended), else the platform opener', () => {
    expect(openerCommand(url, { BROWSER: 'firefox --new-tab' }, 'linux')).toEqual({ command: 'firefox', args: ['--new-tab', url] });
    expect(openerCommand(url, { BROWSER: 'w3m %s' }, 'linux')).toEqual({ command: 'w3m', args: [url] });
    expect(openerCommand(url, { BROWSER: 'lynx:w3m' }, 'linux')).toEqual({ command: 'lynx', args: [url] });
    expect(openerCommand(url, {}, 'linux')).toEqual({ command: 'xdg-open', args: [url] });
    expect(openerCommand(url, { WSL_DISTRO_NAME: 'Ubuntu' }, 'linux')).toEqual({ command: 'wslview', args: [url] });
    expect(openerCommand(url, {}, 'darwin')).toEqual({ command: 'open', args: [url] });
    expect(openerCommand(url, {}, 'win32')).toEqual({ command: 'rundll32', args: ['url.dll,FileProtocolHandler', url] });
  });

  it('strips every SVC_* variable from the environment it is given', () => {
    const env = openerEnv({
      PATH: '/usr/bin',
      DISPLAY: ':0',
      SVC_API_KEY: 'svc_live_secret',
      SVC_CLIENT_SECRET: 'svc_cs_x',
      SVC_FORWARD_SECRET: 'whsec',
      svc_lower: 'x',
      UNSET: undefined,
    });
    expect(env).toEqual({ PATH: '/usr/bin', DISPLAY: ':0' });
  });

  it('a real opener process gets the address and no SVC_* variable', async () => {
    const dir = tempConfigDir();
    const script = join(dir, 'opener.sh');
    writeFileSync(
      script,
      `#!/bin/sh\nenv > "${dir}/env.tmp"; printf '%s' "$1" > "${dir}/url.tmp"; mv "${dir}/env.tmp" "${dir}/env"; mv "${dir}/url.tmp" "${dir}/url"\n`,
    );
    chmodSync(script, 0o755);
    await openBrowser(
      url,
      {
        PATH: process.env.PATH,
        BROWSER: script,
        SVC_API_KEY: 'svc_live_do-not-leak',
        SVC_CLIENT_SECRET: 'svc_cs_do-not-leak',
        SVC_FORWARD_SECRET: 'whsec_do-not-leak',
      },
      'linux',
    );
    for (let waited = 0; !existsSync(join(dir, 'url')); waited += 20) {
      if (waited > 5000) throw new Error('the opener never ran');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(readFileSync(join(dir, 'url'), 'utf8')).toBe(url);
    const env = readFileSync(join(dir, 'env'), 'utf8');
    expect(env).not.toMatch(/^SVC_/m);
    expect(env).not.toContain('do-not-leak');
  });

  it('a missing opener is an error that names it (login then prints the address instead)', async () => {
    await expect(openBrowser(url, { PATH: '/nonexistent', BROWSER: 'no-such-browser-here' }, 'linux')).rejects.toThrow('no-such-browser-here was not found');
  });
});
