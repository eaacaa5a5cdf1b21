import { isSameProcess } from '@paneflow/proc';
import { join } from 'node:path';
import { LockFile, type LockHolder } from './lock';

/** `<home>/<name>/owner.lock`, held by the running daemon of its kind (REFERENCE.md §1.1). */
export function ownerLockPath(home: string, name: 'host' | 'serve'): string {
  return join(home, name, 'owner.lock');
}

/** The daemon of its kind that runs for the home, by its lock's pid and start time; null when none does. */
export function runningOwner(home: string, name: 'host' | 'serve'): LockHolder | null {
  const holder = new LockFile(ownerLockPath(home, name)).holder();
  return holder && isSameProcess(holder.pid, holder.started_at) ? holder : null;
}

/** Sends `signal` while the pid is still that process: a recycled pid is never signalled. */
function signal(holder: LockHolder, name: NodeJS.Signals): void {
  if (!isSameProcess(holder.pid, holder.started_at)) return;
  try {
    process.kill(holder.pid, name);
  } catch {
    // gone in between
  }
}

async function goneWithin(holder: LockHolder, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (isSameProcess(holder.pid, holder.started_at)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/**
 * Ends a daemon by signal, whatever its socket says: SIGTERM, with SIGCONT so that a stopped one
 * handles it, and with `kill`, SIGKILL once `graceMs` has passed. True once it is gone.
 */
export async function endProcess(holder: LockHolder, graceMs: number, options: { kill: boolean }): Promise<boolean> {
  signal(holder, 'SIGTERM');
  signal(holder, 'SIGCONT');
  if (await goneWithin(holder, graceMs)) return true;
  if (!options.kill) return false;
  signal(holder, 'SIGKILL');
  return goneWithin(holder, graceMs);
}
