// svc doctor's checks of the config folder and its files: the folder svc writes, config.json
// read as every command reads it, and credentials.json private (tightened as every command does).
import { closeSync, constants } from 'node:fs';
import { openOwnFile, tightenOwnFile } from '../../files/own-file.js';
import { access, lstat, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from '../../context.js';
import type { ConfigData } from '../../config/config.js';
import { CONFIG_FILE, CREDENTIALS_FILE } from '../../config/paths.js';
import { unwritable } from '../../config/writable.js';
import type { Check } from './check.js';

function modeString(mode: number): string {
  return (mode & 0o777).toString(8).padStart(4, '0');
}

export async function configChecks(ctx: Context): Promise<{ checks: Check[]; config: ConfigData | undefined }> {
  const checks: Check[] = [];
  const dir = ctx.config.dir;
  const dirStat = await stat(dir).catch(() => undefined);
  if (!dirStat) checks.push({ check: 'config', status: 'ok', message: `config dir ${dir} does not exist yet (made on first sign-in)` });
  else {
    // Said as a write there fails (src/config/writable.ts): a read-only mount is no chmod's to fix.
    const unwritableDir = await access(dir, constants.R_OK | constants.W_OK).then(
      () => null,
      (error: unknown) => unwritable(dir, error),
    );
    // Its owner, and anyone who can write it, can replace the files that hold the secrets.
    const me = process.getuid?.();
    if (me !== undefined && dirStat.uid !== me)
      checks.push({
        check: 'config',
        status: 'warning',
        message: `config dir ${dir} belongs to another user (uid ${dirStat.uid}), who can read and replace the files that hold your secrets`,
        fix: 'point SVC_CONFIG_DIR at a folder of your own',
      });
    const openTo = dirStat.mode & 0o002 ? 'everyone' : dirStat.mode & 0o020 ? 'its group' : undefined;
    checks.push(
      unwritableDir
        ? {
            check: 'config',
            status: 'failed',
            message: unwritableDir.message,
            fix: unwritableDir.hint ?? 'point SVC_CONFIG_DIR at another directory',
          }
        : openTo
          ? {
              check: 'config',
              status: openTo === 'everyone' ? 'failed' : 'warning',
              message: `config dir ${dir} is writable by ${openTo} (mode ${modeString(dirStat.mode)}): others could replace the files that hold your secrets`,
              fix: `chmod 700 ${dir}`,
            }
          : { check: 'config', status: 'ok', message: `config dir ${dir} (mode ${modeString(dirStat.mode)})` },
    );
  }
  let config: ConfigData | undefined;
  try {
    config = await ctx.config.read();
    const fileStat = await stat(ctx.config.path).catch(() => undefined);
    if (fileStat) {
      const open = (fileStat.mode & 0o022) !== 0;
      checks.push(
        open
          ? {
              check: 'config',
              status: 'warning',
              message: `${CONFIG_FILE} is writable by others (mode ${modeString(fileStat.mode)})`,
              fix: `chmod 600 ${ctx.config.path}`,
            }
          : {
              check: 'config',
              status: 'ok',
              message: `${CONFIG_FILE} reads (${Object.keys(config.profiles).length} profile(s), mode ${modeString(fileStat.mode)})`,
            },
      );
    }
  } catch (error) {
    checks.push({
      check: 'config',
      status: 'failed',
      message: (error as Error).message,
      fix: (error as { hint?: string }).hint ?? `fix or move ${ctx.config.path}`,
    });
  }
  const credentialsPath = join(dir, CREDENTIALS_FILE);
  // lstat: a link at this path is refused by svc, never followed (src/config/own-file.ts).
  const credStat = await lstat(credentialsPath).catch(() => undefined);
  if (credStat && !credStat.isFile())
    checks.push({
      check: 'config',
      status: 'failed',
      message: `${credentialsPath} is ${credStat.isSymbolicLink() ? 'a symbolic link' : credStat.isFIFO() ? 'a FIFO' : 'not a regular file'}: svc refuses it unread`,
      fix: `move it away (svc keeps a regular file of mode 0600 there), or set SVC_CONFIG_DIR`,
    });
  else if (credStat) checks.push(credentialsFileCheck(credentialsPath, credStat.mode));
  return { checks, config };
}

/**
 * credentials.json open to others is tightened to 0600 as every command tightens it when it
 * opens the file (the same code), and said as done, not as a fix still to make.
 */
function credentialsFileCheck(path: string, mode: number): Check {
  if ((mode & 0o077) === 0) return { check: 'config', status: 'ok', message: `${CREDENTIALS_FILE} is private (mode ${modeString(mode)})` };
  const openTo = mode & 0o007 ? 'others' : 'its group';
  let fd: number | undefined;
  try {
    fd = openOwnFile(path, constants.O_RDONLY, { what: 'the credentials file' });
    tightenOwnFile(fd);
  } catch {
    return {
      check: 'config',
      status: 'failed',
      message: `${CREDENTIALS_FILE} holds secrets but is open to ${openTo} (mode ${modeString(mode)})`,
      fix: `chmod 600 ${path}`,
    };
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return {
    check: 'config',
    status: 'warning',
    message: `${CREDENTIALS_FILE} was open to ${openTo} (mode ${modeString(mode)}); svc set it to 0600`,
    fix: 'its secrets may have been read: consider replacing them (svc login, svc keys add)',
  };
}
