// Every validator refuses a bad value the same way: a usage error (exit 2) whose message,
// written where the value is refused, says what was wrong and what a valid value looks like.
import { UsageError } from '../errors.js';

export function invalid(message: string): never {
  throw new UsageError(message);
}
