import { execFileSync } from 'node:child_process';
import type { ManagedWorktree } from '@paneflow/protocol';

/**
 * A managed worktree's teardown when its pane closes (REFERENCE.md §5.4): with `auto`, a clean
 * worktree (no change, no untracked file) that no live session works in is removed with
 * `git worktree remove`; the branch is kept. A dirty one, or `keep`, stays. Returns what was done.
 */
export function teardownWorktree(worktree: ManagedWorktree, inUse: boolean): 'removed' | 'kept' {
  if (worktree.teardown !== 'auto' || inUse) return 'kept';
  try {
    const status = execFileSync('git', ['-C', worktree.path, 'status', '--porcelain'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    if (status.trim() !== '') return 'kept';
    execFileSync('git', ['-C', worktree.repo_root, 'worktree', 'remove', worktree.path], { stdio: 'ignore' });
    return 'removed';
  } catch {
    return 'kept';
  }
}
