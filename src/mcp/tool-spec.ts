// What svc mcp knows of a session and of each tool (tools.ts makes them from the command tree):
// types alone, so the modules that describe, check and run a tool need not import the generator.
import type { ArgSpec, FlagSpec, Leaf, McpUse } from '../kit/define.js';

/** What a session allows (svc mcp's flags). */
export interface Session {
  mode: 'test' | 'live';
  allowWrite: boolean;
  /** Live sessions only: the cap, in units of 1/10,000 cent; 0 refuses everything billable. */
  maxSpend?: number;
}

/** One property of a tool's input: a flag or a positional argument of the command. */
export type Param = { property: string; from: 'flag'; key: string; spec: FlagSpec } | { property: string; from: 'arg'; index: number; spec: ArgSpec };

export interface ToolSpec {
  name: string;
  /** The command's words: `['calls', 'lines', 'list']`. */
  path: string[];
  leaf: Leaf;
  use: McpUse;
  /** Billed in this session's mode (a live session's billable command). */
  billed: boolean;
  /** Changes nothing in this session (its annotations' readOnlyHint). */
  readOnly: boolean;
  description: string;
  params: Param[];
}
