// The OS keychain asked from a process of its own (bin/keychain-child.js), so that its time
// bound is real: @napi-rs/keyring connects to the Secret Service synchronously, and a D-Bus
// socket that accepts and never answers blocks the calling thread for good. Promise.race
// cannot leave such a call behind, nor can a worker thread (Node waits for it at exit); a
// process can be killed. One process serves every keychain call of a command, started at
// the first; a call past its bound kills it, and the rest of the command is told at once
// that the keychain did not answer rather than waiting again.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Env } from '../shared/runtime.js';
import { lazyRequire } from '../node-require.js';
import { CliError } from '../errors.js';
import { readSecretService } from './secret-service.js';

/** The word bin/svc.js answers by serving keychain calls on stdin. */
export const KEYCHAIN_CHILD_ARGUMENT = '__keychain-child';

/** One request to the keychain process (bin/keychain-child.js's protocol). */
export interface KeychainRequest {
  /** `ready`: the process started and its addon loaded, nothing asked of the keychain. */
  op: 'get' | 'set' | 'delete' | 'ready';
  service: string;
  account: string;
  value?: string;
  /** The addon's store on Linux: the Secret Service, or the kernel keyring for an earlier svc's copies. */
  store: 'secret-service' | 'keyutils';
  target?: string;
}

/** The keychain process stopped answering (or never could): every later call fails at once with this. */
export class KeychainStuckError extends Error {}

/** The standalone svc's addon is missing or damaged: a damaged install, never a reason to use the file. */
export class KeychainAddonError extends CliError {}

/** The program and arguments that start the keychain process: the launcher svc runs from. */
export function keychainChildCommand(execPath: string = process.execPath): [string, string[]] {
  // The standalone binary is its own launcher (packaging/sea-main.cjs runs bin/svc.js).
  if ((globalThis as { __SVC_INSTALL__?: unknown }).__SVC_INSTALL__) return [execPath, [KEYCHAIN_CHILD_ARGUMENT]];
  // This module is in dist/main.cjs (the bundle), or src/credentials/ (the TypeScript source, in tests).
  const here = fileURLToPath(new URL('.', import.meta.url));
  const root = basename(here) === 'dist' ? join(here, '..') : join(here, '..', '..');
  return [execPath, [join(root, 'bin', 'svc.js'), KEYCHAIN_CHILD_ARGUMENT]];
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** The process and its calls in flight; created on the first call. */
export class KeychainProcess {
  private child: ChildProcessWithoutNullStreams | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private stuck: Error | undefined;
  private stderr = '';

  /** Ends the process when svc itself ends (it is in a process group of its own: nothing else would). */
  private readonly onParentExit = () => this.child?.kill('SIGKILL');
  /** SIGTERM, SIGHUP: the process goes first, then the signal's own default (svc ends as it would have). */
  private readonly onParentSignal = (signal: NodeJS.Signals) => {
    // svc handles it itself (src/cli/process/process.ts): it stops the command, and this process
    // with it, once a new token pair being stored is (the stop signal then abandons this process).
    if (process.listenerCount(signal) > 1) return;
    this.child?.kill('SIGKILL');
    this.unwatchParent();
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };

  constructor(
    private readonly env: Env,
    /** The program and arguments of the process; absent: the launcher's (worked out when first started). */
    private readonly command?: [string, string[]],
    /** The command's Ctrl-C: the process is killed and its calls fail (the store then says "interrupted", exit 130). */
    private readonly stop?: AbortSignal,
    /** Reads go to the Secret Service from this process (Linux); false: every call goes to the process. */
    private readonly readsInProcess: boolean = process.platform === 'linux',
  ) {
    stop?.addEventListener('abort', () => this.abandon(new KeychainStuckError('svc was interrupted (Ctrl-C)')), { once: true });
  }

  /**
   * The answer to one request; `signal` abandons it (and the process with it: its call may never
   * return). A read on Linux asks the Secret Service from this process first (secret-service.ts):
   * the process is started only for what that read leaves to the addon, and for writes.
   */
  call(request: KeychainRequest, signal: AbortSignal): Promise<unknown> {
    const inProcess = request.op === 'get' && request.store === 'secret-service' && !request.target && this.readsInProcess && !this.stuck;
    return inProcess ? this.readInProcess(request, signal) : this.callProcess(request, signal);
  }

  /**
   * The process started and ready to write, before the caller spends what a failed write
   * would lose (a refresh token, an authorization code): its start-up is then outside the
   * time a new token pair is only in memory.
   */
  async prepare(signal: AbortSignal): Promise<void> {
    await this.callProcess({ op: 'ready', service: '', account: '', store: 'secret-service' }, signal);
  }

  private async readInProcess(request: KeychainRequest, signal: AbortSignal): Promise<unknown> {
    if (!this.stop?.aborted && !signal.aborted) {
      const bound = this.stop ? AbortSignal.any([signal, this.stop]) : signal;
      try {
        const read = await readSecretService(this.env, request.service, request.account, bound);
        if (read !== 'ask-addon') return read.value;
      } catch (error) {
        // Past its bound (or Ctrl-C) the keychain did not answer: later calls are told so at once, as from the process.
        if (this.stop?.aborted) this.abandon(new KeychainStuckError('svc was interrupted (Ctrl-C)'));
        else if (signal.aborted) this.abandon(signal.reason instanceof Error ? signal.reason : new KeychainStuckError(String(signal.reason)));
        throw this.stuck ?? error;
      }
    }
    return this.callProcess(request, signal);
  }

  private callProcess(request: KeychainRequest, signal: AbortSignal): Promise<unknown> {
    if (this.stop?.aborted) this.abandon(new KeychainStuckError('svc was interrupted (Ctrl-C)'));
    else if (signal.aborted) this.abandon(signal.reason instanceof Error ? signal.reason : new KeychainStuckError(String(signal.reason)));
    if (this.stuck) return Promise.reject(this.stuck);
    const child = this.child ?? this.start();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () =>
        this.abandon(signal.reason instanceof Error ? signal.reason : new KeychainStuckError(String(signal.reason ?? 'the OS keychain did not answer')));
      const settle = () => {
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        if (this.pending.size === 0) this.idle(true);
      };
      this.pending.set(id, {
        resolve: (value) => (settle(), resolve(value)),
        reject: (error) => (settle(), reject(error)),
      });
      if (this.pending.size === 1) this.idle(false);
      signal.addEventListener('abort', onAbort, { once: true });
      child.stdin.write(`${JSON.stringify({ id, ...request })}\n`);
    });
  }

  /** Kills the process and fails what it was asked; later calls fail with `error` at once. */
  abandon(error: Error): void {
    this.stuck ??= error;
    this.child?.kill('SIGKILL');
    this.child = undefined;
    this.unwatchParent();
    for (const call of [...this.pending.values()]) call.reject(this.stuck);
  }

  /**
   * Lets the process end (it ends with its stdin); a later call starts another. One still in a
   * call (the command was stopped, Ctrl-C) is killed: it may never read its stdin again.
   */
  close(): void {
    if (this.pending.size) this.child?.kill('SIGKILL');
    else this.child?.stdin.end();
    this.child = undefined;
    this.unwatchParent();
  }

  /**
   * While a call is under way (the addon may then block the process's thread, so that it
   * cannot see its stdin end), svc's own end ends it.
   */
  private watchParent(): void {
    this.unwatchParent();
    process.on('exit', this.onParentExit);
    process.on('SIGTERM', this.onParentSignal);
    process.on('SIGHUP', this.onParentSignal);
  }

  private unwatchParent(): void {
    process.off('exit', this.onParentExit);
    process.off('SIGTERM', this.onParentSignal);
    process.off('SIGHUP', this.onParentSignal);
  }

  private start(): ChildProcessWithoutNullStreams {
    const [program, args] = this.command ?? keychainChildCommand();
    // A process group of its own: Ctrl-C at the terminal reaches svc's group, and a keychain
    // process killed by it would read as a keychain failure (and the secret would go to the
    // file). svc acts on the interruption and kills it (stop, close, exit, SIGTERM, SIGHUP).
    // (Not on Windows: there a detached process gets a console window of its own.)
    const detached = process.platform !== 'win32';
    const child = lazyRequire('node:child_process').spawn(program, args, { env: this.env, stdio: ['pipe', 'pipe', 'pipe'], detached });
    this.child = child;
    let buffered = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf('\n'); newline >= 0; newline = buffered.indexOf('\n')) {
        this.answer(buffered.slice(0, newline));
        buffered = buffered.slice(newline + 1);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => void (this.stderr = (this.stderr + chunk).slice(-2000)));
    child.on('error', (error) => this.ended(child, `the keychain process could not start (${error.message})`));
    child.on('exit', (code, signal) => this.ended(child, `the keychain process ended (${signal ?? `exit ${code}`})`));
    child.stdin.on('error', () => {}); // its end is reported by 'exit'
    this.idle(true);
    return child;
  }

  private answer(line: string): void {
    let message: { id?: number; value?: unknown; error?: string };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return;
    }
    const call = this.pending.get(message.id ?? -1);
    if (!call) return;
    if (typeof message.error === 'string') call.reject(new Error(message.error));
    else call.resolve(message.value ?? null);
  }

  private ended(child: ChildProcessWithoutNullStreams, why: string): void {
    if (this.child !== child) return;
    this.child = undefined;
    this.unwatchParent();
    const said = this.stderr.trim();
    // The standalone binary's loader stops on an addon that is missing or damaged (packaging/keyring-loader.cjs).
    const error = /keychain addon .* is (missing|damaged)/.test(said)
      ? new KeychainAddonError(said.replace(/^svc: /, ''))
      : new KeychainStuckError(said ? `${why}: ${said.split('\n')[0]}` : why);
    this.stuck ??= error;
    for (const call of [...this.pending.values()]) call.reject(error);
  }

  /** While nothing is asked, the process and its pipes do not keep svc running. */
  private idle(idle: boolean): void {
    const child = this.child;
    if (!child) return;
    const handles = [child, child.stdout, child.stderr, child.stdin] as { ref?: () => void; unref?: () => void }[];
    for (const handle of handles) (idle ? handle.unref : handle.ref)?.call(handle);
    if (idle) this.unwatchParent();
    else this.watchParent();
  }
}
