import { closeSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { isSameProcess, processStartTime, readRegularFileSync } from '@paneflow/proc';

/**
 * A lock file is created, then its holder written: one found empty (or cut short) younger than
 * this is being written by its holder, not stale. Older, its writer died between the two.
 */
export const LOCK_WRITE_GRACE_MS = 2000;
/** The holder of a lock that is held but cannot be named yet. */
const UNNAMED: LockHolder = { pid: 0, started_at: 0 };

export interface LockHolder {
  pid: number;
  started_at: number;
}

/**
 * A lock file naming its holder by (pid, kernel start time). Created exclusively; a file whose
 * holder is gone (or whose pid now belongs to another process) is stale and taken over, and so is
 * one that names nobody once it is older than LOCK_WRITE_GRACE_MS.
 */
export class LockFile {
  private held = false;

  constructor(readonly path: string) {}

  /** Takes the lock, or returns the live process that holds it. */
  tryAcquire(): LockHolder | null {
    const me: LockHolder = { pid: process.pid, started_at: processStartTime(process.pid)! };
    for (let attempt = 0; attempt < 3; attempt++) {
      let fd: number;
      try {
        fd = openSync(this.path, 'wx', 0o600);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const holder = this.holder();
        if (holder && holder.pid !== process.pid && isSameProcess(holder.pid, holder.started_at)) return holder;
        if (!holder && this.ageMs() < LOCK_WRITE_GRACE_MS) return UNNAMED;
        rmSync(this.path, { force: true });
        continue;
      }
      try {
        writeSync(fd, JSON.stringify(me) + '\n');
      } catch (error) {
        // A full disk: no empty lock is left for the next taker to wait out.
        rmSync(this.path, { force: true });
        throw error;
      } finally {
        closeSync(fd);
      }
      this.held = true;
      return null;
    }
    // Lost a race for a stale lock three times: someone else is taking it.
    return this.holder() ?? UNNAMED;
  }

  /** How long ago the lock file was last written (a time in the future counts as long ago); Infinity when it is gone. */
  private ageMs(): number {
    const stat = statSync(this.path, { throwIfNoEntry: false });
    return stat ? Math.abs(Date.now() - stat.mtimeMs) : Infinity;
  }

  /** Waits until the lock is free (polling), up to `timeoutMs`. */
  async acquire(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const holder = this.tryAcquire();
      if (!holder) return;
      if (Date.now() > deadline) throw new Error(`${this.path} is held by pid ${holder.pid}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  holder(): LockHolder | null {
    try {
      const parsed = JSON.parse(readRegularFileSync(this.path, { maxBytes: 4096 }).toString('utf8'));
      return typeof parsed.pid === 'number' && typeof parsed.started_at === 'number' ? parsed : null;
    } catch {
      return null;
    }
  }

  release(): void {
    if (!this.held) return;
    this.held = false;
    const holder = this.holder();
    if (holder?.pid === process.pid) rmSync(this.path, { force: true });
  }
}
