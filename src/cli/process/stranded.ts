// A command's promise, watched for the event loop running dry under it (src/cli/process.ts).

/**
 * `work`, watched: should the event loop run dry while it is still pending (a socket that
 * stopped reading, a promise nobody settles), Node would end the process with exit 0 and
 * no output, which a script takes for success; `onStranded` says so instead.
 */
export async function whileAwaited<T>(work: Promise<T>, onStranded: () => void): Promise<T> {
  process.once('beforeExit', onStranded);
  try {
    return await work;
  } finally {
    process.off('beforeExit', onStranded);
  }
}
