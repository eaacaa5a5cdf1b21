import type { Clock, Timer } from '../../src/clock';

/** Where a test's clock begins: a fixed instant, so every stamp a test sees is known exactly. */
export const CLOCK_START_MS = Date.UTC(2026, 0, 1);

class FakeTimer implements Timer {
  constructor(
    readonly at: number,
    readonly order: number,
    readonly callback: () => void,
  ) {}

  unref(): this {
    return this;
  }
}

/** Lets what the last step set in motion run: promise chains, the in-process host's answers, setImmediate. */
export async function settle(): Promise<void> {
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * serve's clock in an in-process test: time stands still until the test moves it with `advance`,
 * which runs each timer that comes due, at its own time and in order, letting what it sets in
 * motion (a host request, the next timer) happen before the next one.
 */
export class FakeClock implements Clock {
  private current: number;
  private readonly timers = new Set<FakeTimer>();
  private order = 0;

  constructor(startMs = CLOCK_START_MS) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(callback: () => void, ms: number): Timer {
    const timer = new FakeTimer(this.current + Math.max(0, ms), this.order++, callback);
    this.timers.add(timer);
    return timer;
  }

  clearTimeout(timer: Timer | null | undefined): void {
    if (timer instanceof FakeTimer) this.timers.delete(timer);
  }

  /** Moves time on by `ms`, running every timer due by then. */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`a clock only moves forward (asked ${ms} ms)`);
    const end = this.current + ms;
    for (;;) {
      await settle();
      const next = [...this.timers].filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.order - b.order)[0];
      if (!next) break;
      this.timers.delete(next);
      this.current = next.at;
      next.callback();
    }
    this.current = end;
    await settle();
  }
}
