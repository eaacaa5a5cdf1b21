/** A pending callback of a `Clock`: opaque to its callers. */
export interface Timer {
  /** Lets the process exit while it waits (a no-op on a test's clock). */
  unref(): unknown;
}

/**
 * Time as serve's decisions see it: stamps, the detection window, stalls, the notice rate limit,
 * the supervisor's delays and the submit's confirmation. The system clock runs serve; an
 * in-process test passes one it advances itself (apps/serve/test/inproc), so each of those
 * decisions is checked to the millisecond without waiting for it.
 */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): Timer;
  clearTimeout(timer: Timer | null | undefined): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
};

/** Resolves after `ms` on `clock`. */
export const sleep = (clock: Clock, ms: number): Promise<void> => new Promise((resolve) => clock.setTimeout(resolve, ms));
