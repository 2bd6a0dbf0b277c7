// `svc mcp` is a server an assistant keeps open for hours, answering small requests one at a
// time. V8 grows its young generation (the nursery) while a process allocates quickly, which
// pays off for batch work; here it only turns into tens of MiB of resident memory held for the
// whole session, while the heap that survives a full collection stays flat (no retention). The
// nursery is kept at its starting size instead: scavenges come more often and each is smaller,
// and a tool call's overhead stays within its budget (README, Performance).
import { setFlagsFromString } from 'node:v8';

/** Called once when the session starts; V8 reads the factor each time it would grow the nursery. */
export function keepNurseryAtItsStartingSize(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}
