// One line of `svc doctor`'s report: each check module returns these.

export type Status = 'ok' | 'warning' | 'failed';

export interface Check {
  /** Stable id, for scripts: config, profile, address, service, proxy, keychain, request, credential, clock, node. */
  check: string;
  status: Status;
  message: string;
  fix?: string;
  /** The exit code of the command a failed request check stands for. */
  exit_code?: number;
}
