import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/**
 * Every file Paneflow reads (the config, the home's files, the host's manifests, an agent's
 * transcript) is read here, so that no file put in its place can wedge a process: it is opened
 * without blocking (a FIFO would hold `open` until a writer came), then `fstat`ed, and anything
 * but a regular file (`/dev/zero` never ends) or a file over its cap (a 3 GB sparse file) is
 * refused unread, with a `RefusedFileError`.
 */
export interface ReadOptions {
  /** A larger file is refused unread (`readRegularFileEnd`: at most this much of its end is read). */
  maxBytes: number;
  /**
   * Whether the path itself may be a symbolic link (to a regular file): yes for a file the user
   * names (the config, a transcript); no, the default, for the home's own files, which Paneflow
   * writes by rename and never links.
   */
  follow?: boolean;
}

/** A file that is not a regular file, or is over its cap: not read. */
export class RefusedFileError extends Error {
  constructor(
    readonly path: string,
    readonly why: string,
  ) {
    super(`${path} refused: ${why}`);
    this.name = 'RefusedFileError';
  }
}

/** The whole file, off the event loop. */
export async function readRegularFile(path: string, options: ReadOptions): Promise<Buffer> {
  const file = await openAsync(path, options);
  try {
    const info = await file.stat();
    checkRegular(path, info, options.maxBytes);
    return await readAsync(file, 0, info.size);
  } finally {
    await file.close();
  }
}

/**
 * The whole file, on the caller's thread: for a reader that runs before its process serves
 * anyone (a daemon's start-up) or reads one small file of the home. Bounded all the same.
 */
export function readRegularFileSync(path: string, options: ReadOptions): Buffer {
  let fd: number;
  try {
    fd = openSync(path, openFlags(options));
  } catch (error) {
    throw refusedOpen(path, error as NodeJS.ErrnoException, options);
  }
  try {
    const info = fstatSync(fd);
    checkRegular(path, info, options.maxBytes);
    const buffer = Buffer.alloc(info.size);
    let filled = 0;
    while (filled < buffer.length) {
      const n = readSync(fd, buffer, filled, buffer.length - filled, filled);
      if (n === 0) break; // shrunk since fstat
      filled += n;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * The end of a regular file that only grows (an agent's transcript), off the event loop: from
 * `from` when that is within the file, never more than its last `maxBytes`; `start` is where the
 * bytes begin. A file of any size is taken.
 */
export async function readRegularFileEnd(path: string, options: ReadOptions & { from: number | null }): Promise<{ bytes: Buffer; start: number }> {
  const file = await openAsync(path, options);
  try {
    const info = await file.stat();
    checkRegular(path, info, null);
    const from = options.from !== null && options.from <= info.size ? options.from : 0;
    const start = Math.max(from, info.size - options.maxBytes);
    return { bytes: await readAsync(file, start, info.size - start), start };
  } finally {
    await file.close();
  }
}

/** Never blocking; `O_NOCTTY`: a terminal put in its place does not become the process's. */
function openFlags(options: ReadOptions): number {
  return constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY | (options.follow ? 0 : constants.O_NOFOLLOW);
}

async function openAsync(path: string, options: ReadOptions): Promise<FileHandle> {
  try {
    return await open(path, openFlags(options));
  } catch (error) {
    throw refusedOpen(path, error as NodeJS.ErrnoException, options);
  }
}

/** What `open` refused for the file's kind says so; any other error (ENOENT, EACCES) is passed on. */
function refusedOpen(path: string, error: NodeJS.ErrnoException, options: ReadOptions): Error {
  if (error.code === 'ELOOP' && !options.follow) return new RefusedFileError(path, 'a symbolic link, not a regular file');
  if (error.code === 'ENXIO') return new RefusedFileError(path, 'a socket, not a regular file');
  return error;
}

function checkRegular(path: string, info: Stats, maxBytes: number | null): void {
  if (!info.isFile()) throw new RefusedFileError(path, `${kindOf(info)}, not a regular file`);
  if (maxBytes !== null && info.size > maxBytes) throw new RefusedFileError(path, `${info.size} bytes, over the ${maxBytes} a file of its kind may have`);
}

function kindOf(info: Stats): string {
  if (info.isDirectory()) return 'a directory';
  if (info.isFIFO()) return 'a FIFO';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isSocket()) return 'a socket';
  return 'something else';
}

async function readAsync(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await file.read(buffer, filled, length - filled, position + filled);
    if (bytesRead === 0) break; // shrunk since fstat
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}
