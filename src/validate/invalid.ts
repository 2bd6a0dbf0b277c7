// Every validator reports a bad value the same way: a message that says what was
// wrong and what a valid value looks like. The command layer turns it into a
// usage error (exit 2); the validators themselves stay free of CLI concerns.
export class InvalidValueError extends Error {
  override readonly name = 'InvalidValueError';
}

export function invalid(message: string): never {
  throw new InvalidValueError(message);
}
