import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { matchName } from '@paneflow/protocol/names';
import type { Scope } from '@paneflow/protocol/wire';
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
 * The panes a selector names (REFERENCE.md §4.2): digits are a surface id in any workspace;
 * `cmdline:` a substring of the foreground command line; `cwd:` the pane's directory; anything
 * else a name — exact, then case-insensitive, then a unique case-insensitive prefix. None, or
 * several at the first stage that matches, exits 3 unless `many` takes them all. Names resolve in
 * `workspaceId` (the caller's, `PANEFLOW_WORKSPACE_ID`, unless a flow names its own; else the
 * active workspace) unless the scope is all.
 */
export async function resolveSelector(selector: string, scope: Scope, many = false, workspaceId = process.env.PANEFLOW_WORKSPACE_ID): Promise<Surface[]> {
  if (/^\d+$/.test(selector)) {
    const { surfaces } = await request('surface.list', { scope: 'all' });
    const found = surfaces.filter((s) => s.surface_id === Number(selector));
    if (found.length === 0) throw new CliError(`no pane with surface id ${selector}`, 3);
    return found;
  }
  const { surfaces } = await request('surface.list', scope === 'all' ? { scope: 'all' } : workspaceId ? { scope, workspace_id: workspaceId } : { scope });
  let found: Surface[];
  let what = 'matches';
  if (selector.startsWith('cmdline:')) {
    const needle = selector.slice('cmdline:'.length);
    found = surfaces.filter((s) => s.cmd.includes(needle));
  } else if (selector.startsWith('cwd:')) {
    const wanted = canonical(selector.slice('cwd:'.length));
    found = surfaces.filter((s) => canonical(s.cwd) === wanted);
  } else {
    const named = matchName(surfaces, selector);
    found = named?.matches ?? [];
    if (named?.stage === 'prefix') what = 'is a prefix of';
  }
  // A prefix must be unique; an exact name could only match once anyway.
  if (found.length > 1 && !many) throw new CliError(`'${selector}' ${what} ${found.length} panes (${found.map((s) => s.surface_id).join(', ')}); name one`, 3);
  if (found.length > 0) return found;
  throw new CliError(`no pane matches '${selector}'${scope === 'workspace' ? ' in this workspace (try --scope all)' : ''}`, 3);
}

export async function resolveOne(selector: string, scope: Scope, workspaceId?: string): Promise<Surface> {
  return (await resolveSelector(selector, scope, false, workspaceId ?? process.env.PANEFLOW_WORKSPACE_ID))[0];
}
