import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { MAX_SELECTOR_CHARS, selectorKind } from '@paneflow/protocol/selectors';
import type { Scope } from '@paneflow/protocol/wire';
import { noMatchText } from '@paneflow/view';
import type { SurfaceEntry as Surface } from '@paneflow/protocol/model';
import { request } from './instance';
import { CliError } from './errors';

function canonical(path: string): string {
  const expanded = path === '~' ? homedir() : path.startsWith('~/') ? resolve(homedir(), path.slice(2)) : resolve(path);
  try {
    return realpathSync(expanded);
  } catch {
    return expanded;
  }
}

/**
 * The panes a selector names (REFERENCE.md §4.2), resolved by serve (`surface.resolve`), so every
 * face reads a selector alike. Names resolve in `workspaceId` (the caller's, `PANEFLOW_WORKSPACE_ID`,
 * unless a flow names its own; else the active workspace) unless the scope is all. A `cwd:` path is
 * made canonical here, where `~` and a relative path mean what the caller meant. None, or several
 * at the deciding rule, exits 3 unless `many` takes them all.
 */
export async function resolveSelector(selector: string, scope: Scope, many = false, workspaceId = process.env.PANEFLOW_WORKSPACE_ID): Promise<Surface[]> {
  const asked = selector.startsWith('cwd:') ? `cwd:${canonical(selector.slice('cwd:'.length))}` : selector;
  // Past the grammar's bound it names no pane, and is not worth a request.
  if (asked.length > MAX_SELECTOR_CHARS) throw new CliError(noMatchText(selector, false), 3, 'no_match');
  try {
    const { surfaces } = await request('surface.resolve', { selector: asked, scope, ...(workspaceId ? { workspace_id: workspaceId } : {}), ...(many ? { many } : {}) });
    return surfaces;
  } catch (error) {
    if (error instanceof CliError && (error.reason === 'no_match' || error.reason === 'ambiguous')) {
      const hint = error.reason === 'no_match' && scope === 'workspace' && selectorKind(selector).kind !== 'surface_id' ? ' (try --scope all)' : '';
      throw new CliError(error.message + hint, 3, error.reason);
    }
    throw error;
  }
}

export async function resolveOne(selector: string, scope: Scope, workspaceId?: string): Promise<Surface> {
  return (await resolveSelector(selector, scope, false, workspaceId ?? process.env.PANEFLOW_WORKSPACE_ID))[0];
}
