// In the test page, `window.paneflow` is the same API the preload gives (api.ts), carried by a
// page binding to an InstanceClient in the test process instead of Electron's IPC.
import { createApi } from '../src/api';

type Listener = (...args: unknown[]) => void;
const listeners = new Map<string, Listener[]>();
const page = window as unknown as {
  paneflow: unknown;
  __paneflowInvoke(channel: string, args: unknown[]): Promise<unknown>;
  __paneflowDeliver(channel: string, args: unknown[]): void;
  __paneflowWakeups: number;
  __paneflowIntervals: Map<number, number>;
};

page.__paneflowDeliver = (channel, args) => {
  for (const listener of listeners.get(channel) ?? []) listener(...args);
};
page.paneflow = createApi(
  (channel, ...args) => page.__paneflowInvoke(channel, args),
  (channel, listener) => void listeners.set(channel, [...(listeners.get(channel) ?? []), listener]),
);

// Every timer and animation-frame callback the page runs is one wakeup (bench/desktop.mjs).
page.__paneflowWakeups = 0;
const counted = <F extends (...args: never[]) => unknown>(callback: F) =>
  ((...args: never[]) => {
    page.__paneflowWakeups++;
    return callback(...args);
  }) as F;
// And every interval timer that runs, with its period (the desktop tests count the spinner clock's).
page.__paneflowIntervals = new Map();
const { setTimeout: realTimeout, setInterval: realInterval, clearInterval: realClearInterval, requestAnimationFrame: realFrame } = window;
window.setTimeout = ((callback: TimerHandler, ms?: number, ...rest: unknown[]) =>
  realTimeout(typeof callback === 'function' ? counted(callback as () => void) : callback, ms, ...rest)) as typeof window.setTimeout;
window.setInterval = ((callback: TimerHandler, ms?: number, ...rest: unknown[]) => {
  const id = realInterval(typeof callback === 'function' ? counted(callback as () => void) : callback, ms, ...rest);
  page.__paneflowIntervals.set(id, ms ?? 0);
  return id;
}) as typeof window.setInterval;
window.clearInterval = ((id?: number) => {
  if (id !== undefined) page.__paneflowIntervals.delete(id);
  realClearInterval(id);
}) as typeof window.clearInterval;
window.requestAnimationFrame = (callback) => realFrame(counted(callback));
