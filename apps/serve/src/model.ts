import { readJson, writeJsonAtomic } from '@paneflow/instance';
import type { LayoutNode, ManagedWorktree, ReducedStatus } from '@paneflow/protocol';

export interface PaneRecord {
  surface_id: number;
  session: string;
  workspace_id: string;
  name: string | null;
  cwd: string;
  /** What the pane was started to run: null for a shell. */
  command: string | null;
  /** The runtime slug of an agent pane. */
  agent: string | null;
  /** A prompt still to be prefilled once the agent is ready (REFERENCE.md §5.2). */
  pending_prompt: string | null;
  managed_worktree: ManagedWorktree | null;
}

export interface WorkspaceRecord {
  id: string;
  name: string;
  layout: LayoutNode | null;
  focus: number | null;
}

/** The part of the reducer's entry that must survive a serve restart. */
export interface SavedEntry {
  status: ReducedStatus;
  state_seq: number;
  outcome: string | null;
  unread: boolean;
}

interface ModelFile {
  version: 1;
  next_surface_id: number;
  active: number;
  workspaces: WorkspaceRecord[];
  panes: PaneRecord[];
  entries: Record<string, SavedEntry>;
}

/**
 * The workspace model, persisted atomically to `<home>/serve/workspaces.json` after every change
 * (one write per event-loop turn). Surface ids are never reused, so the next one is kept too.
 */
export class Model {
  nextSurfaceId = 1;
  active = 0;
  workspaces: WorkspaceRecord[] = [];
  readonly entries = new Map<string, SavedEntry>();
  private readonly panes = new Map<number, PaneRecord>();
  private readonly surfaceOfSession = new Map<string, number>();
  private saveScheduled = false;

  constructor(
    private readonly path: string,
    private readonly log: (message: string) => void,
  ) {
    let file: ModelFile | undefined;
    try {
      file = readJson<ModelFile>(path);
    } catch (error) {
      log(`${path} is unreadable (${(error as Error).message}); starting from the host's sessions`);
    }
    if (!file) return;
    this.nextSurfaceId = file.next_surface_id;
    this.active = file.active;
    this.workspaces = file.workspaces;
    for (const pane of file.panes) this.addPane(pane);
    for (const [session, entry] of Object.entries(file.entries)) this.entries.set(session, entry);
  }

  changed(): void {
    if (this.saveScheduled) return;
    this.saveScheduled = true;
    setImmediate(() => this.saveNow());
  }

  saveNow(): void {
    this.saveScheduled = false;
    const file: ModelFile = {
      version: 1,
      next_surface_id: this.nextSurfaceId,
      active: this.active,
      workspaces: this.workspaces,
      panes: [...this.panes.values()],
      entries: Object.fromEntries(this.entries),
    };
    try {
      writeJsonAtomic(this.path, file);
    } catch (error) {
      this.log(`workspaces not saved: ${(error as Error).message}`);
    }
  }

  addPane(pane: PaneRecord): void {
    this.panes.set(pane.surface_id, pane);
    this.surfaceOfSession.set(pane.session, pane.surface_id);
  }

  removePane(pane: PaneRecord): void {
    this.panes.delete(pane.surface_id);
    this.surfaceOfSession.delete(pane.session);
  }

  pane(surfaceId: number): PaneRecord | undefined {
    return this.panes.get(surfaceId);
  }

  allPanes(): IterableIterator<PaneRecord> {
    return this.panes.values();
  }

  paneBySession(session: string): PaneRecord | undefined {
    const surfaceId = this.surfaceOfSession.get(session);
    return surfaceId === undefined ? undefined : this.panes.get(surfaceId);
  }

  workspacePanes(workspaceId: string): PaneRecord[] {
    return [...this.panes.values()].filter((p) => p.workspace_id === workspaceId);
  }

  workspaceIndex(workspaceId: string): number {
    return this.workspaces.findIndex((w) => w.id === workspaceId);
  }

  /** Every pane, workspace by workspace. */
  orderedPanes(): PaneRecord[] {
    return this.workspaces.flatMap((w) => this.workspacePanes(w.id));
  }
}
