/** Time as the session sees it, injectable so that timeout tests take no wall time. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t: unknown = setTimeout(fn, ms);
    // A pending request timer must not keep a finished process alive (Node's timers; a browser's is a number).
    (t as { unref?: () => void }).unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as Parameters<typeof clearTimeout>[0]),
};
