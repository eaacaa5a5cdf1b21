import type { EventType } from '@paneflow/protocol/events';
import { CliError } from './errors';
import { subscribe } from './instance';

/** Checks run at least this often, whatever the events say (REFERENCE.md §4.6). */
export const RECHECK_MS = 250;

/**
 * Runs `check` at once, again on every event of these panes, and at least every `floorMs`, until
 * it gives a value or `timeoutMs` has passed (null). Checks never overlap: events that come
 * during one make exactly one more. Losing serve ends it with exit 1. The events are what make
 * `wait`, `flow run` and the headless table prompt; the floor is what makes them safe.
 */
export async function waitUntil<T>(
  events: { surfaces?: number[]; types: EventType[]; machines?: boolean },
  check: () => Promise<T | null>,
  { timeoutMs, floorMs = RECHECK_MS }: { timeoutMs: number; floorMs?: number },
): Promise<T | null> {
  let wake: () => void = () => undefined;
  let lost = false;
  const stream = await subscribe(events, () => wake());
  stream.onClose(() => {
    lost = true;
    wake();
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (lost) throw new CliError('lost the connection to serve', 1);
      const value = await check();
      if (value !== null) return value;
      const left = deadline - Date.now();
      if (left <= 0) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(floorMs, left));
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  } finally {
    stream.destroy();
  }
}
