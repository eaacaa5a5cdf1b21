import { scaled } from './time';

/** Polls `probe` until it gives a value (not null, undefined or false); fails after `timeoutMs`, naming `what`. */
export async function until<T>(probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, what: string, timeoutMs = scaled(20_000)): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
