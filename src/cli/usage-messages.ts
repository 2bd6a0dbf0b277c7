// Commander's own wording ("command-argument value 'tst' is invalid for argument
// 'mode'. Allowed choices are test, live.") rewritten in svc's style: what is wrong in
// the user's terms, and the command whose --help explains it.
import { UsageError } from '../errors.js';

const quoted = (text: string) => JSON.stringify(text);
const listOf = (choices: string) => choices.split(', ').join(', ');
/** `--to <+E164>` → `--to`. */
const flagName = (spec: string) => spec.replace(/\s*[<[].*$/, '');

/** The UsageError (exit 2) for a commander failure; `message` is commander's, `error: ` and all. */
export function usageErrorFor(code: string, commanderMessage: string, command: string): UsageError {
  const text = commanderMessage.replace(/^error:\s*/, '').trim();
  const [first = '', ...more] = text.split('\n');
  const suggestion = more.join(' ').match(/\(Did you mean (.+)\?\)/)?.[1];
  const help = `run \`${command} --help\` for its arguments and flags`;
  let m: RegExpMatchArray | null;
  switch (code) {
    case 'commander.invalidArgument':
      if ((m = first.match(/^command-argument value '(.*)' is invalid for argument '(.*)'\. Allowed choices are (.*)\.$/)))
        return new UsageError(`${quoted(m[1]!)} is not a valid ${m[2]}: choose ${listOf(m[3]!).replace(/, ([^,]*)$/, ' or $1')}`, help);
      if ((m = first.match(/^option '(.*)' argument '(.*)' is invalid\. Allowed choices are (.*)\.$/)))
        return new UsageError(`${flagName(m[1]!)} must be one of ${listOf(m[3]!)}, not ${quoted(m[2]!)}`, help);
      break;
    case 'commander.unknownOption':
      if ((m = first.match(/^unknown option '(.*)'$/)))
        return new UsageError(`${command} has no flag ${m[1]}`, suggestion ? `did you mean ${suggestion}? (${help})` : help);
      break;
    case 'commander.unknownCommand':
      if ((m = first.match(/^unknown command '(.*)'$/)))
        return new UsageError(
          `there is no command ${quoted(m[1]!)}${command === 'svc' ? '' : ` in ${command}`}`,
          suggestion ? `did you mean ${command} ${suggestion}?` : `run \`${command} --help\` for the commands`,
        );
      break;
    case 'commander.missingArgument':
      if ((m = first.match(/^missing required argument '(.*)'$/))) return new UsageError(`${command} needs its ${m[1]!.toUpperCase()} argument`, help);
      break;
    case 'commander.optionMissingArgument':
      if ((m = first.match(/^option '(.*)' argument missing$/))) return new UsageError(`${flagName(m[1]!)} needs a value (${m[1]})`, help);
      break;
    case 'commander.missingMandatoryOptionValue':
      if ((m = first.match(/^required option '(.*)' not specified$/))) return new UsageError(`${command} needs ${m[1]}`, help);
      break;
    case 'commander.excessArguments':
      if ((m = first.match(/^too many arguments(?: for '.*')?\. Expected (\d+) arguments? but got (\d+)\.$/)))
        return new UsageError(`too many arguments: ${command} takes ${m[1]}, got ${m[2]}`, `quote an argument that has spaces; ${help}`);
      break;
    case 'commander.conflictingOption':
      if ((m = first.match(/^option '(.*)' cannot be used with option '(.*)'$/)))
        return new UsageError(`${flagName(m[1]!)} and ${flagName(m[2]!)} cannot be used together`);
      break;
  }
  return new UsageError(first || 'invalid command line', help);
}
