// Start-up's phases, said to bench/start-phases.mjs: an event on `process` that its preload
// (bench/phase-marks.cjs) listens to and times. Nothing listens in a user's run, and an event
// with no listener costs a lookup.
export type Phase = 'manifest' | 'parsed' | 'module' | 'context';

export function phase(name: Phase): void {
  (process as NodeJS.EventEmitter).emit('svc:phase', name);
}
