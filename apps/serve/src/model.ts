import { readJson, writeJsonAtomic } from '@paneflow/rpc';
import type { LayoutNode } from './layout';

export interface ManagedWorktree {
  path: string;
  repo_root: string;
  branch: string;
  teardown: 'auto' | 'keep';
  action: 'create' | 'reuse';
}

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
  status: 'busy' | 'idle' | 'attention' | 'errored';
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
  panes = new Map<number, PaneRecord>();
  entries = new Map<string, SavedEntry>();
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
    for (const pane of file.panes) this.panes.set(pane.surface_id, pane);
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

  workspacePanes(workspaceId: string): PaneRecord[] {
    return [...this.panes.values()].filter((p) => p.workspace_id === workspaceId);
  }

  workspaceIndex(workspaceId: string): number {
    return this.workspaces.findIndex((w) => w.id === workspaceId);
  }

  paneBySession(session: string): PaneRecord | undefined {
    for (const pane of this.panes.values()) if (pane.session === session) return pane;
    return undefined;
  }
}
