import { spawnSync } from 'node:child_process';
import { chmodSync, statSync } from 'node:fs';

/**
 * Makes a directory refuse new entries, as a read-only or full home does, and returns the undo
 * (call it before removing the directory). `chmod` stops any user but root; for root (as on these
 * CI machines) the directory is made immutable with `chattr +i` (ext4, xfs, btrfs, tmpfs), which
 * stops root too. Files already open for appending (a daemon's log) are still written.
 */
export function refuseWrites(dir: string): () => void {
  if (process.getuid?.() !== 0) {
    const mode = statSync(dir).mode & 0o7777;
    chmodSync(dir, 0o500);
    return () => chmodSync(dir, mode);
  }
  const chattr = (flag: string) => {
    const result = spawnSync('chattr', [flag, dir], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`chattr ${flag} ${dir} failed (root needs it to make a directory unwritable): ${result.error?.message ?? result.stderr}`);
  };
  chattr('+i');
  return () => chattr('-i');
}
