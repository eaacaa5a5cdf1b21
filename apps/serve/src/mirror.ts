import { runningOwner } from '@paneflow/instance';
import { readProcStat } from '@paneflow/proc';
import { ErrorCode, HOST_PROTOCOL_VERSION, leaves, RpcError, SESSION_STOP_WAIT_MS, splitPane, SURFACE_CHANGED_MS, type Manifest } from '@paneflow/protocol';
import type { Timer } from './clock';
import type { ServeContext } from './context';
import type { HookIntake } from './hooks';
import type { SessionsFrame } from './hostlink';
import type { Readiness } from './prompts';
import type { Restorer } from './restore';
import type { Reduction } from './status';
import { agentFrom, applyState, viewFromManifest, type View } from './views';
import type { Workspaces } from './workspaces';
import { keepUnsaved, shownLost } from './unsaved';
import { tearDownWorktrees } from './worktrees';

type SessionFrame = Extract<SessionsFrame, { session: string }>;

/**
 * Serve's picture of the host's sessions, kept from `agent.follow`: one view per session, each
 * frame applied as it comes and reduced at once. On every (re)connection the host's full session
 * list is the truth about what exists; sessions without a pane are adopted into one.
 */
export class SessionMirror {
  /** Sessions this serve is creating: their frames wait for the view, no adoption. */
  private readonly creating = new Set<string>();
  private readonly heldFrames = new Map<string, SessionFrame[]>();
  /**
   * Sessions whose creation was reported as failed while the host may still make them (it did
   * not answer in time, or the link dropped): whenever the host shows one, it is stopped and
   * removed, never adopted.
   */
  private readonly abandoned = new Set<string>();
  /** Sessions serve is removing itself, counted (`Panes.stopAndRemove`): the host's word that one is gone is no news. */
  private readonly removing = new Map<string, number>();
  private readonly discarding = new Set<string>();
  private readonly surfaceTimers = new Map<number, Timer>();
  private readonly surfaceSentAt = new Map<number, number>();

  constructor(
    private readonly ctx: ServeContext,
    private readonly reduction: Reduction,
    private readonly readiness: Readiness,
    private readonly workspaces: Workspaces,
    private readonly restorer: Restorer,
    private readonly hooks: HookIntake,
  ) {}

  /** A (re)connection to the host: its full list of sessions is the truth about what exists. */
  rebuild(all: Manifest[]): void {
    const { model, views } = this.ctx;
    const present = new Set(all.map((m) => m.session));
    // The full list is the truth: an abandoned session it lacks can no longer appear.
    for (const session of this.abandoned) if (!present.has(session)) this.abandoned.delete(session);
    const manifests = all.filter((m) => !this.abandoned.has(m.session));
    for (const manifest of all) if (this.abandoned.has(manifest.session)) this.discard(manifest.session);
    for (const manifest of manifests) {
      const existing = views.get(manifest.session);
      const view = viewFromManifest(manifest, model.entries.get(manifest.session));
      if (existing) {
        view.entry = existing.entry;
        view.hook = existing.hook;
        view.agent = existing.agent ?? view.agent;
        view.attentionSinceMs = existing.attentionSinceMs;
        view.lastHookMs = existing.lastHookMs;
        view.stalled = existing.stalled;
        this.ctx.clock.clearTimeout(existing.clockTimer);
      }
      views.set(manifest.session, view);
      this.adopt(view, manifest);
      this.reduction.reduce(view);
      // A host that died took its sessions with it: the faces hear that they are lost.
      if (existing && (existing.lifecycle !== view.lifecycle || existing.generation !== view.generation)) {
        this.reduction.publishSessionChanged(view);
        this.reduction.announce(view);
      }
      // A prompt that was still to be written when serve stopped is written now.
      const pending = model.paneBySession(view.session)?.pending_prompt;
      if (pending && view.lifecycle === 'live') this.readiness.prefill(view.session, pending);
    }
    // Panes whose session the host does not have. Only serve removes sessions, so one this serve
    // saw was lost with a host that died before writing its manifest (a full or read-only home):
    // the pane stays, lost (unsaved.ts). One it never saw (it restarted meanwhile) was removed
    // behind its back, or its host's manifest was never written either: that pane goes, and its
    // worktree by the one rule.
    const missing = [...model.allPanes()].filter((pane) => !present.has(pane.session) && !this.removing.has(pane.session));
    const kept = missing.filter((pane) => views.has(pane.session));
    const gone = missing.filter((pane) => !views.has(pane.session));
    for (const session of views.keys()) if (!present.has(session) && !kept.some((pane) => pane.session === session)) this.forget(session);
    this.reduction.turns.rebuilt(present);
    for (const pane of kept) keepUnsaved(this.ctx, this.reduction, pane, views.get(pane.session)!);
    for (const pane of gone) this.ctx.log(`surface ${pane.surface_id} is closed: the host has no session ${pane.session} (removed elsewhere, or its manifest was never written)`);
    for (const pane of gone) this.workspaces.closePane(pane, false);
    tearDownWorktrees(this.ctx, gone, true);
    model.changed();
  }

  /**
   * The host's connection closed. If its process is gone too, so are its PTYs: every session it ran
   * is shown lost now, not `live` with a pid that no longer exists, while no host can start (a full
   * or read-only home). The next host's manifests say the same once it starts. A host that only
   * hangs keeps its sessions, and they stay as they were.
   */
  hostGone(): void {
    const holder = runningOwner(this.ctx.endpoints.home, 'host');
    if (holder && readProcStat(holder.pid)?.state !== 'Z') return;
    const now = this.ctx.clock.now();
    let lost = 0;
    for (const view of this.ctx.views.values()) {
      if (view.lifecycle !== 'live' && view.lifecycle !== 'starting') continue;
      shownLost(this.reduction, view, now);
      lost++;
    }
    if (lost > 0) this.ctx.log(`the host is gone: ${lost} session${lost === 1 ? '' : 's'} shown lost until a host starts again`);
  }

  /** A host session without a pane (the model was lost, or someone else created it) gets one. */
  private adopt(view: View, manifest: Manifest) {
    const { model } = this.ctx;
    if (model.paneBySession(view.session)) return;
    let workspace = model.workspaces.find((w) => w.id === manifest.workspace_id);
    if (!workspace) {
      workspace = { id: manifest.workspace_id, name: 'Workspace', layout: null, focus: null };
      model.workspaces.push(workspace);
    }
    const surfaceId = model.pane(manifest.surface_id) ? model.nextSurfaceId++ : manifest.surface_id;
    model.nextSurfaceId = Math.max(model.nextSurfaceId, surfaceId + 1);
    model.addPane({
      surface_id: surfaceId,
      session: view.session,
      workspace_id: workspace.id,
      name: manifest.name,
      cwd: manifest.cwd,
      command: manifest.launch.args[0] === '-c' ? (manifest.launch.args[1] ?? null) : null,
      agent: null,
      pending_prompt: null,
      managed_worktree: null,
    });
    workspace.layout = splitPane(workspace.layout, leaves(workspace.layout).at(-1) ?? null, surfaceId, 'h');
  }

  /** Frames for `session` wait until its view exists: this serve is creating it. */
  expect(session: string): void {
    this.creating.add(session);
  }

  expected(session: string): void {
    this.creating.delete(session);
    this.heldFrames.delete(session);
  }

  /** Marks a session that serve itself is removing, until the returned function is called. */
  removingItself(session: string): () => void {
    this.removing.set(session, (this.removing.get(session) ?? 0) + 1);
    return () => {
      const left = (this.removing.get(session) ?? 1) - 1;
      if (left > 0) this.removing.set(session, left);
      else this.removing.delete(session);
    };
  }

  /**
   * Gives up a session being created: the client hears that it failed, so nothing may be left.
   * One the host has made (`made`, or frames came for it) is stopped and removed now; one it may
   * still make is when it shows (`hold`, a snapshot, a rebuild).
   */
  abandon(session: string, made: boolean): void {
    this.abandoned.add(session);
    if (made || this.heldFrames.has(session)) this.discard(session);
  }

  private discard(session: string): void {
    if (this.discarding.has(session)) return;
    this.discarding.add(session);
    const { host } = this.ctx;
    void host
      .request('session.stop', { session }, SESSION_STOP_WAIT_MS)
      .then(() => host.request('session.remove', { session }))
      .then(
        () => this.abandoned.delete(session),
        (error: Error) => {
          if (error instanceof RpcError && error.code === ErrorCode.NotFound) this.abandoned.delete(session);
          // Still there (the host hung again): its next frame tries again.
          else this.ctx.log(`removing abandoned session ${session}: ${error.message}`);
        },
      )
      .finally(() => this.discarding.delete(session));
  }

  /**
   * A new view from a manifest, then the frames that came for it meanwhile — only those newer
   * than the manifest (`frame_seq`): every frame is absolute state, and an older one would undo it.
   */
  addView(view: View, frameSeq: number): void {
    this.ctx.views.set(view.session, view);
    // Made: its frames, those held meanwhile first, go to it now (held again, they would be lost).
    this.creating.delete(view.session);
    this.reduction.reduce(view);
    const held = this.heldFrames.get(view.session) ?? [];
    this.heldFrames.delete(view.session);
    for (const frame of held) if (frame.seq > frameSeq) this.onHostFrame(frame);
  }

  forget(session: string): void {
    const view = this.ctx.views.get(session);
    this.ctx.clock.clearTimeout(view?.clockTimer);
    this.ctx.views.delete(session);
    this.ctx.model.entries.delete(session);
    this.hooks.forget(session);
    this.reduction.turns.forget(session);
  }

  onHostFrame(frame: SessionsFrame): void {
    if (frame.type === 'snapshot') {
      for (const state of frame.sessions) {
        if (this.abandoned.has(state.session)) this.discard(state.session);
        const view = this.ctx.views.get(state.session);
        if (!view) continue;
        applyState(view, state, this.ctx.clock.now());
        this.reduction.reduce(view);
      }
      return;
    }
    if (frame.type === 'removed') {
      this.abandoned.delete(frame.session);
      this.forget(frame.session);
      const pane = this.ctx.model.paneBySession(frame.session);
      if (pane && !this.removing.has(frame.session)) {
        this.workspaces.closePane(pane, true);
        tearDownWorktrees(this.ctx, [pane], true);
      }
      return;
    }
    const view = this.ctx.views.get(frame.session);
    // A view being made anew (unsaved.ts) takes the frames newer than its manifest, as a new one does.
    if (!view || this.creating.has(frame.session)) this.hold(frame);
    else this.apply(view, frame);
  }

  private apply(view: View, frame: Exclude<SessionFrame, { type: 'removed' }>) {
    const now = this.ctx.clock.now();
    const pane = this.ctx.model.paneBySession(view.session);
    switch (frame.type) {
      case 'lifecycle': {
        const before = view.lifecycle;
        const agent = view.agent;
        view.lifecycle = frame.lifecycle;
        view.exitCode = frame.exit_code;
        // A new generation runs under the host serve follows, which speaks serve's protocol.
        if (frame.generation !== view.generation) view.hostProtocol = HOST_PROTOCOL_VERSION;
        view.generation = frame.generation;
        if (view.lifecycle !== 'lost') view.lost = null;
        this.reduction.reduce(view);
        if (before !== view.lifecycle) {
          this.reduction.publishSessionChanged(view);
          this.reduction.announce(view);
        }
        this.restorer.changed(view);
        if (before === 'live' && (frame.lifecycle === 'exited' || frame.lifecycle === 'failed')) this.hooks.sessionEnded(view, agent, frame.pid, frame.exit_code);
        return;
      }
      case 'resume':
        view.resume = frame.resume;
        view.restart = frame.restart;
        this.reduction.announce(view);
        this.reduction.publishSessionChanged(view);
        this.restorer.changed(view);
        return;
      case 'status': {
        const recordChanged = JSON.stringify(view.declared) !== JSON.stringify(frame.declared_status);
        view.declared = frame.declared_status;
        view.lastSignalAtMs = frame.last_status_signal_at_ms;
        view.capableAtMs = frame.program_status_capable_at_ms;
        view.typed = frame.typed ?? null;
        view.lastActivityMs = now;
        this.reduction.reduce(view);
        if (recordChanged && pane) this.ctx.publish({ type: 'declared_changed', surface_id: pane.surface_id, session: view.session, declared: view.declared });
        this.readiness.changed(view);
        return;
      }
      case 'observation': {
        const moved = view.foregroundCmd !== frame.foreground_cmd || view.foregroundCwd !== frame.foreground_cwd;
        view.observation = frame.observation;
        view.lastRuntimeId = frame.last_runtime_id;
        view.foregroundCmd = frame.foreground_cmd;
        view.foregroundCwd = frame.foreground_cwd;
        // An exited session keeps the agent that was in front when it exited.
        const previous = view.agent;
        if (view.lifecycle === 'live' || frame.observation) view.agent = agentFrom(frame.observation, view.agent, now);
        if (view.lifecycle === 'live') this.hooks.observed(view, previous);
        this.reduction.reduce(view);
        this.reduction.publishSessionChanged(view);
        if (moved && pane) this.workspaces.surfaceUpdated(pane);
        this.readiness.changed(view);
        return;
      }
      case 'output':
        view.outputGeneration = frame.output_generation;
        view.lastActivityMs = now;
        // Output clears a stall (stalls.ts, after the reduction); other output needs no reduction.
        if (view.stalled) this.reduction.reduce(view);
        this.surfaceChanged(view);
        this.readiness.changed(view);
        return;
      case 'title':
        view.title = frame.title;
        if (pane) this.workspaces.surfaceUpdated(pane);
        return;
    }
  }

  /**
   * A frame for a session serve has no view of yet — one it is creating, or one another client
   * created — waits, in order, until the view exists; nothing the host says is lost.
   */
  private hold(frame: SessionFrame) {
    if (this.abandoned.has(frame.session)) {
      this.discard(frame.session);
      return;
    }
    const held = this.heldFrames.get(frame.session);
    if (held) {
      held.push(frame);
      return;
    }
    this.heldFrames.set(frame.session, [frame]);
    if (this.creating.has(frame.session)) return;
    void this.ctx.host
      .request('session.inspect', { session: frame.session })
      .then((manifest) => {
        if (this.ctx.views.has(manifest.session) || this.creating.has(manifest.session)) return;
        const view = viewFromManifest(manifest, undefined);
        this.adopt(view, manifest);
        this.addView(view, manifest.frame_seq);
        this.ctx.model.changed();
      })
      .catch(() => this.heldFrames.delete(frame.session));
  }

  /** Output frames go out at most once per pane per 50 ms, always with the latest generation. */
  private surfaceChanged(view: View) {
    const pane = this.ctx.model.paneBySession(view.session);
    if (!pane || this.surfaceTimers.has(pane.surface_id)) return;
    const wait = Math.max(0, (this.surfaceSentAt.get(pane.surface_id) ?? 0) + SURFACE_CHANGED_MS - this.ctx.clock.now());
    const send = () => {
      this.surfaceTimers.delete(pane.surface_id);
      this.surfaceSentAt.set(pane.surface_id, this.ctx.clock.now());
      const current = this.ctx.views.get(view.session);
      if (current) this.ctx.publish({ type: 'surface_changed', surface_id: pane.surface_id, session: view.session, output_generation: current.outputGeneration });
    };
    if (wait === 0) send();
    else this.surfaceTimers.set(pane.surface_id, this.ctx.clock.setTimeout(send, wait));
  }
}
