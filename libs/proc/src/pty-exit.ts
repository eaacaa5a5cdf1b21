import { readSync } from 'node:fs';
import type { IPty } from 'node-pty';

/** node-pty's own read stream of the PTY and the master's descriptor, both kept private. */
interface PtyInternals {
  _fd: number;
  _socket: {
    push(chunk: Buffer | null): boolean;
    read(): unknown;
    destroy(error?: Error): unknown;
    readonly destroyed: boolean;
  };
}

/** A program that leaves a child writing to the PTY is not read for ever at its exit. */
const MAX_READ_AT_CLOSE = 1024 * 1024;
const READ_SIZE = 64 * 1024;

/**
 * Makes a PTY's output reach the reader to its last byte when the program exits. Two ends of the
 * stream would throw away what the kernel still holds:
 * - libuv (Node 20's) ends the stream when the master reports a hang-up after a short read, but a
 *   Linux PTY hands over at most 4 KiB a read: a reader more than that behind when the program
 *   exited lost the rest (libuv issue 4992).
 * - node-pty destroys the stream 200 ms after the child exits unless it ended by itself. A stream
 *   paused because its reader fell behind ends never, and the destroy dropped what it held.
 * Both now first read the master to its end (EIO) or until it is empty (a child left holding the
 * PTY) and pass that on through the stream, in order. A destroy with an error (EIO from the
 * stream's own read) has nothing left to read.
 */
export function keepOutputAtExit(terminal: IPty): void {
  const { _fd: fd, _socket: stream } = terminal as unknown as PtyInternals;
  const push = stream.push.bind(stream);
  const destroy = stream.destroy.bind(stream);
  let ended = false;
  const readToEnd = () => {
    const buffer = Buffer.allocUnsafe(READ_SIZE);
    for (let total = 0; total < MAX_READ_AT_CLOSE; ) {
      let count: number;
      try {
        // Never blocks: node-pty made the master non-blocking when it opened it.
        count = readSync(fd, buffer);
      } catch {
        return; // EIO: every byte is read and the other side is gone; EAGAIN: nothing more for now
      }
      if (count === 0) return;
      push(Buffer.from(buffer.subarray(0, count)));
      total += count;
    }
  };
  stream.push = (chunk) => {
    if (chunk === null && !ended) {
      readToEnd();
      ended = true;
    }
    return push(chunk);
  };
  stream.destroy = (error) => {
    if (!error && !stream.destroyed) {
      if (!ended) {
        readToEnd();
        ended = true;
      }
      // A paused stream hands over what it holds, ended or not.
      while (stream.read() !== null);
    }
    return destroy(error);
  };
}
