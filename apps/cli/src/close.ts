// `close`: a pane, or a workspace, ended by serve's one close and teardown rule (REFERENCE.md §1.4, §5.4).
import { asksToClose } from '@paneflow/protocol/errors';
import type { WorktreeTeardown } from '@paneflow/protocol/public-protocol';
import { displayText } from '@paneflow/view';
import { CliError, UsageError } from './errors';
import { request } from './instance';
import { printJson } from './output';
import { resolveOne, targetOf, type Where } from './select';

export interface CloseOptions {
  workspace: boolean;
  force: boolean;
  forceWorktree: boolean;
  where: Where;
}

/** A y/N question on the terminal; anything but y or yes is no. */
async function confirm(question: string): Promise<boolean> {
  // Loaded only to ask: the panes' bundle starts every read-only verb too (README: start-up budget).
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.question(question, resolve);
      rl.once('close', () => resolve(''));
    });
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/**
 * Closes with serve refusing what needs a person's yes (`unless_busy`); on a terminal the person
 * is asked and a yes closes anyway, elsewhere the refusal is exit 1 unless --force.
 */
async function closing<T>(call: (unlessBusy: boolean) => Promise<T>, force: boolean): Promise<T> {
  if (force) return call(false);
  try {
    return await call(true);
  } catch (error) {
    if (!(error instanceof CliError && asksToClose(error.reason))) throw error;
    if (!process.stdin.isTTY) throw new CliError(`${error.message} (use --force to close anyway)`, 1);
    if (!(await confirm(`${displayText(error.message)}\nclose anyway? [y/N] `))) throw new CliError('not closed', 1);
    return call(false);
  }
}

/** One stderr line per kept worktree: where, and why. */
function reportKept(worktrees: WorktreeTeardown[]): void {
  for (const w of worktrees) {
    if (!w.removed) process.stderr.write(displayText(`paneflow: kept worktree ${w.path} (${w.branch}): ${w.reason}${w.reason?.startsWith('worktree_teardown') || w.reason?.startsWith('a live') ? '' : '; --force-worktree removes it'}`) + '\n');
  }
}

/** The workspace `name` (a name or an index) means, by id: it stays the same while the person answers. */
async function workspaceId(name: string | undefined): Promise<string> {
  const { workspaces } = await request('workspace.list', {});
  if (name === undefined) {
    const own = process.env.PANEFLOW_WORKSPACE_ID;
    const found = own ? workspaces.find((w) => w.id === own) : workspaces.find((w) => w.active);
    if (!found) throw new CliError(own ? `the workspace ${own} of this pane is gone` : 'no workspace to close', 3);
    return found.id;
  }
  const found = /^\d+$/.test(name) ? workspaces.find((w) => w.index === Number(name)) : workspaces.find((w) => w.name === name);
  if (!found) throw new CliError(`no workspace '${name}'`, 3);
  return found.id;
}

export async function close(target: string | undefined, options: CloseOptions): Promise<number> {
  const extra = options.forceWorktree ? { force_worktree: true } : {};
  if (options.workspace) {
    if (options.where.machine) throw new UsageError('--machine goes with a pane, not --workspace: close closes workspaces of this machine');
    const workspace_id = await workspaceId(target);
    const result = await closing((unlessBusy) => request('workspace.close', { workspace_id, ...extra, ...(unlessBusy ? { unless_busy: true } : {}) }), options.force);
    printJson(result);
    reportKept(result.worktrees);
    return 0;
  }
  if (target === undefined) throw new CliError("'close' needs <target> (or --workspace)\nusage: paneflow close <target> [--force] [--force-worktree] | paneflow close --workspace [<name|index>]", 2);
  const pane = await resolveOne(target, options.where);
  const result = await closing((unlessBusy) => request('surface.close', { ...targetOf(pane), ...extra, ...(unlessBusy ? { unless_busy: true } : {}) }), options.force);
  printJson(result);
  reportKept(result.worktrees);
  return 0;
}
