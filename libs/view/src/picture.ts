import type { EventFrame, EventFrameOf } from '@paneflow/protocol/events';
import type { SurfaceEntry, WorkspaceEntry } from '@paneflow/protocol/model';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import type { PaneStatus } from './presentation';

/** What a frame changed, so a face redraws only that. */
export type Change = 'workspaces' | 'surfaces' | 'status' | 'focus' | 'none' | 'resync';

type Read = 'workspace.list' | 'surface.list' | 'surface.status';
/** How a face asks serve: the picture reads through it and touches no socket itself. */
export type ReadRequest = <M extends Read>(method: M, params: ParamsOf<PublicMethods, M>) => Promise<ResultOf<PublicMethods, M>>;

/**
 * An instance as a face shows it — workspaces, panes, each pane's status — kept from serve's
 * events, which carry what changed (REFERENCE.md §2.5). Only a `dropped` frame (or a new
 * subscription) asks for a full read again (`load`). The desktop, `paneflow attach` and the web
 * face keep the same picture the same way.
 */
export class Picture {
  workspaces: WorkspaceEntry[] = [];
  readonly surfaces = new Map<number, SurfaceEntry>();
  readonly statuses = new Map<number, PaneStatus>();

  /**
   * Reads everything again: `workspace.list` and this machine's `surface.list` (another machine's
   * panes, whose ids are their machine's, are `FarMachines`'), then one `surface.status` per pane
   * (a pane whose status cannot be read, such as one closed meanwhile, is left without).
   */
  async reload(request: ReadRequest): Promise<void> {
    const [{ workspaces }, { surfaces }] = await Promise.all([request('workspace.list', {}), request('surface.list', { scope: 'all', machine: null })]);
    const statuses = await Promise.all(surfaces.map((s) => request('surface.status', { surface_id: s.surface_id }).catch(() => null)));
    this.load(workspaces, surfaces, statuses.filter((s): s is NonNullable<typeof s> => s !== null));
  }

  /**
   * A new pane's status when its `surface_created` frame came without one (from a serve that did
   * not send it yet): read once. Resolves to the status the picture took, or null.
   */
  async readCreated(frame: EventFrameOf<'surface_created'>, request: ReadRequest): Promise<PaneStatus | null> {
    if (frame.surface_status) return null;
    const status = await request('surface.status', { surface_id: frame.surface_id }).catch(() => null);
    return status && this.read(status) ? status : null;
  }

  /**
   * Everything, as read from `workspace.list`, `surface.list` and one `surface.status` per pane;
   * a status an event brought meanwhile is kept where it is newer.
   */
  load(workspaces: WorkspaceEntry[], surfaces: SurfaceEntry[], statuses: PaneStatus[]): void {
    this.workspaces = [...workspaces].sort((a, b) => a.index - b.index);
    this.surfaces.clear();
    for (const surface of surfaces) this.surfaces.set(surface.surface_id, surface);
    for (const id of this.statuses.keys()) if (!this.surfaces.has(id)) this.statuses.delete(id);
    for (const status of statuses) this.read(status);
  }

  /**
   * One pane's status, however it came (an event, an answer): kept unless the picture holds a
   * newer one. An answer can overtake the events still on their way, so arrival order says nothing.
   */
  read(status: PaneStatus): boolean {
    const held = this.statuses.get(status.surface_id);
    if (held && held.revision > status.revision) return false;
    this.statuses.set(status.surface_id, status);
    return true;
  }

  get active(): WorkspaceEntry | undefined {
    return this.workspaces.find((w) => w.active);
  }

  /** Applies one event frame. A new pane's frame carries its status, unless an older serve sent it (`readCreated`). */
  apply(frame: EventFrame): Change {
    switch (frame.type) {
      case 'status_changed':
        return this.read(frame.surface_status) ? 'status' : 'none';
      case 'declared_changed': {
        const status = this.statuses.get(frame.surface_id);
        if (!status) return 'none';
        this.statuses.set(frame.surface_id, { ...status, declared: frame.declared });
        return 'status';
      }
      case 'surface_created':
        this.surfaces.set(frame.surface_id, frame.surface);
        if (frame.surface_status) this.read(frame.surface_status);
        return 'surfaces';
      case 'surface_updated':
        this.surfaces.set(frame.surface_id, frame.surface);
        return 'surfaces';
      case 'surface_closed':
        this.surfaces.delete(frame.surface_id);
        this.statuses.delete(frame.surface_id);
        return 'surfaces';
      case 'workspace_changed':
        this.workspaceChanged(frame);
        return 'workspaces';
      case 'focus_changed': {
        const workspace = this.workspaces[frame.workspace];
        if (workspace) workspace.focus = frame.surface_id;
        return 'focus';
      }
      case 'dropped':
        return 'resync';
      default:
        return 'none';
    }
  }

  private workspaceChanged(frame: EventFrameOf<'workspace_changed'>): void {
    const { type: _type, at_ms: _at, closed, ...entry } = frame;
    const at = this.workspaces.findIndex((w) => w.id === entry.id);
    if (closed) {
      if (at !== -1) this.workspaces.splice(at, 1);
      this.workspaces.forEach((w, index) => (w.index = index));
    } else if (at === -1) this.workspaces.push(entry);
    else this.workspaces[at] = entry;
    this.workspaces.sort((a, b) => a.index - b.index);
  }
}
