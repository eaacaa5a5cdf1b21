import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { isSameProcess, processStartTime } from '@paneflow/proc';

export interface LockHolder {
  pid: number;
  started_at: number;
}

/**
 * A lock file naming its holder by (pid, kernel start time). Created exclusively; a file whose
 * holder is gone (or whose pid now belongs to another process) is stale and taken over.
 */
export class LockFile {
  private held = false;

  constructor(readonly path: string) {}

  /** Takes the lock, or returns the live process that holds it. */
  tryAcquire(): LockHolder | null {
    const me: LockHolder = { pid: process.pid, started_at: processStartTime(process.pid)! };
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const fd = openSync(this.path, 'wx', 0o600);
        writeSync(fd, JSON.stringify(me) + '\n');
        closeSync(fd);
        this.held = true;
        return null;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = this.holder();
      if (holder && holder.pid !== process.pid && isSameProcess(holder.pid, holder.started_at)) return holder;
      rmSync(this.path, { force: true });
    }
    // Lost a race for a stale lock three times: someone else is taking it.
    return this.holder() ?? { pid: 0, started_at: 0 };
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
      const parsed = JSON.parse(readFileSync(this.path, 'utf8'));
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
