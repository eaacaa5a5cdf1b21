import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  closeSync,
  copyFileSync,
  fchmodSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { HOME_FILE_MAX_BYTES } from '@paneflow/protocol/limits';
import { readRegularFileSync } from '@paneflow/proc';

/**
 * Writes a file so that a reader, or a crash at any moment, sees the old file or the new one, never
 * a part: temp file in the same directory, fsync, rename, fsync of the directory (REFERENCE.md
 * §1.1). Once it returns, the new file survives a crash of the machine too (~0.6 ms here).
 */
export function writeTextAtomic(path: string, text: string, mode = 0o600): void {
  const dir = dirname(path);
  const temp = join(dir, `.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  const fd = openSync(temp, 'w', mode);
  try {
    fchmodSync(fd, mode); // exactly `mode`, whatever the umask
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  const dirFd = openSync(dir, 'r');
  try {
    fsyncSync(dirFd); // the rename itself
  } finally {
    closeSync(dirFd);
  }
}

export function writeJsonAtomic(path: string, value: unknown, mode = 0o600): void {
  writeTextAtomic(path, JSON.stringify(value, null, 2) + '\n', mode);
}

/**
 * `writeTextAtomic` off the event loop (every step on libuv's thread pool), for a writer that
 * must not make its process wait on the disk. Two writes of one path must not overlap: the caller
 * orders them.
 */
export async function writeTextAtomicAsync(path: string, text: string, mode = 0o600): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
  const file = await open(temp, 'w', mode);
  try {
    await file.chmod(mode);
    await file.writeFile(text);
    await file.sync();
    await file.close();
    await rename(temp, path);
  } catch (error) {
    await file.close().catch(() => undefined);
    await rm(temp, { force: true });
    throw error;
  }
  const dirHandle = await open(dir, 'r');
  try {
    await dirHandle.sync();
  } finally {
    await dirHandle.close();
  }
}

const TEMP_SUFFIX = '.tmp';

/** Removes the temp files an interrupted `writeTextAtomic` left in `dir` (its writer must be the caller). */
export function removeTempFiles(dir: string): void {
  for (const name of readdirSync(dir)) if (name.startsWith('.') && name.endsWith(TEMP_SUFFIX)) rmSync(join(dir, name), { force: true });
}

/**
 * A file of the home, parsed, or undefined when it does not exist; a file that is not a regular
 * file, or is over HOME_FILE_MAX_BYTES, is refused unread (`RefusedFileError`). Synchronous: its readers
 * run at start-up, or read one small file.
 */
export function readJson<T = unknown>(path: string): T | undefined {
  let text: string;
  try {
    text = readRegularFileSync(path, { maxBytes: HOME_FILE_MAX_BYTES }).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}

/**
 * A file of the home that is not what it should be, moved to `<path>.unreadable` (replacing an
 * earlier one) so that it is neither read again nor lost; returns the new path.
 */
export function moveAside(path: string): string {
  const aside = `${path}.unreadable`;
  renameSync(path, aside);
  return aside;
}

/** What `readCheckedJson` found: the value, no file at all, or a file that was not one (now moved aside). */
export type Checked<T> = { value: T } | { value: undefined; refused: boolean };

/**
 * A JSON file of the home that one program keeps, read and checked by `problemOf` (null: it is
 * one). A file that is not (not a regular file, over the cap, not JSON, the wrong shape) is moved
 * to `<path>.unreadable` and said once: `<path> is not <what>: <problem>; moved to …; <then>`.
 */
export function readCheckedJson<T>(path: string, problemOf: (value: unknown) => string | null, say: { what: string; then: string; log: (line: string) => void }): Checked<T> {
  let problem: string | null;
  try {
    const value = readJson(path);
    if (value === undefined) return { value: undefined, refused: false };
    problem = problemOf(value);
    if (problem === null) return { value: value as T };
  } catch (error) {
    problem = (error as Error).message;
  }
  let aside: string;
  try {
    aside = `moved to ${moveAside(path)}`;
  } catch (error) {
    aside = `not moved aside (${(error as Error).message})`;
  }
  say.log(`${path} is not ${say.what}: ${problem}; ${aside}${say.then ? `; ${say.then}` : ''}`);
  return { value: undefined, refused: true };
}

/** A log file is rotated when it reaches this size… */
export const LOG_CAP_BYTES = 1024 * 1024;
/** …into `<log>.1`, `.2`, `.3`; the oldest is dropped. */
export const LOG_GENERATIONS = 3;
/** Longer lines of a log message are cut here: a logged request value can cost no more. */
export const LOG_LINE_CHARS = 400;
/** Lines of one message beyond these (a stack trace has ~11) are counted, not written. */
export const LOG_MESSAGE_LINES = 40;

/**
 * A message as it may be logged: each line at most `LOG_LINE_CHARS` characters, then `…` and its
 * length; at most `LOG_MESSAGE_LINES` lines, then how many more there were.
 */
export function clipForLog(message: string): string {
  const lines = message.split('\n');
  const kept = lines.slice(0, LOG_MESSAGE_LINES).map((line) => {
    if (line.length <= LOG_LINE_CHARS) return line;
    // Never half a surrogate pair: it would be written as U+FFFD.
    const end = /[\uD800-\uDBFF]/.test(line[LOG_LINE_CHARS - 1]) ? LOG_LINE_CHARS - 1 : LOG_LINE_CHARS;
    return `${line.slice(0, end)}… (${line.length} chars)`;
  });
  if (lines.length > LOG_MESSAGE_LINES) kept.push(`… (${lines.length - LOG_MESSAGE_LINES} more lines)`);
  return kept.join('\n');
}

/** Renames, unless `from` is gone (a generation not yet made, or another writer was first). */
function renameIfThere(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function shiftGenerations(path: string): void {
  for (let n = LOG_GENERATIONS - 1; n >= 1; n--) renameIfThere(`${path}.${n}`, `${path}.${n + 1}`);
}

/**
 * Rotates the log at `path` once it has reached `LOG_CAP_BYTES`. With `fd`, the file held open
 * for appending (a daemon's stderr, which it cannot reopen): the log is copied to `.1` and `fd`
 * truncated, so the holder's next writes start the new log; `fd` must be that very file, or
 * nothing is done. Without `fd` (nobody holds the file open) the log is renamed to `.1`.
 * Failures (a full or read-only disk) are thrown.
 */
export function rotateLogIfFull(path: string, fd?: number): boolean {
  if (fd === undefined) {
    const size = statSync(path, { throwIfNoEntry: false })?.size ?? 0;
    if (size < LOG_CAP_BYTES) return false;
    shiftGenerations(path);
    renameIfThere(path, `${path}.1`);
    return true;
  }
  const held = fstatSync(fd);
  if (!held.isFile() || held.size < LOG_CAP_BYTES) return false;
  const named = statSync(path, { throwIfNoEntry: false });
  if (!named || named.ino !== held.ino || named.dev !== held.dev) return false;
  shiftGenerations(path);
  copyFileSync(path, `${path}.1`);
  ftruncateSync(fd, 0);
  return true;
}

/**
 * Appends one message (clipped) to a log that no process holds open, rotating it first when it
 * is full. Two writers rotating at once may drop a generation, never a line of the current log.
 */
export function appendLog(path: string, message: string): void {
  rotateLogIfFull(path);
  appendFileSync(path, clipForLog(message) + '\n', { mode: 0o600 });
}
