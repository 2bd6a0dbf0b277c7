// The shape every shell's completion script is written from (generate.ts builds it,
// powershell.ts reads it): its own module, so the two do not import each other.

export interface OptionSpec {
  long?: string;
  short?: string;
  valued: boolean;
  choices?: string[];
  file: boolean;
  description: string;
}

export interface Node {
  /** Words after `svc`, space-joined ('' for the root). */
  path: string;
  subcommands: Array<{ name: string; description: string }>;
  options: OptionSpec[];
  argChoices?: string[];
  fileArg: boolean;
}

export interface Tree {
  nodes: Node[];
  globals: OptionSpec[];
  /** Every option that takes a value, anywhere: the path walk skips the word after them. */
  valued: string[];
}
