// The emulator's clock is injectable so that code expiry (10 min) and token expiry
// (1 h) are tested without waiting; POST /_emulator/clock moves it forward.

export interface EmulatorClock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export interface AdvancingClock extends EmulatorClock {
  advance(ms: number): void;
  /** How far the clock has been moved ahead of its base (kept in a state file so time never runs back). */
  offsetMs(): number;
  /** Sets the offset when a state file is loaded; it only ever grows. */
  restoreOffset(ms: number): void;
  /** Called after every advance (streams re-arm their expiry timers); answers an unsubscribe. */
  onAdvance(listener: () => void): () => void;
}

/** Wraps a clock (default: real time) with an offset that only ever grows. */
export function advancingClock(base: EmulatorClock = { now: () => Date.now() }): AdvancingClock {
  let offsetMs = 0;
  const listeners = new Set<() => void>();
  return {
    now: () => base.now() + offsetMs,
    advance(ms: number) {
      if (ms > 0) offsetMs += ms;
      for (const listener of [...listeners]) listener();
    },
    offsetMs: () => offsetMs,
    restoreOffset(ms: number) {
      if (ms > offsetMs) offsetMs = ms;
    },
    onAdvance(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
