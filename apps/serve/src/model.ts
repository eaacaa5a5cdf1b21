import { readCheckedJson, removeTempFiles, writeJsonAtomic } from '@paneflow/instance';
import { ErrorCode, LayoutTree, ManagedWorktree, nullable, ReducedStatus, RpcError, SurfaceId, Uuid, validate, type LayoutNode } from '@paneflow/protocol';
import { dirname } from 'node:path';
import Type, { type Static } from 'typebox';

const PaneRecord = Type.Object({
  surface_id: SurfaceId,
  session: Uuid,
  workspace_id: Type.String(),
  name: nullable(Type.String()),
  cwd: Type.String(),
  /** What the pane was started to run: null for a shell. */
  command: nullable(Type.String()),
  /** The runtime slug of an agent pane. */
  agent: nullable(Type.String()),
  /** A prompt still to be prefilled once the agent is ready (REFERENCE.md §5.2). */
  pending_prompt: nullable(Type.String()),
  managed_worktree: nullable(ManagedWorktree),
});
export type PaneRecord = Static<typeof PaneRecord>;

const WorkspaceRecord = Type.Object({ id: Type.String(), name: Type.String(), layout: nullable(LayoutTree), focus: nullable(SurfaceId) });
export type WorkspaceRecord = Omit<Static<typeof WorkspaceRecord>, 'layout'> & { layout: LayoutNode | null };

/** The part of the reducer's entry that must survive a serve restart. */
const SavedEntry = Type.Object({ status: ReducedStatus, state_seq: Type.Integer({ minimum: 0 }), outcome: nullable(Type.String()), unread: Type.Boolean() });
export type SavedEntry = Static<typeof SavedEntry>;

/** `<home>/serve/workspaces.json`. */
const ModelFile = Type.Object({
  version: Type.Literal(1),
  next_surface_id: SurfaceId,
  active: Type.Integer({ minimum: 0 }),
  workspaces: Type.Array(WorkspaceRecord),
  panes: Type.Array(PaneRecord),
  entries: Type.Record(Type.String(), SavedEntry),
});
type ModelFile = Omit<Static<typeof ModelFile>, 'workspaces'> & { workspaces: WorkspaceRecord[] };

/** What is wrong with a file that should hold the model: its schema, then what the rest of serve relies on. */
function problemOf(value: unknown): string | null {
  const problem = validate(ModelFile, value);
  if (problem) return problem.message;
  const file = value as ModelFile;
  const workspaces = new Set(file.workspaces.map((w) => w.id));
  const surfaces = new Set<number>();
  for (const pane of file.panes) {
    if (!workspaces.has(pane.workspace_id)) return `surface ${pane.surface_id} is in workspace ${pane.workspace_id}, which the file does not hold`;
    if (surfaces.has(pane.surface_id)) return `surface ${pane.surface_id} appears twice`;
    if (pane.surface_id >= file.next_surface_id) return `surface ${pane.surface_id} is not below next_surface_id ${file.next_surface_id}`;
    surfaces.add(pane.surface_id);
  }
  if (file.active > Math.max(0, file.workspaces.length - 1)) return `active workspace ${file.active} of ${file.workspaces.length}`;
  return null;
}

/** While the model cannot be written, it is tried again this often. */
const RETRY_MS = 2000;

/**
 * The workspace model, persisted atomically to `<home>/serve/workspaces.json` after every change
 * (one write per event-loop turn), and before a request that changed it answers (`commit`).
 * Surface ids are never reused, so the next one is kept too.
 */
export class Model {
  nextSurfaceId = 1;
  active = 0;
  workspaces: WorkspaceRecord[] = [];
  readonly entries = new Map<string, SavedEntry>();
  private readonly panes = new Map<number, PaneRecord>();
  private readonly surfaceOfSession = new Map<string, number>();
  private saveScheduled = false;
  /** Changed since the file was last written. */
  private dirty = false;
  /** Why the last write failed, and since when; null while the file holds the model. */
  private failure: { why: string; since: number } | null = null;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly path: string,
    private readonly log: (message: string) => void,
  ) {
    // Only this serve (it holds owner.lock) writes here: a temp file is one a killed serve left.
    removeTempFiles(dirname(path));
    const file = this.load();
    if (!file) return;
    this.nextSurfaceId = file.next_surface_id;
    this.active = file.active;
    this.workspaces = file.workspaces;
    for (const pane of file.panes) this.addPane(pane);
    for (const [session, entry] of Object.entries(file.entries)) this.entries.set(session, entry);
  }

  /** The saved model; a file that is not one is moved aside and named in the log, once. */
  private load(): ModelFile | undefined {
    return readCheckedJson<ModelFile>(this.path, problemOf, { what: 'a saved model', then: "starting from the host's sessions", log: this.log }).value;
  }

  changed(): void {
    this.dirty = true;
    if (this.saveScheduled) return;
    this.saveScheduled = true;
    setImmediate(() => {
      this.saveScheduled = false;
      this.saveNow();
    });
  }

  /**
   * Writes the model if it changed; false when it cannot be written. Then the model is kept in
   * memory and written again every 2 s until it can be; the log says so once, and once more when
   * saving resumes.
   */
  saveNow(): boolean {
    if (!this.dirty) return true;
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
      const why = (error as Error).message;
      if (!this.failure) this.log(`workspaces not saved: ${why}; kept in memory and tried again every ${RETRY_MS / 1000} s`);
      this.failure = { why, since: this.failure?.since ?? Date.now() };
      this.retry ??= setInterval(() => this.saveNow(), RETRY_MS).unref();
      return false;
    }
    this.dirty = false;
    if (this.failure) {
      this.log('workspaces saved again');
      this.failure = null;
      clearInterval(this.retry!);
      this.retry = null;
    }
    return true;
  }

  /** Why the model cannot be saved, for serve's health; null while it can. */
  get problem(): string | null {
    if (!this.failure) return null;
    return `the home cannot be written: ${this.path} not saved since ${new Date(this.failure.since).toISOString()} (${this.failure.why})`;
  }

  /**
   * Before a request changes the model: while the model cannot be saved (the disk is tried first),
   * the request is refused with `not_saved` and nothing is changed.
   */
  checkSavable(): void {
    if (this.failure && !this.saveNow()) throw this.notSaved(false);
  }

  /**
   * Before a request that changed the model answers: the change is on disk, or the request fails
   * with `not_saved` (`applied`: the change holds in memory and is saved once the disk allows).
   */
  commit(): void {
    if (!this.saveNow()) throw this.notSaved(true);
  }

  private notSaved(applied: boolean): RpcError {
    const what = applied ? 'the change is made but not saved; it is saved once the disk allows, and lost if serve stops first' : 'nothing was changed';
    return new RpcError(ErrorCode.InternalError, `${this.path} cannot be written (${this.failure!.why}): ${what}`, { reason: 'not_saved', applied });
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

/**
 * A method that changes the model, answered only once its change is on disk (REFERENCE.md §1.1):
 * refused up front while the model cannot be saved, failed with `not_saved` when the save fails.
 */
export function savedBeforeReply<P, C, R>(model: Model, handler: (params: P, context: C) => R | Promise<R>): (params: P, context: C) => Promise<R> {
  return async (params, context) => {
    model.checkSavable();
    const result = await handler(params, context);
    model.commit();
    return result;
  };
}
