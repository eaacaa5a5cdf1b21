import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { requestDeadlineMs } from '@paneflow/protocol/deadlines';
import { splitMachineSelector } from '@paneflow/protocol/machine-names';
import { MAX_SELECTOR_CHARS, selectorKind } from '@paneflow/protocol/selectors';
import type { Scope } from '@paneflow/protocol/wire';
import { displayText, noMatchText } from '@paneflow/view';
import type { SurfaceEntry as Surface } from '@paneflow/protocol/model';
import { request } from './instance';
import { CliError, UsageError } from './errors';

function canonical(path: string): string {
  const expanded = path === '~' ? homedir() : path.startsWith('~/') ? resolve(homedir(), path.slice(2)) : resolve(path);
  try {
    return realpathSync(expanded);
  } catch {
    return expanded;
  }
}

/** Where a selector is read: the scope names resolve in, and another machine when `--machine` names one (issue 32). */
export interface Where {
  scope: Scope;
  machine?: string;
}

/** A pane as a request names it: its id, and its machine when it is another's (served there). */
export interface Target {
  surface_id: number;
  machine?: string;
}

/** The target of a resolved pane (or an inbox item, a status): every request about it carries its machine. */
export const targetOf = ({ surface_id, machine }: { surface_id: number; machine?: string | null }): Target => (machine ? { surface_id, machine } : { surface_id });

/** The caller's workspace, for a pane of this machine only: a pane's workspace here means nothing to another machine's serve. */
export const callerWorkspaceFor = (target: { machine?: string | null }, workspaceId = process.env.PANEFLOW_WORKSPACE_ID) =>
  !target.machine && workspaceId ? { workspace_id: workspaceId } : {};

/** A pane for a request that only this machine's serve answers (its queues, a split, an event filter): another machine's is refused. */
export function localPane(pane: Surface, what: string): number {
  if (pane.machine) throw new CliError(`${what} works on this machine's panes only; ${displayText(pane.name ?? String(pane.surface_id))} is on ${displayText(pane.machine)}`, 1);
  return pane.surface_id;
}

/**
 * The panes a selector names (REFERENCE.md §4.2), resolved by serve (`surface.resolve`), so every
 * face reads a selector alike. Names resolve in `workspaceId` (the caller's, `PANEFLOW_WORKSPACE_ID`,
 * unless a flow names its own; else the active workspace) unless the scope is all. A `cwd:` path is
 * made canonical here, where `~` and a relative path mean what the caller meant. None, or several
 * at the deciding rule, exits 3 unless `many` takes them all. Another machine's panes (`--machine`,
 * or the compact `@NAME:SEL` that serve reads) resolve there, in its own workspaces, and come back
 * with their `machine`: a `cwd:` path is then that machine's, taken as written.
 */
export async function resolveSelector(selector: string, where: Where, many = false, workspaceId = process.env.PANEFLOW_WORKSPACE_ID): Promise<Surface[]> {
  const { scope, machine } = where;
  const compact = splitMachineSelector(selector);
  if (machine && compact) throw new UsageError(`name the machine once: --machine ${machine} or '@${displayText(compact.machine)}:', not both`);
  const far = machine ?? compact?.machine;
  const asked = !far && selector.startsWith('cwd:') ? `cwd:${canonical(selector.slice('cwd:'.length))}` : selector;
  // Past the grammar's bound it names no pane, and is not worth a request.
  if (asked.length > MAX_SELECTOR_CHARS) throw new CliError(noMatchText(selector, false), 3, 'no_match');
  try {
    const { surfaces } = await request(
      'surface.resolve',
      { selector: asked, scope, ...callerWorkspaceFor({ machine: far }, workspaceId), ...(many ? { many } : {}), ...(machine ? { machine } : {}) },
      // The compact form goes to that machine as `--machine` does: as long a wait.
      requestDeadlineMs('surface.resolve', { machine: far }),
    );
    return surfaces;
  } catch (error) {
    if (error instanceof CliError && (error.reason === 'no_match' || error.reason === 'ambiguous')) {
      const hint = error.reason === 'no_match' && scope === 'workspace' && selectorKind(compact?.selector ?? selector).kind !== 'surface_id' ? ' (try --scope all)' : '';
      throw new CliError(error.message + hint, 3, error.reason);
    }
    throw error;
  }
}

/**
 * A selector of digits without `--machine`, as the target itself: digits name a pane of this
 * machine in any workspace (REFERENCE.md §4.2), so a request about one pane can go without
 * `surface.resolve` before it (one connection, not two: `status` is called in loops). The request's
 * own not-found is then `noPaneWithId`. Null for any other selector.
 */
export function surfaceIdTarget(selector: string, where: Where): Target | null {
  if (where.machine || selectorKind(selector).kind !== 'surface_id') return null;
  const surface_id = Number(selector);
  return Number.isSafeInteger(surface_id) ? { surface_id } : null;
}

/** A request's not-found for a target from `surfaceIdTarget`, as `surface.resolve` would have said it: exit 3. */
export function noPaneWithId(error: unknown, selector: string): unknown {
  return error instanceof CliError && error.reason === 'not_found' ? new CliError(noMatchText(selector, false), 3, 'no_match') : error;
}

export async function resolveOne(selector: string, where: Where, workspaceId?: string): Promise<Surface> {
  return (await resolveSelector(selector, where, false, workspaceId ?? process.env.PANEFLOW_WORKSPACE_ID))[0];
}
