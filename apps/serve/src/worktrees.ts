import { execFileSync } from 'node:child_process';
import type { ManagedWorktree, WorktreeTeardown } from '@paneflow/protocol';
import type { ServeContext } from './context';
import type { PaneRecord } from './model';

/** What teardown did with one worktree: removed, or kept and why. */
export interface TeardownOutcome {
  removed: boolean;
  reason: string | null;
}

const git = (cwd: string, args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * Why a worktree holds work that removing it could lose, or null: uncommitted changes or untracked
 * files, or commits of its HEAD that no other branch and no remote-tracking branch holds (unpushed,
 * unmerged). The branch itself is never deleted, but such a worktree is kept all the same.
 */
export function unsavedWork(worktree: ManagedWorktree): string | null {
  if (git(worktree.path, ['status', '--porcelain']).trim() !== '') return 'uncommitted changes';
  // `--exclude` takes the branch's own name as `--branches` sees it (without refs/heads/).
  const own = git(worktree.path, ['rev-list', '--count', 'HEAD', '--not', `--exclude=${worktree.branch}`, '--branches', '--remotes']).trim();
  if (own !== '0') return `${own} commit(s) on ${worktree.branch} that no other branch or remote holds (unpushed or unmerged)`;
  return null;
}

/**
 * A managed worktree's teardown when its pane closes (REFERENCE.md §5.4), the one rule for every
 * way a pane ends: with `auto`, a worktree that no live session works in is removed with
 * `git worktree remove` unless it holds unsaved work (`unsavedWork`), which `force` overrides;
 * the branch is kept. `keep`, a live session inside (`inUse` says why it may be), or a failing
 * git keeps it.
 */
export function teardownWorktree(worktree: ManagedWorktree, inUse: string | null, force = false): TeardownOutcome {
  if (worktree.teardown !== 'auto') return { removed: false, reason: 'worktree_teardown is keep' };
  if (inUse) return { removed: false, reason: inUse };
  try {
    if (!force) {
      const unsaved = unsavedWork(worktree);
      if (unsaved) return { removed: false, reason: unsaved };
    }
    git(worktree.repo_root, ['worktree', 'remove', ...(force ? ['--force'] : []), worktree.path]);
    return { removed: true, reason: null };
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    return { removed: false, reason: `git failed: ${stderr || (error as Error).message}` };
  }
}

/**
 * The teardown of the managed worktrees of panes that have left the model, whichever way they left
 * (closed, or removed at the host): each by `teardownWorktree`, kept while a live session of another
 * pane works in it, or while the host does not answer (its sessions may still).
 */
export function tearDownWorktrees(ctx: ServeContext, panes: PaneRecord[], hostReachable: boolean, force = false): WorktreeTeardown[] {
  const outcomes: WorktreeTeardown[] = [];
  for (const pane of panes) {
    const worktree = pane.managed_worktree;
    if (!worktree) continue;
    const inUse = hostReachable ? worktreeInUse(ctx, worktree.path) : 'a live session may still work in it: the host does not answer';
    const outcome = teardownWorktree(worktree, inUse, force);
    ctx.log(`worktree ${worktree.path}: ${outcome.removed ? 'removed' : `kept: ${outcome.reason}`}`);
    outcomes.push({ surface_id: pane.surface_id, path: worktree.path, branch: worktree.branch, ...outcome });
  }
  return outcomes;
}

function worktreeInUse(ctx: ServeContext, path: string): string | null {
  const used = [...ctx.model.allPanes()].some((p) => {
    const view = ctx.views.get(p.session);
    const cwd = view?.foregroundCwd ?? p.cwd;
    return view?.lifecycle === 'live' && (cwd === path || cwd.startsWith(path + '/'));
  });
  return used ? 'a live session works in it' : null;
}
