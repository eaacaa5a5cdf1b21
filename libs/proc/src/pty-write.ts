import { writeSync } from 'node:fs';
import type { IPty } from 'node-pty';

/** node-pty's write queue and the master's descriptor, both kept private. */
interface PtyWriteInternals {
  _fd: number;
  _writeStream?: { _writeQueue: unknown[] };
}

/**
 * Writes to a PTY now when no earlier write still waits. node-pty queues every write as an
 * `fs.write` on libuv's thread pool, so a keystroke crosses to a pool thread and back, and waits
 * behind whatever else the pool does (the host deflates its scrollback there): the echo of a key
 * came late by that much. The master is non-blocking, so a write the kernel cannot take whole
 * returns what it took, and the rest goes through node-pty's queue, in order; so does anything
 * written while that queue holds something.
 */
export function writeNow(terminal: IPty, data: string | Buffer): void {
  const { _fd: fd, _writeStream: stream } = terminal as unknown as PtyWriteInternals;
  if (stream === undefined || stream._writeQueue.length > 0) return terminal.write(data);
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  let written = 0;
  try {
    written = writeSync(fd, bytes);
  } catch {
    // EAGAIN: the kernel's buffer is full; anything else (EIO, the program gone) node-pty reports.
  }
  if (written < bytes.length) terminal.write(bytes.subarray(written));
}
