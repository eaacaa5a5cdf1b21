import { ErrorCode, RpcError, selectorKind, selectPanes, type ResultOf, type PublicMethods, type Scope, type SurfaceEntry } from '@paneflow/protocol';
import { echoText, noMatchText } from '@paneflow/view';
import { realpathSync } from 'node:fs';
import type { ServeContext } from './context';
import type { Workspaces } from './workspaces';

/** A pane's directory as `cwd:` compares it: its real path, or as recorded when it is gone. */
function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * `surface.resolve`: the selector grammar of `@paneflow/protocol` (`selectPanes`) over the panes
 * serve has, its scope the caller's workspace unless `all`, and its refusals worded once for every
 * face: none is `no_match` (-32020), several without `many` is `ambiguous` (-32602).
 */
export function resolveSelector(
  ctx: ServeContext,
  workspaces: Workspaces,
  request: { selector: string; scope: Scope; workspaceId: string | undefined; many: boolean },
): ResultOf<PublicMethods, 'surface.resolve'> {
  const { selector, scope, many } = request;
  const within = scope === 'all' ? null : ctx.callerWorkspace(request.workspaceId);
  const byCwd = selectorKind(selector).kind === 'cwd';
  const entries = ctx.model.orderedPanes().map((pane) => workspaces.surfaceEntry(pane));
  const inScope = (pane: { workspace_id: string }) => within === null || pane.workspace_id === within;
  // Only the panes a `cwd:` looks at are made canonical (a file system call each).
  const selectable = entries.map((entry) => ({ ...entry, cwd: byCwd && inScope(entry) ? canonical(entry.cwd) : entry.cwd, entry }));
  // The path given, as real as the panes' (a link, a trailing slash): the same machine's files.
  const asked = byCwd ? `cwd:${canonical(selectorKind(selector).text)}` : selector;
  const { matches, stage } = selectPanes(selectable, asked, inScope);
  const surfaces: SurfaceEntry[] = matches.map((match) => match.entry);
  // A surface id is looked for in every workspace: its miss names none.
  if (surfaces.length === 0) throw new RpcError(ErrorCode.NotFound, noMatchText(selector, stage !== 'surface_id' && within !== null), { reason: 'no_match' });
  const shown = echoText(selector);
  if (surfaces.length > 1 && !many) {
    const ids = surfaces.map((s) => s.surface_id);
    throw new RpcError(ErrorCode.InvalidParams, `'${shown}' ${stage === 'prefix' ? 'is a prefix of' : 'matches'} ${ids.length} panes (${ids.join(', ')}); name one`, { reason: 'ambiguous', surface_ids: ids });
  }
  return { surfaces, stage };
}
