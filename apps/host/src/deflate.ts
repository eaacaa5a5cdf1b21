import { deflateRaw } from 'node:zlib';

/**
 * Deflates `data` (raw, fast level 1) on libuv's thread pool, off the thread that parses, and
 * gives the result to `done` in a buffer of its own size (zlib's may sit in a larger one); null
 * when it failed, and the caller keeps `data` as it is: still exact, only larger.
 */
export function deflateInBackground(data: Uint8Array, done: (deflated: Buffer | null) => void): void {
  deflateRaw(data, { level: 1 }, (error, deflated) => {
    if (error) return done(null);
    const exact = Buffer.allocUnsafeSlow(deflated.length);
    deflated.copy(exact);
    done(exact);
  });
}
