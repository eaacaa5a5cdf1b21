import { leaves, nameFault, removePane, type Scope, type SurfaceEntry, type WorkspaceEntry } from '@paneflow/protocol';
import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import type { ServeContext } from './context';
import { invalid, outsideScope } from './errors';
import type { PaneRecord, WorkspaceRecord } from './model';
import { paneTitle } from './views';

/**
 * Names are printed into terminals and typed back as selectors: one with a control character, or
 * one no selector could reach (`nameFault`), is refused before anything changes.
 */
function refuseName(name: string): void {
  const fault = nameFault(name);
  if (fault) throw invalid(`name ${fault.message}`, fault.reason, 'name');
}

/**
 * The workspace model's own rules and events: entries as clients see them, names, scope, and the
 * changes that carry their data to subscribers (`workspace_changed`, `surface_*`).
 */
export class Workspaces {
  private readonly closedListeners: Array<(pane: PaneRecord) => void> = [];

  constructor(private readonly ctx: ServeContext) {}

  /** `listener` hears each pane that leaves the model (a part that keeps something per pane drops it). */
  onPaneClosed(listener: (pane: PaneRecord) => void): void {
    this.closedListeners.push(listener);
  }

  entry(workspace: WorkspaceRecord): WorkspaceEntry {
    const { model } = this.ctx;
    const index = model.workspaceIndex(workspace.id);
    return {
      index,
      id: workspace.id,
      name: workspace.name,
      active: index === model.active,
      surfaces: model.workspacePanes(workspace.id).map((p) => p.surface_id),
      layout: workspace.layout,
      focus: workspace.focus,
    };
  }

  ref(workspace: WorkspaceRecord) {
    return { index: this.ctx.model.workspaceIndex(workspace.id), id: workspace.id, name: workspace.name };
  }

  /** A workspace changed (created, selected, re-laid out): subscribers get its entry as it is now. */
  changed(workspace: WorkspaceRecord): void {
    this.ctx.publish({ type: 'workspace_changed', ...this.entry(workspace) });
  }

  surfaceEntry(pane: PaneRecord): SurfaceEntry {
    const view = this.ctx.views.get(pane.session);
    return {
      surface_id: pane.surface_id,
      name: pane.name,
      title: view ? paneTitle(view, pane) : '',
      cwd: view?.foregroundCwd ?? pane.cwd,
      cmd: view?.foregroundCmd ?? pane.command ?? '',
      workspace: this.ctx.model.workspaceIndex(pane.workspace_id),
      workspace_id: pane.workspace_id,
      session: pane.session,
    };
  }

  /** A pane's name, title, command or directory changed. */
  surfaceUpdated(pane: PaneRecord): void {
    this.ctx.publish({ type: 'surface_updated', surface_id: pane.surface_id, session: pane.session, surface: this.surfaceEntry(pane) });
  }

  create(name: string): WorkspaceRecord {
    refuseName(name);
    const workspace: WorkspaceRecord = { id: randomUUID(), name, layout: null, focus: null };
    this.ctx.model.workspaces.push(workspace);
    return workspace;
  }

  /** Forgets a workspace that never got its panes (a failed create). */
  discard(workspace: WorkspaceRecord): void {
    this.ctx.model.workspaces = this.ctx.model.workspaces.filter((w) => w !== workspace);
  }

  /** Makes a workspace the active one; when that changes, every workspace's entry goes out. */
  select(index: number): boolean {
    const { model } = this.ctx;
    const changed = model.active !== index;
    model.active = index;
    model.changed();
    if (changed) for (const workspace of model.workspaces) this.changed(workspace);
    return changed;
  }

  /** A new or re-laid-out workspace brought to the front: its entry goes out once. */
  show(workspace: WorkspaceRecord): void {
    if (!this.select(this.ctx.model.workspaceIndex(workspace.id))) this.changed(workspace);
  }

  /** Removes an empty workspace; the ones after it move up by one. */
  remove(workspace: WorkspaceRecord): void {
    const { model } = this.ctx;
    const entry = this.entry(workspace);
    model.workspaces.splice(entry.index, 1);
    if (model.active >= model.workspaces.length) model.active = Math.max(0, model.workspaces.length - 1);
    model.changed();
    this.ctx.publish({ type: 'workspace_changed', ...entry, active: false, closed: true });
    const active = model.workspaces[model.active];
    if (active) this.changed(active);
  }

  /** Takes a pane out of the model and its workspace's layout. */
  closePane(pane: PaneRecord, announce: boolean): void {
    const { model } = this.ctx;
    const workspace = this.ctx.workspaceOf(pane);
    const index = model.workspaceIndex(pane.workspace_id);
    model.removePane(pane);
    if (workspace) {
      workspace.layout = removePane(workspace.layout, pane.surface_id);
      if (workspace.focus === pane.surface_id) workspace.focus = leaves(workspace.layout)[0] ?? null;
    }
    model.changed();
    for (const listener of this.closedListeners) listener(pane);
    if (!announce) return;
    this.ctx.publish({ type: 'surface_closed', surface_id: pane.surface_id, session: pane.session, workspace: index });
    if (workspace) this.changed(workspace);
  }

  /** Pane names are unique in the home, case-insensitively, and pass `nameFault`. */
  checkName(name: string | null | undefined, except?: number): void {
    if (!name) return;
    refuseName(name);
    for (const pane of this.ctx.model.allPanes()) {
      if (pane.surface_id !== except && pane.name?.toLowerCase() === name.toLowerCase()) {
        throw invalid(`the name '${name}' is used by surface ${pane.surface_id}`, 'name_taken', 'name');
      }
    }
  }

  checkCwd(cwd: string, field = 'cwd'): void {
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw invalid(`cwd ${cwd} is not a directory`, 'cwd_missing', field);
  }

  /** Writes to another workspace's panes, or with scope all, need orchestration (REFERENCE.md §2.4). */
  checkScope(pane: PaneRecord, scope: Scope | undefined, workspaceId: string | undefined): void {
    if (this.ctx.capabilities.orchestration) return;
    if (scope === 'all') throw outsideScope('scope all requires PANEFLOW_IPC_ORCHESTRATION=1');
    if (pane.workspace_id !== this.ctx.callerWorkspace(workspaceId)) {
      throw outsideScope(`surface ${pane.surface_id} is outside the caller's workspace; requires PANEFLOW_IPC_ORCHESTRATION=1`);
    }
  }
}
