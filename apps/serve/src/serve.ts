import { resolveAgent, type Catalog } from '@paneflow/procscan';
import { nextReasonChangeMs, reduce as reduceEntry, type Notice } from '@paneflow/reducer';
import {
  ErrorCode,
  fence,
  isSameProcess,
  PUBLIC_PROTOCOL_VERSION,
  PublicMethods,
  READ_LINES_DEFAULT,
  RpcError,
  RpcServer,
  StreamReply,
  type Endpoints,
  type Handlers,
  type HostFrame,
  type Manifest,
  type ParamsOf,
} from '@paneflow/rpc';
import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ConfigSource } from './config';
import { EventHub, type Frame } from './events';
import { HostLink } from './hostlink';
import { KeystrokeError, keystrokeBytes } from './keys';
import { leaves, presetLayout, removePane, splitPane, type LayoutName, type LayoutNode } from './layout';
import { Model, type PaneRecord, type WorkspaceRecord } from './model';
import { applyState, paneTitle, promptTitle, stateOf, statusObject, viewFromManifest, type View } from './views';
import { teardownWorktree } from './worktrees';

/** REFERENCE.md §2.1, §4.4. */
export const MAX_CONNECTIONS = 64;
export const MAX_TEXT_BYTES = 64 * 1024;
const SURFACE_CHANGED_MS = 50;
const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;
/** A prompt is prefilled once the agent is ready: it declared idle, or went quiet this long. */
const PROMPT_QUIET_MS = 1000;
const PROMPT_DEADLINE_MS = 30_000;
/** At most one notification of a kind per pane in this window (OSC7501.md §11.4). */
const NOTIFICATION_INTERVAL_MS = 1000;
const HOOK_TOOLS = new Set(['claude', 'codex']);

export interface Capabilities {
  scripting: boolean;
  orchestration: boolean;
}

type Params<M extends keyof PublicMethods & string> = ParamsOf<PublicMethods, M>;

const disabled = (method: string, variable: string) =>
  new RpcError(ErrorCode.MethodNotFound, `${method} disabled: relaunch with ${variable}=1`, { reason: 'gate_closed', requires: variable });
const invalid = (message: string, reason: string, field?: string) =>
  new RpcError(ErrorCode.InvalidParams, message, field ? { reason, field } : { reason });
const notFound = (what: string) => new RpcError(ErrorCode.NotFound, `${what} not found`, { reason: 'not_found' });

/**
 * serve: the public socket, the workspace model, the reduced status of every session, write
 * gates, events and notifications. It owns no PTY and can be killed at any moment: on start it
 * rebuilds everything from the host and its own saved model, silently.
 */
export class Serve {
  readonly model: Model;
  readonly events = new EventHub();
  private readonly views = new Map<string, View>();
  private readonly host: HostLink;
  private readonly server: RpcServer<PublicMethods>;
  private readonly surfaceTimers = new Map<number, NodeJS.Timeout>();
  private readonly surfaceSentAt = new Map<number, number>();
  private readonly lastNotice = new Map<string, number>();
  private readonly prompts = new Map<string, { text: string; startedAt: number; timer: NodeJS.Timeout | null }>();
  /** Sessions this serve is creating: their frames wait for the view, no adoption. */
  private readonly creating = new Set<string>();
  private readonly heldFrames = new Map<string, Extract<HostFrame, { session: string }>[]>();
  private readonly counters: Record<string, number> = { requests: 0, notifications: 0, notifications_rate_limited: 0, status_changes: 0 };
  private draining = false;
  onShutdown: () => void = () => undefined;

  constructor(
    private readonly endpoints: Endpoints,
    private readonly buildId: string,
    private readonly capabilities: Capabilities,
    private readonly config: ConfigSource,
    private readonly catalog: Catalog,
    private readonly log: (message: string) => void,
  ) {
    this.model = new Model(join(endpoints.home, 'serve', 'workspaces.json'), log);
    this.host = new HostLink(
      endpoints,
      {
        connected: (manifests) => this.rebuild(manifests),
        frame: (frame) => this.onHostFrame(frame),
        disconnected: () => this.log('lost the host; reconnecting'),
      },
      log,
    );
    this.server = new RpcServer<PublicMethods>({
      methods: PublicMethods,
      handlers: this.handlers(),
      mode: 'single',
      maxConnections: MAX_CONNECTIONS,
      lineDeadlineMs: 10_000,
      log,
    });
  }

  async start(): Promise<void> {
    await this.host.start();
    await this.server.listen(this.endpoints.publicSocket);
  }

  // ---------------------------------------------------------------- rebuilding and following

  /** A (re)connection to the host: its full list of sessions is the truth about what exists. */
  private rebuild(manifests: Manifest[]) {
    const present = new Set(manifests.map((m) => m.session));
    for (const manifest of manifests) {
      const existing = this.views.get(manifest.session);
      const view = viewFromManifest(manifest, this.model.entries.get(manifest.session));
      if (existing) {
        view.entry = existing.entry;
        view.hook = existing.hook;
        view.agent = existing.agent ?? view.agent;
        view.attentionSinceMs = existing.attentionSinceMs;
        if (existing.clockTimer) clearTimeout(existing.clockTimer);
      }
      this.views.set(manifest.session, view);
      this.adopt(view, manifest);
      this.reduce(view);
    }
    for (const [session, view] of this.views) {
      if (!present.has(session)) this.forget(view.session);
    }
    for (const pane of [...this.model.panes.values()]) {
      if (!present.has(pane.session)) this.closePane(pane, false);
    }
    this.model.changed();
  }

  /** A host session without a pane (the model was lost, or someone else created it) gets one. */
  private adopt(view: View, manifest: Manifest) {
    if (this.model.paneBySession(view.session)) return;
    let workspace = this.model.workspaces.find((w) => w.id === manifest.workspace_id);
    if (!workspace) {
      workspace = { id: manifest.workspace_id, name: 'Workspace', layout: null, focus: null };
      this.model.workspaces.push(workspace);
    }
    const surfaceId = this.model.panes.has(manifest.surface_id) ? this.model.nextSurfaceId++ : manifest.surface_id;
    this.model.nextSurfaceId = Math.max(this.model.nextSurfaceId, surfaceId + 1);
    this.model.panes.set(surfaceId, {
      surface_id: surfaceId,
      session: view.session,
      workspace_id: workspace.id,
      name: manifest.name,
      cwd: manifest.cwd,
      command: manifest.launch.args[0] === '-c' ? manifest.launch.args[1] ?? null : null,
      agent: null,
      pending_prompt: null,
      managed_worktree: null,
    });
    workspace.layout = splitPane(workspace.layout, leaves(workspace.layout).at(-1) ?? null, surfaceId, 'h');
  }

  private onHostFrame(frame: HostFrame) {
    const now = Date.now();
    switch (frame.type) {
      case 'snapshot':
        for (const state of frame.sessions) {
          const view = this.views.get(state.session);
          if (!view) continue;
          applyState(view, state, now);
          this.reduce(view);
        }
        return;
      case 'removed': {
        this.forget(frame.session);
        const pane = this.model.paneBySession(frame.session);
        if (pane) this.closePane(pane, true);
        return;
      }
      case 'lifecycle': {
        const view = this.views.get(frame.session);
        if (!view) {
          this.holdFrame(frame);
          return;
        }
        const before = view.lifecycle;
        view.lifecycle = frame.lifecycle;
        view.exitCode = frame.exit_code;
        view.generation = frame.generation;
        this.reduce(view);
        if (before !== view.lifecycle) this.publishSessionChanged(view);
        return;
      }
    }
    const view = this.views.get(frame.session);
    if (!view) {
      this.holdFrame(frame);
      return;
    }
    switch (frame.type) {
      case 'status': {
        const recordChanged = JSON.stringify(view.declared) !== JSON.stringify(frame.declared_status);
        view.declared = frame.declared_status;
        view.lastSignalAtMs = frame.last_status_signal_at_ms;
        view.capableAtMs = frame.program_status_capable_at_ms;
        view.lastActivityMs = now;
        this.reduce(view);
        const pane = this.model.paneBySession(view.session);
        if (recordChanged && pane) this.publish({ type: 'declared_changed', surface_id: pane.surface_id, session: view.session, declared: view.declared });
        this.maybePrefill(view);
        return;
      }
      case 'observation': {
        view.observation = frame.observation;
        view.lastRuntimeId = frame.last_runtime_id;
        view.foregroundCmd = frame.foreground_cmd;
        view.foregroundCwd = frame.foreground_cwd;
        // An exited session keeps the agent that was in front when it exited.
        if (view.lifecycle === 'live' || frame.observation) {
          view.agent = frame.observation
            ? view.agent && view.agent.pid === frame.observation.pid && view.agent.startedAt === frame.observation.pid_started_at
              ? view.agent
              : { runtimeId: frame.observation.id, pid: frame.observation.pid, startedAt: frame.observation.pid_started_at, startedAtMs: frame.observation.pid_started_at_ms, identifiedAtMs: now }
            : null;
        }
        this.reduce(view);
        this.publishSessionChanged(view);
        return;
      }
      case 'output':
        view.outputGeneration = frame.output_generation;
        view.lastActivityMs = now;
        this.surfaceChanged(view);
        this.maybePrefill(view);
        return;
      case 'title':
        view.title = frame.title;
        return;
    }
  }

  /**
   * A frame for a session serve has no view of yet — one it is creating, or one another client
   * created — waits, in order, until the view exists; nothing the host says is lost.
   */
  private holdFrame(frame: Extract<HostFrame, { session: string }>) {
    const held = this.heldFrames.get(frame.session);
    if (held) {
      held.push(frame);
      return;
    }
    this.heldFrames.set(frame.session, [frame]);
    if (this.creating.has(frame.session)) return;
    void this.host
      .request('session.inspect', { session: frame.session })
      .then((manifest) => {
        if (this.views.has(manifest.session) || this.creating.has(manifest.session)) return;
        const view = viewFromManifest(manifest, undefined);
        this.adopt(view, manifest);
        this.addView(view, manifest.frame_seq);
        this.model.changed();
      })
      .catch(() => this.heldFrames.delete(frame.session));
  }

  /**
   * A new view from a manifest, then the frames that came for it meanwhile — only those newer
   * than the manifest (`frame_seq`): every frame is absolute state, and an older one would undo it.
   */
  private addView(view: View, frameSeq: number) {
    this.views.set(view.session, view);
    this.reduce(view);
    const held = this.heldFrames.get(view.session) ?? [];
    this.heldFrames.delete(view.session);
    for (const frame of held) if (frame.seq > frameSeq) this.onHostFrame(frame);
  }

  private forget(session: string) {
    const view = this.views.get(session);
    if (view?.clockTimer) clearTimeout(view.clockTimer);
    this.views.delete(session);
    this.model.entries.delete(session);
  }

  /** Output frames come at most once per pane per 50 ms, always with the latest generation. */
  private surfaceChanged(view: View) {
    const pane = this.model.paneBySession(view.session);
    if (!pane || this.surfaceTimers.has(pane.surface_id)) return;
    const wait = Math.max(0, (this.surfaceSentAt.get(pane.surface_id) ?? 0) + SURFACE_CHANGED_MS - Date.now());
    const send = () => {
      this.surfaceTimers.delete(pane.surface_id);
      this.surfaceSentAt.set(pane.surface_id, Date.now());
      const current = this.views.get(view.session);
      if (current) this.publish({ type: 'surface_changed', surface_id: pane.surface_id, session: view.session, output_generation: current.outputGeneration });
    };
    if (wait === 0) send();
    else this.surfaceTimers.set(pane.surface_id, setTimeout(send, wait));
  }

  private publish(frame: Omit<Frame, 'at_ms'> & { at_ms?: number }) {
    this.events.publish({ at_ms: Date.now(), ...frame } as Frame);
  }

  // ---------------------------------------------------------------- reducing

  private reduce(view: View) {
    const now = Date.now();
    const config = this.config.current;
    const before = { ...view.entry, state: stateOf(view, config, now) };
    const { entry, notices } = reduceEntry(view.entry, {
      record: view.declared,
      running: view.lifecycle === 'live',
      agent: view.agent,
      lastSignalAtMs: view.lastSignalAtMs,
      hook: { notificationMessage: view.hook.notification_message, lastResult: view.hook.last_result },
      nowMs: now,
    });
    view.entry = entry;
    if (entry.status === 'attention' && before.status !== 'attention') view.attentionSinceMs = now;
    if (entry.status !== 'attention') view.attentionSinceMs = null;
    const state = stateOf(view, config, now);
    const pane = this.model.paneBySession(view.session);
    if (
      entry.stateSeq !== before.stateSeq ||
      entry.status !== before.status ||
      entry.reason !== before.reason ||
      entry.outcome !== before.outcome ||
      entry.unread !== before.unread ||
      state !== before.state
    ) {
      this.counters.status_changes++;
      if (pane) {
        this.publish({
          type: 'status_changed',
          surface_id: pane.surface_id,
          session: view.session,
          state_seq: entry.stateSeq,
          status: entry.status,
          state,
          reason: entry.reason,
          outcome: entry.outcome,
          unread: entry.unread,
        });
      }
      this.save(view);
    }
    for (const notice of notices) this.notify(view, pane, notice);
    this.scheduleClock(view, now);
  }

  private save(view: View) {
    const saved = this.model.entries.get(view.session);
    const { status, stateSeq, outcome, unread } = view.entry;
    if (saved && saved.status === status && saved.state_seq === stateSeq && saved.outcome === outcome && saved.unread === unread) return;
    this.model.entries.set(view.session, { status, state_seq: stateSeq, outcome, unread });
    this.model.changed();
  }

  /** The reason (detecting → no_signal) and the stalled state change with time alone. */
  private scheduleClock(view: View, now: number) {
    if (view.clockTimer) clearTimeout(view.clockTimer);
    view.clockTimer = null;
    const times: number[] = [];
    const reasonAt = nextReasonChangeMs(view.entry, view.agent);
    if (reasonAt !== null) times.push(reasonAt);
    const stall = this.config.current.agent_stall_threshold_secs;
    if (stall > 0 && view.entry.status === 'busy' && view.lastActivityMs !== null) {
      const stallAt = view.lastActivityMs + stall * 1000;
      if (stallAt > now) times.push(stallAt);
    }
    if (times.length === 0) return;
    view.clockTimer = setTimeout(() => {
      view.clockTimer = null;
      if (this.views.get(view.session) === view) this.reduce(view);
    }, Math.max(0, Math.min(...times) - now) + 1);
  }

  private notify(view: View, pane: PaneRecord | undefined, notice: Notice) {
    if (!pane || !view.agent) return;
    const key = `${view.session}:${notice.kind}`;
    const now = Date.now();
    if (now - (this.lastNotice.get(key) ?? 0) < NOTIFICATION_INTERVAL_MS) {
      this.counters.notifications_rate_limited++;
      return;
    }
    this.lastNotice.set(key, now);
    this.counters.notifications++;
    const title = pane.name ?? promptTitle(view.hook.prompt) ?? this.catalog.bySlug.get(view.agent.runtimeId)?.label ?? 'Agent';
    this.publish({ type: 'notification', surface_id: pane.surface_id, session: view.session, kind: notice.kind, title, body: notice.body });
  }

  private publishSessionChanged(view: View) {
    const pane = this.model.paneBySession(view.session);
    if (pane) this.publish({ type: 'session_changed', surface_id: pane.surface_id, session: view.session, row: this.row(view, pane) });
  }

  // ---------------------------------------------------------------- prompts (REFERENCE.md §5.2)

  private queuePrompt(session: string, text: string) {
    const timer = setTimeout(() => void this.prefill(session), PROMPT_DEADLINE_MS);
    this.prompts.set(session, { text, startedAt: Date.now(), timer });
  }

  private maybePrefill(view: View) {
    const prompt = this.prompts.get(view.session);
    if (!prompt) return;
    if (view.declared?.state === 'idle') {
      void this.prefill(view.session);
      return;
    }
    // Quiet for a second after it first printed something: ready for input.
    if (prompt.timer) clearTimeout(prompt.timer);
    const deadline = prompt.startedAt + PROMPT_DEADLINE_MS;
    prompt.timer = setTimeout(() => void this.prefill(view.session), Math.max(0, Math.min(PROMPT_QUIET_MS, deadline - Date.now())));
  }

  private async prefill(session: string) {
    const prompt = this.prompts.get(session);
    if (!prompt) return;
    this.prompts.delete(session);
    if (prompt.timer) clearTimeout(prompt.timer);
    const pane = this.model.paneBySession(session);
    if (pane) {
      pane.pending_prompt = null;
      this.model.changed();
    }
    // A bracketed paste, never submitted: the user reviews the prompt and presses Enter.
    const text = '\x1b[200~' + prompt.text.replaceAll('\x1b[200~', '').replaceAll('\x1b[201~', '') + '\x1b[201~';
    await this.host.request('session.input', { session, text, origin: 'automation' }).catch((error) => this.log(`prompt for ${session} not written: ${error.message}`));
  }

  // ---------------------------------------------------------------- panes and workspaces

  private pane(surfaceId: number): PaneRecord {
    const pane = this.model.panes.get(surfaceId);
    if (!pane) throw notFound(`surface ${surfaceId}`);
    return pane;
  }

  private view(pane: PaneRecord): View {
    const view = this.views.get(pane.session);
    if (!view) throw notFound(`session of surface ${pane.surface_id}`);
    return view;
  }

  private workspaceOf(pane: PaneRecord): WorkspaceRecord {
    return this.model.workspaces.find((w) => w.id === pane.workspace_id)!;
  }

  private activeWorkspace(): WorkspaceRecord | undefined {
    return this.model.workspaces[this.model.active];
  }

  private callerWorkspace(workspaceId: string | undefined): string | undefined {
    return workspaceId ?? this.activeWorkspace()?.id;
  }

  private checkName(name: string | null | undefined, except?: number) {
    if (!name) return;
    for (const pane of this.model.panes.values()) {
      if (pane.surface_id !== except && pane.name?.toLowerCase() === name.toLowerCase()) {
        throw invalid(`the name '${name}' is used by surface ${pane.surface_id}`, 'name_taken', 'name');
      }
    }
  }

  private checkCwd(cwd: string, field = 'cwd') {
    if (!existsSync(cwd) || !statSync(cwd).isDirectory()) throw invalid(`cwd ${cwd} is not a directory`, 'cwd_missing', field);
  }

  /** A new pane: its session in the host, its record in the model. */
  private async createPane(
    workspace: WorkspaceRecord,
    spec: { cwd: string; command?: string; agent?: string; env?: Record<string, string>; name?: string | null; prompt?: string; managed_worktree?: PaneRecord['managed_worktree'] },
  ): Promise<PaneRecord> {
    const runtime = spec.agent ? resolveAgent(this.catalog, spec.agent) : null;
    if (spec.agent && !runtime) throw invalid(`unknown agent '${spec.agent}'`, 'unknown_agent', 'agent');
    const surfaceId = this.model.nextSurfaceId++;
    const command = spec.command ?? runtime?.tool;
    // The id is chosen here so that the host's first frames for it, which may come before the
    // answer to session.create, wait for its view instead of being taken for a stranger's.
    const session = randomUUID();
    this.creating.add(session);
    try {
      await this.host.request('session.create', {
        session,
        workspace_id: workspace.id,
        surface_id: surfaceId,
        name: spec.name ?? null,
        cwd: spec.cwd,
        ...(command ? { command } : {}),
        env: { ...this.config.current.terminal_env, ...spec.env },
        ...(runtime && runtime.environment.strip_inherited.length > 0 ? { env_remove: runtime.environment.strip_inherited } : {}),
        cols: DEFAULT_COLS,
        rows: DEFAULT_ROWS,
      });
      const pane: PaneRecord = {
        surface_id: surfaceId,
        session,
        workspace_id: workspace.id,
        name: spec.name ?? null,
        cwd: spec.cwd,
        command: command ?? null,
        agent: runtime?.slug ?? null,
        pending_prompt: spec.prompt ?? null,
        managed_worktree: spec.managed_worktree ?? null,
      };
      this.model.panes.set(surfaceId, pane);
      const manifest = await this.host.request('session.inspect', { session });
      // Queued before the view exists: its held frames, replayed by addView, may already say idle.
      if (spec.prompt) this.queuePrompt(session, spec.prompt);
      const view = viewFromManifest(manifest, undefined);
      this.addView(view, manifest.frame_seq);
      if (spec.prompt && view.declared?.state === 'idle') void this.prefill(session);
      this.model.changed();
      this.publish({ type: 'surface_created', surface_id: surfaceId, session, workspace: this.model.workspaceIndex(workspace.id) });
      return pane;
    } finally {
      this.creating.delete(session);
      this.heldFrames.delete(session);
    }
  }

  private closePane(pane: PaneRecord, announce: boolean) {
    const workspace = this.workspaceOf(pane);
    const index = this.model.workspaceIndex(pane.workspace_id);
    this.model.panes.delete(pane.surface_id);
    if (workspace) {
      workspace.layout = removePane(workspace.layout, pane.surface_id);
      if (workspace.focus === pane.surface_id) workspace.focus = leaves(workspace.layout)[0] ?? null;
    }
    this.model.changed();
    if (announce) this.publish({ type: 'surface_closed', surface_id: pane.surface_id, session: pane.session, workspace: index });
  }

  private async stopAndRemove(session: string) {
    await this.host.request('session.stop', { session }, 15_000).catch(() => undefined);
    await this.host.request('session.remove', { session }).catch(() => undefined);
  }

  private newWorkspace(name: string): WorkspaceRecord {
    const workspace: WorkspaceRecord = { id: randomUUID(), name, layout: null, focus: null };
    this.model.workspaces.push(workspace);
    return workspace;
  }

  private workspaceRef(workspace: WorkspaceRecord) {
    return { index: this.model.workspaceIndex(workspace.id), id: workspace.id, name: workspace.name };
  }

  private selectWorkspace(index: number) {
    const changed = this.model.active !== index;
    this.model.active = index;
    this.model.changed();
    if (changed) {
      this.model.workspaces.forEach((w, i) => this.publish({ type: 'workspace_changed', index: i, id: w.id, active: i === index }));
    }
  }

  /** Writes to another workspace's panes, or with scope all, need orchestration (REFERENCE.md §2.4). */
  private checkScope(pane: PaneRecord, scope: 'workspace' | 'all' | undefined, workspaceId: string | undefined) {
    if (this.capabilities.orchestration) return;
    if (scope === 'all') throw new RpcError(ErrorCode.Permission, 'scope all requires PANEFLOW_IPC_ORCHESTRATION=1', { reason: 'outside_scope' });
    if (pane.workspace_id !== this.callerWorkspace(workspaceId)) {
      throw new RpcError(ErrorCode.Permission, `surface ${pane.surface_id} is outside the caller's workspace; requires PANEFLOW_IPC_ORCHESTRATION=1`, {
        reason: 'outside_scope',
      });
    }
  }

  private surfaceEntry(pane: PaneRecord) {
    const view = this.views.get(pane.session);
    return {
      surface_id: pane.surface_id,
      name: pane.name,
      title: view ? paneTitle(view, pane) : '',
      cwd: view?.foregroundCwd ?? pane.cwd,
      cmd: view?.foregroundCmd ?? pane.command ?? '',
      workspace: this.model.workspaceIndex(pane.workspace_id),
      workspace_id: pane.workspace_id,
      session: pane.session,
    };
  }

  private statusOf(pane: PaneRecord) {
    const view = this.view(pane);
    return statusObject(view, pane, this.model.workspaceIndex(pane.workspace_id), this.catalog, this.config.current, Date.now());
  }

  private row(view: View, pane: PaneRecord) {
    const processIdentity = view.process;
    const health =
      view.lifecycle === 'live' || view.lifecycle === 'starting'
        ? 'live'
        : view.lifecycle === 'lost' && processIdentity && isSameProcess(processIdentity.pid, processIdentity.started_at)
          ? 'non_resumable'
          : 'stopped';
    return {
      session: view.session,
      surface_id: pane.surface_id,
      generation: view.generation,
      workspace: this.model.workspaceIndex(pane.workspace_id),
      workspace_id: pane.workspace_id,
      title: paneTitle(view, pane),
      cwd: view.cwd,
      lifecycle: view.lifecycle,
      live: view.lifecycle === 'live',
      health: health as 'live' | 'stopped' | 'non_resumable',
      status: view.entry.status,
      state_seq: view.entry.stateSeq,
      activity_source: (view.agent && view.declared ? 'declared' : 'none') as 'declared' | 'none',
      outcome: view.entry.outcome,
      runtime_id: view.lastRuntimeId,
      foreground_runtime_id: view.lifecycle === 'live' ? (view.observation?.id ?? null) : null,
      declared_status: view.declared,
      capable: view.capableAtMs !== null,
      unread: view.entry.unread,
      hook_revision: view.hook.revision,
      provider_session_id: view.hook.provider_session_id,
      transcript_path: view.hook.transcript_path,
      host_protocol: view.hostProtocol,
      host_build_id: view.hostBuildId,
      updated_at_ms: view.updatedAtMs,
    };
  }

  private orderedPanes(): PaneRecord[] {
    return this.model.workspaces.flatMap((w) => this.model.workspacePanes(w.id));
  }

  private ack(view: View) {
    if (!view.entry.unread) return;
    view.entry = { ...view.entry, unread: false };
    const pane = this.model.paneBySession(view.session);
    if (pane) {
      this.publish({
        type: 'status_changed',
        surface_id: pane.surface_id,
        session: view.session,
        state_seq: view.entry.stateSeq,
        status: view.entry.status,
        state: stateOf(view, this.config.current, Date.now()),
        reason: view.entry.reason,
        outcome: view.entry.outcome,
        unread: false,
      });
    }
    this.save(view);
  }

  // ---------------------------------------------------------------- hooks (metadata only)

  private acceptHook(method: string, params: Params<'ai.stop'>) {
    const view = this.views.get(params.session);
    if (!view) return { accepted: false, reason: 'unknown_session' };
    if (!HOOK_TOOLS.has(params.tool)) return { accepted: false, reason: 'unknown_tool' };
    const pid = params.pid ?? null;
    const hook = view.hook;
    if (params.emitted_at_ms < view.generationStartedAtMs || (pid === hook.pid && hook.last_hook && params.emitted_at_ms < hook.last_hook.emitted_at_ms)) {
      return { accepted: false, reason: 'stale' };
    }
    const payload = params.payload as Record<string, unknown>;
    const text = (key: string) => (typeof payload[key] === 'string' ? (payload[key] as string) : null);
    hook.revision++;
    hook.pid = pid ?? view.agent?.pid ?? null;
    hook.last_hook = { method, emitted_at_ms: params.emitted_at_ms };
    hook.provider_session_id = text('session_id') ?? hook.provider_session_id;
    hook.transcript_path = text('transcript_path') ?? hook.transcript_path;
    switch (method) {
      case 'ai.prompt_submit':
        hook.prompt = text('prompt');
        break;
      case 'ai.tool_use':
        hook.active_tool_name = payload.phase === 'pre' ? text('tool_name') : null;
        break;
      case 'ai.notification':
        hook.notification_message = text('message') ?? hook.notification_message;
        break;
      case 'ai.stop':
        hook.last_result = text('last_result') ?? hook.last_result;
        hook.active_tool_name = null;
        break;
      case 'ai.session_end':
      case 'ai.exit':
        hook.active_tool_name = null;
        break;
    }
    // The host keeps it in the manifest, for the next serve; losing that write loses no state.
    this.host
      .request('agent.event', { session: view.session, generation: view.generation, hook: { ...hook } })
      .catch((error: Error) => this.log(`agent.event ${view.session}: ${error.message}`));
    const pane = this.model.paneBySession(view.session);
    this.publish({ type: method, surface_id: pane?.surface_id, session: view.session, tool: params.tool, payload });
    if (method === 'ai.prompt_submit' && pane && !pane.name) this.publishSessionChanged(view);
    return { accepted: true };
  }

  // ---------------------------------------------------------------- methods

  private handlers(): Handlers<PublicMethods> {
    const hook = (method: string) => (params: Params<'ai.stop'>) => this.acceptHook(method, params);
    return {
      'system.ping': () => ({ pong: true as const }),
      'system.capabilities': () => {
        const { scripting, orchestration } = this.capabilities;
        const aiUnrestricted = this.config.current.ai_unrestricted;
        const methods = Object.keys(PublicMethods).filter(
          (m) => (m !== 'surface.send_text' || scripting || aiUnrestricted) && (m !== 'surface.send_keystroke' || scripting) && (m !== 'workspace.up' || scripting || orchestration),
        );
        return { scripting, orchestration, ai_unrestricted: aiUnrestricted, methods };
      },
      'system.identify': () => ({ name: 'paneflow-serve' as const, version: this.buildId, protocol: PUBLIC_PROTOCOL_VERSION }),
      'system.counters': () => ({ counters: { ...this.counters, subscribers: this.events.count, dropped_frames: this.events.droppedFrames, sessions: this.views.size } }),
      'serve.status': () => ({
        pid: process.pid,
        protocol: PUBLIC_PROTOCOL_VERSION,
        home: this.endpoints.home,
        build_id: this.buildId,
        sessions: this.views.size,
        capabilities: { ...this.capabilities, ai_unrestricted: this.config.current.ai_unrestricted },
        presentation: { reduce_motion: this.config.current.reduce_motion },
      }),
      'serve.shutdown': ({ drain_ms }) => {
        setImmediate(() => void this.shutdown(drain_ms ?? 5000));
        return {};
      },
      'workspace.list': () => ({
        workspaces: this.model.workspaces.map((w, index) => ({
          index,
          id: w.id,
          name: w.name,
          active: index === this.model.active,
          surfaces: this.model.workspacePanes(w.id).map((p) => p.surface_id),
          layout: w.layout,
          focus: w.focus,
        })),
      }),
      'workspace.current': () => {
        const workspace = this.activeWorkspace();
        if (!workspace) throw notFound('workspace');
        return this.workspaceRef(workspace);
      },
      'workspace.create': async ({ name, cwd, layout }) => {
        const dir = cwd ?? process.env.HOME ?? '/';
        this.checkCwd(dir);
        const workspace = this.newWorkspace(name ?? `Workspace ${this.model.workspaces.length + 1}`);
        try {
          const pane = await this.createPane(workspace, { cwd: dir });
          workspace.layout = presetLayout((layout ?? 'even_h') as LayoutName, [pane.surface_id]);
          workspace.focus = pane.surface_id;
          this.selectWorkspace(this.model.workspaceIndex(workspace.id));
          return { ...this.workspaceRef(workspace), surface_id: pane.surface_id };
        } catch (error) {
          this.model.workspaces = this.model.workspaces.filter((w) => w !== workspace);
          throw error;
        }
      },
      'workspace.select': ({ index }) => {
        const workspace = this.model.workspaces[index];
        if (!workspace) throw invalid(`no workspace at index ${index}; there are ${this.model.workspaces.length}`, 'index_out_of_range', 'index');
        this.selectWorkspace(index);
        return { index, id: workspace.id };
      },
      'workspace.close': async ({ index }) => {
        const at = index ?? this.model.active;
        const workspace = this.model.workspaces[at];
        if (!workspace) throw invalid(`no workspace at index ${at}`, 'index_out_of_range', 'index');
        const panes = this.model.workspacePanes(workspace.id);
        await Promise.all(panes.map((p) => this.stopAndRemove(p.session)));
        for (const pane of panes) {
          this.forget(pane.session);
          this.closePane(pane, true);
        }
        for (const pane of panes) {
          const worktree = pane.managed_worktree;
          if (!worktree) continue;
          const inUse = [...this.model.panes.values()].some((p) => {
            const view = this.views.get(p.session);
            const cwd = view?.foregroundCwd ?? p.cwd;
            return view?.lifecycle === 'live' && (cwd === worktree.path || cwd.startsWith(worktree.path + '/'));
          });
          this.log(`worktree ${worktree.path}: ${teardownWorktree(worktree, inUse)}`);
        }
        this.model.workspaces.splice(at, 1);
        if (this.model.active >= this.model.workspaces.length) this.model.active = Math.max(0, this.model.workspaces.length - 1);
        this.model.changed();
        this.publish({ type: 'workspace_changed', index: at, id: workspace.id, active: false });
        return { closed: at };
      },
      'workspace.up': async ({ name, layout, panes }) => {
        if (!this.capabilities.orchestration && !this.capabilities.scripting) throw disabled('workspace.up', 'PANEFLOW_IPC_ORCHESTRATION');
        const problems: string[] = [];
        const names = new Set<string>();
        panes.forEach((p, i) => {
          if (p.command && p.agent) problems.push(`pane ${i + 1}: agent and command are exclusive`);
          if (p.agent && !resolveAgent(this.catalog, p.agent)) problems.push(`pane ${i + 1}: unknown agent '${p.agent}'`);
          if (p.prompt !== undefined && !p.agent) problems.push(`pane ${i + 1}: prompt requires agent`);
          if (!existsSync(p.cwd)) problems.push(`pane ${i + 1}: cwd ${p.cwd} does not exist`);
          if (p.name) {
            if (names.has(p.name.toLowerCase())) problems.push(`pane ${i + 1}: the name '${p.name}' is used twice`);
            names.add(p.name.toLowerCase());
            try {
              this.checkName(p.name);
            } catch (error) {
              problems.push(`pane ${i + 1}: ${(error as Error).message}`);
            }
          }
        });
        if (panes.filter((p) => p.focus).length > 1) problems.push('at most one pane may have focus');
        if (problems.length > 0) throw invalid(problems.join('; '), 'invalid_spec');
        const workspace = this.newWorkspace(name);
        const created: PaneRecord[] = [];
        try {
          for (const p of panes) {
            created.push(await this.createPane(workspace, { cwd: p.cwd, command: p.command, agent: p.agent, env: p.env, name: p.name ?? null, prompt: p.prompt, managed_worktree: p.managed_worktree ?? null }));
          }
        } catch (error) {
          await Promise.all(created.map((p) => this.stopAndRemove(p.session)));
          for (const p of created) this.closePane(p, true);
          this.model.workspaces = this.model.workspaces.filter((w) => w !== workspace);
          throw error;
        }
        workspace.layout = presetLayout(layout, created.map((p) => p.surface_id));
        workspace.focus = created[Math.max(0, panes.findIndex((p) => p.focus))].surface_id;
        this.selectWorkspace(this.model.workspaceIndex(workspace.id));
        return {
          workspace: this.workspaceRef(workspace),
          surfaces: created.map((p) => ({ name: p.name, surface_id: p.surface_id, session: p.session })),
        };
      },
      'workspace.restore_layout': ({ layout }) => {
        const ids = leaves(layout as LayoutNode);
        const first = this.model.panes.get(ids[0]);
        if (!first) throw invalid(`surface ${ids[0]} does not exist`, 'layout_mismatch', 'layout');
        const workspace = this.workspaceOf(first);
        const expected = this.model.workspacePanes(workspace.id).map((p) => p.surface_id).sort((a, b) => a - b);
        if (JSON.stringify([...ids].sort((a, b) => a - b)) !== JSON.stringify(expected)) {
          throw invalid(`the layout must hold exactly the panes of workspace ${this.model.workspaceIndex(workspace.id)}: ${expected.join(', ')}`, 'layout_mismatch', 'layout');
        }
        workspace.layout = layout as LayoutNode;
        this.model.changed();
        const index = this.model.workspaceIndex(workspace.id);
        this.publish({ type: 'workspace_changed', index, id: workspace.id, active: index === this.model.active });
        return {};
      },
      'surface.list': ({ scope, workspace_id }) => {
        const within = scope === 'all' ? null : this.callerWorkspace(workspace_id);
        return { surfaces: this.orderedPanes().filter((p) => within === null || p.workspace_id === within).map((p) => this.surfaceEntry(p)) };
      },
      'surface.read': async ({ surface_id, lines, offset, fenced, scope }) => {
        const pane = this.pane(surface_id);
        const result = await this.host.request('session.read', { session: pane.session, lines: lines ?? READ_LINES_DEFAULT, offset: offset ?? 0 });
        if (!(fenced ?? this.config.current.ai_injection_fence)) return result;
        return { ...result, text: fence(result.text, { source: 'surface.read', scope: scope ?? 'all', total_lines: result.total_lines, eof: result.eof }) };
      },
      'surface.search': async ({ surface_id, pattern, max_matches }) => {
        const pane = this.pane(surface_id);
        return this.host.request('session.search', { session: pane.session, pattern, max_matches });
      },
      'surface.rename': ({ surface_id, name }) => {
        const pane = this.pane(surface_id);
        const next = name ? name : null;
        this.checkName(next, surface_id);
        pane.name = next;
        this.model.changed();
        return { surface_id, name: next };
      },
      'surface.focus': ({ surface_id }) => {
        const pane = this.pane(surface_id);
        const workspace = this.workspaceOf(pane);
        workspace.focus = surface_id;
        const index = this.model.workspaceIndex(workspace.id);
        this.selectWorkspace(index);
        this.publish({ type: 'focus_changed', surface_id, session: pane.session, workspace: index });
        return { surface_id, workspace: index };
      },
      'surface.status': ({ surface_id }) => {
        const pane = this.pane(surface_id);
        return { ...this.statusOf(pane), output_generation: this.view(pane).outputGeneration };
      },
      'surface.send_text': async ({ surface_id, text, submit, paste, scope, workspace_id }) => {
        if (!this.capabilities.scripting && !this.config.current.ai_unrestricted) throw disabled('surface.send_text', 'PANEFLOW_IPC_SCRIPTING');
        const pane = this.pane(surface_id);
        this.checkScope(pane, scope, workspace_id);
        const bytes = Buffer.byteLength(text);
        if (bytes > MAX_TEXT_BYTES) throw invalid(`text of ${bytes} bytes is over ${MAX_TEXT_BYTES}`, 'text_too_long', 'text');
        const view = this.view(pane);
        const agentTarget = view.agent !== null && view.lifecycle === 'live';
        const usePaste = paste ?? agentTarget;
        const modes = await this.host.request('session.modes', { session: pane.session });
        const wrapped = usePaste && modes.bracketed_paste;
        if (!wrapped && /[\r\n]/.test(text)) {
          throw invalid('text holds CR or LF and is not sent as a bracketed paste', 'raw_newline', 'text');
        }
        const payload = wrapped ? '\x1b[200~' + text.replaceAll('\x1b[200~', '').replaceAll('\x1b[201~', '') + '\x1b[201~' : text;
        const deferred = !!submit && usePaste;
        await this.host.request('session.input', { session: pane.session, text: deferred || !submit ? payload : payload + '\r', origin: 'automation' });
        if (deferred) {
          await new Promise((resolve) => setTimeout(resolve, this.config.current.submit_paste_delay_ms));
          await this.host.request('session.input', { session: pane.session, text: '\r', origin: 'automation' });
        }
        return {
          surface_id,
          sent: true,
          submitted: !!submit,
          agent_target: agentTarget,
          paste: usePaste,
          submit_mode: submit ? (deferred ? ('deferred_paste_cr' as const) : ('inline_cr' as const)) : null,
          terminal_bracketed_paste: modes.bracketed_paste,
          state_seq: view.entry.stateSeq,
        };
      },
      'surface.send_keystroke': async ({ surface_id, keystroke, scope, workspace_id }) => {
        if (!this.capabilities.scripting) throw disabled('surface.send_keystroke', 'PANEFLOW_IPC_SCRIPTING');
        const pane = this.pane(surface_id);
        this.checkScope(pane, scope, workspace_id);
        const modes = await this.host.request('session.modes', { session: pane.session });
        let bytes: string;
        try {
          bytes = keystrokeBytes(keystroke, modes.application_cursor_keys);
        } catch (error) {
          if (error instanceof KeystrokeError) throw invalid(error.message, 'refused_keystroke', 'keystroke');
          throw error;
        }
        await this.host.request('session.input', { session: pane.session, text: bytes, origin: 'automation' });
        return { sent: true as const };
      },
      'surface.split': async ({ direction, surface_id, cwd, command, agent, prompt, env, name, managed_worktree }) => {
        if ((command || agent || prompt !== undefined || env || managed_worktree) && !this.capabilities.orchestration && !this.capabilities.scripting) {
          throw disabled('surface.split', 'PANEFLOW_IPC_ORCHESTRATION');
        }
        if (command && agent) throw invalid('agent and command are exclusive', 'agent_and_command', 'agent');
        if (prompt !== undefined && !agent) throw invalid('prompt requires agent', 'prompt_without_agent', 'prompt');
        const active = this.activeWorkspace();
        const targetId = surface_id ?? active?.focus ?? leaves(active?.layout ?? null)[0];
        if (targetId === undefined || targetId === null) throw notFound('a pane to split');
        const target = this.pane(targetId);
        const workspace = this.workspaceOf(target);
        this.checkName(name);
        const dir = cwd ?? this.views.get(target.session)?.foregroundCwd ?? target.cwd;
        this.checkCwd(dir);
        const pane = await this.createPane(workspace, { cwd: dir, command, agent, env, name, prompt, managed_worktree: managed_worktree ?? null });
        workspace.layout = splitPane(workspace.layout, target.surface_id, pane.surface_id, direction.startsWith('h') ? 'h' : 'v');
        workspace.focus = pane.surface_id;
        this.model.changed();
        const index = this.model.workspaceIndex(workspace.id);
        this.publish({ type: 'workspace_changed', index, id: workspace.id, active: index === this.model.active });
        return { surface_id: pane.surface_id, session: pane.session };
      },
      'fleet.list': () => ({
        agents: this.orderedPanes()
          .filter((p) => this.views.get(p.session)?.agent)
          .map((p) => this.statusOf(p)),
      }),
      'session.list': () => ({
        sessions: this.orderedPanes()
          .filter((p) => this.views.has(p.session))
          .map((p) => this.row(this.views.get(p.session)!, p)),
      }),
      'session.ack': ({ sessions }) => {
        const acked = sessions.filter((s) => this.views.has(s));
        for (const session of acked) this.ack(this.views.get(session)!);
        return { acked };
      },
      'events.subscribe': ({ surfaces, types }, { connection }) =>
        new StreamReply({ type: 'subscribed' as const, surfaces: surfaces ?? null, types: types ?? null }, () => {
          this.events.subscribe(connection, surfaces ?? null, types ?? null);
        }),
      'ai.session_start': hook('ai.session_start'),
      'ai.session_end': hook('ai.session_end'),
      'ai.prompt_submit': hook('ai.prompt_submit'),
      'ai.tool_use': hook('ai.tool_use'),
      'ai.notification': hook('ai.notification'),
      'ai.stop': hook('ai.stop'),
      'ai.subagent': hook('ai.subagent'),
      'ai.exit': hook('ai.exit'),
    };
  }

  /** Stops taking connections, lets requests and subscriber queues drain, then exits. */
  async shutdown(drainMs: number): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    const closing = this.server.close(false);
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, drainMs))]);
    this.events.closeAll();
    this.model.saveNow();
    this.host.close();
    this.onShutdown();
  }
}

