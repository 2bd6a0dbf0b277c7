// The command tree alone (no runner), for the completion generator and `svc completion`.
import type { Command } from 'commander';
import { buildProgram } from './program.js';

export function commandTree(version = '0.0.0'): Command {
  return buildProgram({ version, invoke: async () => {}, writeOut: () => {}, writeErr: () => {} });
}
