// The address the emulator is bound to: kept in its state once it listens, read by the
// guards (guards.ts). Its own module so that state.ts needs nothing of the guards.
export interface BoundAddress {
  /** http://HOST:PORT of the emulator itself: the base of its RFC 8414 metadata. */
  url: string;
  port: number;
  /** Host names (lower case, IPv6 without brackets) that name this emulator. */
  hostnames: Set<string>;
  /** With --https: the local CA's certificate file, what clients trust through NODE_EXTRA_CA_CERTS. */
  caFile?: string;
}
