import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Writes a file so that a reader, or a crash at any moment, sees the old file or the new one, never
 * a part: temp file in the same directory, fsync, rename (REFERENCE.md §1.1).
 */
export function writeTextAtomic(path: string, text: string, mode = 0o600): void {
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
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
}

export function writeJsonAtomic(path: string, value: unknown, mode = 0o600): void {
  writeTextAtomic(path, JSON.stringify(value, null, 2) + '\n', mode);
}

/** The parsed file, or undefined when it does not exist. */
export function readJson<T = unknown>(path: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return JSON.parse(text) as T;
}
