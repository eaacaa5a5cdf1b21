import { hostSecretPath, prepareRuntimeDir, writeTextAtomic, type Endpoints } from '@paneflow/instance';
import { ErrorCode, SESSION_SCROLLBACK_DEFAULT, HOST_CONNECTION_QUEUE, HOST_CONTROL_FRAME_BYTES, HOST_DATA_FRAME_BYTES, HOST_PROTOCOL_VERSION, HostMethods, PANE_TERMINAL_ENV, REQUEST_DEADLINE_MS, RpcError, type HostFrame, type Manifest, type ParamsOf, type ResumeRecord, type UnnumberedHostFrame } from '@paneflow/protocol';
import { bootId } from '@paneflow/proc';
import { RpcServer, type Handlers } from '@paneflow/rpc';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Follower } from './follower';
import { ManifestStore } from './manifests';
import type { RestartPlan } from './resume';
import { SavedScreens } from './saved-screens';
import type { TerminalPool } from './terminals';
import { Session, type SessionListener } from './session';

/**
 * The host: owns every PTY of a home, keeps each session's terminal and records whether or not a
 * client is attached, answers on `host.sock`, and pushes every change to its followers at once.
 */
export class Host {
  readonly instance = randomUUID();
  /** What a client must show in `host.hello`: only someone who can read the home knows it. */
  readonly secret = randomBytes(32).toString('hex');
  readonly sessions = new Map<string, Session>();
  readonly followers = new Set<Follower>();
  readonly manifests: ManifestStore;
  readonly screens: SavedScreens;
  readonly counters: Record<string, number> = { sessions_created: 0, follower_resyncs: 0, follower_collapses: 0 };
  shuttingDown = false;
  onShutdown: () => void = () => undefined;
  /** Frames sent so far, to every follower. */
  private frameSeq = 0;
  private readonly pendingAnnouncements = new Map<string, Set<'status' | 'output'>>();
  private server: RpcServer<HostMethods> | null = null;

  constructor(
    readonly endpoints: Endpoints,
    readonly buildId: string,
    readonly terminals: TerminalPool,
    private readonly log: (message: string) => void,
  ) {
    const sessionsDir = join(endpoints.home, 'host', 'sessions');
    const isCurrent = (session: Session) => this.sessions.get(session.id) === session;
    this.manifests = new ManifestStore(sessionsDir, isCurrent, log);
    this.screens = new SavedScreens(sessionsDir, isCurrent, log);
  }

  /** Adopts an earlier host's manifests, then answers on `host.sock` with these methods (host-methods.ts). */
  async start(handlers: Handlers<HostMethods>): Promise<void> {
    // Read before the server replaces it: a socket left behind means its host died, not the machine.
    this.manifests.adopt({ bootId: bootId(), hostSocketLeft: existsSync(this.endpoints.hostSocket) });
    this.screens.adopt(new Set(this.manifests.inherited.keys()));
    // Before the socket exists: a client that reaches this host can always read its secret.
    writeTextAtomic(hostSecretPath(this.endpoints.home), this.secret, 0o600);
    this.server = new RpcServer<HostMethods>({
      methods: HostMethods,
      handlers,
      mode: 'multi',
      first: 'host.hello',
      lineDeadlineMs: REQUEST_DEADLINE_MS,
      maxLineBytes: HOST_DATA_FRAME_BYTES,
      maxControlBytes: HOST_CONTROL_FRAME_BYTES,
      dataMethods: ['session.input'],
      maxPending: HOST_CONNECTION_QUEUE,
      log: this.log,
    });
    const { endpoints } = this;
    await this.server.listen(endpoints.hostSocket, { prepare: () => prepareRuntimeDir(endpoints) });
  }

  private listener(): SessionListener {
    return {
      status: (session) => {
        this.announce(session, 'status');
        this.manifests.schedule(session, false);
      },
      output: (session) => {
        this.announce(session, 'output');
        this.screens.changed(session);
      },
      title: (session) => {
        this.broadcast({ type: 'title', at_ms: Date.now(), session: session.id, title: session.title });
        this.manifests.schedule(session, false);
      },
      observation: (session) => {
        this.broadcast({
          type: 'observation',
          at_ms: Date.now(),
          session: session.id,
          observation: session.foreground.observation,
          last_runtime_id: session.foreground.lastRuntimeId,
          foreground_cmd: session.foreground.cmd,
          foreground_cwd: session.foreground.cwd,
        });
        this.manifests.schedule(session, false);
      },
      resume: (session) => {
        this.broadcast({ type: 'resume', at_ms: Date.now(), session: session.id, resume: session.resume.record, restart: session.resume.restart });
        // Rare and precious: written at once, so a host killed right after still has it.
        this.manifests.schedule(session, true);
      },
      lifecycle: (session) => {
        this.flushAnnouncements(session.id);
        this.broadcast({
          type: 'lifecycle',
          at_ms: Date.now(),
          session: session.id,
          generation: session.generation,
          lifecycle: session.lifecycle,
          exit_code: session.exitCode,
          pid: session.pid,
        });
        this.manifests.schedule(session, true);
        if (session.lifecycle === 'exited') void this.screens.saveNow(session);
      },
    };
  }

  /**
   * Status and output changes go out once the current burst has been handled (one status frame
   * for the hundred reports of one read, not a hundred), never later than the next turn of the
   * event loop: no timer stands between a change and its frame.
   */
  private announce(session: Session, what: 'status' | 'output') {
    let pending = this.pendingAnnouncements.get(session.id);
    if (!pending) {
      pending = new Set();
      this.pendingAnnouncements.set(session.id, pending);
      setImmediate(() => this.flushAnnouncements(session.id));
    }
    pending.add(what);
  }

  private flushAnnouncements(id: string) {
    const pending = this.pendingAnnouncements.get(id);
    const session = this.sessions.get(id);
    this.pendingAnnouncements.delete(id);
    if (!pending || !session) return;
    if (pending.has('status')) {
      const { seq: _unnumbered, ...frame } = this.statusFrame(id) as Extract<HostFrame, { type: 'status' }>;
      this.broadcast(frame);
    }
    if (pending.has('output')) this.broadcast({ type: 'output', at_ms: Date.now(), session: id, output_generation: session.outputGeneration });
  }

  broadcast(unnumbered: UnnumberedHostFrame): void {
    const frame = { ...unnumbered, seq: ++this.frameSeq } as HostFrame;
    for (const follower of this.followers) {
      if (follower.closed) {
        this.followers.delete(follower);
        continue;
      }
      const { resyncs, collapses } = follower;
      follower.push(frame);
      this.counters.follower_resyncs += follower.resyncs - resyncs;
      this.counters.follower_collapses += follower.collapses - collapses;
    }
  }

  /** How many frames have gone out: a manifest answered now reflects exactly those. */
  get sentFrames(): number {
    return this.frameSeq;
  }

  /** A session's records now, numbered as of the last frame sent (a follower's resync). */
  statusFrame(id: string): HostFrame | null {
    const session = this.sessions.get(id);
    if (!session) return null;
    const state = session.state();
    return {
      type: 'status',
      at_ms: Date.now(),
      seq: this.frameSeq,
      session: id,
      generation: session.generation,
      records: state.records,
      declared_status: state.declared_status,
      program_status_capable_at_ms: state.program_status_capable_at_ms,
      last_status_signal_at_ms: state.last_status_signal_at_ms,
      typed: state.typed,
    };
  }

  snapshotFrame(): HostFrame {
    return { type: 'snapshot', at_ms: Date.now(), seq: this.frameSeq, sessions: [...this.sessions.values()].map((s) => s.state()) };
  }

  /** Every session's manifest, the inherited ones too, oldest first. */
  allManifests(): Manifest[] {
    return [...this.manifests.inherited.values(), ...[...this.sessions.values()].map((s) => s.manifest())].sort((a, b) => a.created_at_ms - b.created_at_ms);
  }

  find(id: string): Session {
    const session = this.sessions.get(id);
    if (!session) throw new RpcError(ErrorCode.NotFound, `no session ${id}`, { reason: 'session_not_found' });
    return session;
  }

  hello() {
    return { protocol: HOST_PROTOCOL_VERSION, build_id: this.buildId, instance: this.instance, home: this.endpoints.home };
  }

  /**
   * A new session, or with `carried` the next generation of one: its resume record, the
   * restart plan whose program runs instead of the recorded launch, and what it shows first as
   * history (a lost session's saved screen).
   */
  create(
    params: ParamsOf<HostMethods, 'session.create'>,
    generation = 1,
    id = params.session ?? randomUUID(),
    carried?: { resume: ResumeRecord | null; plan: RestartPlan; history: string | null },
  ): Session {
    this.refuseIfShuttingDown();
    if (this.sessions.has(id) || this.manifests.inherited.has(id)) {
      throw new RpcError(ErrorCode.InvalidParams, `session ${id} exists already`, { reason: 'session_exists', field: 'session' });
    }
    if (params.command !== undefined && params.argv !== undefined) {
      throw new RpcError(ErrorCode.InvalidParams, 'give command or argv, not both', { reason: 'command_and_argv', field: 'argv' });
    }
    if (!existsSync(params.cwd) || !statSync(params.cwd).isDirectory()) {
      throw new RpcError(ErrorCode.InvalidParams, `cwd ${params.cwd} is not a directory`, { reason: 'cwd_missing', field: 'cwd' });
    }
    const shell = process.env.SHELL || '/bin/sh';
    const [program, ...args] = params.argv ?? (params.command !== undefined ? [shell, '-c', params.command] : [shell, '-l']);
    const session = new Session(
      {
        session: id,
        generation,
        workspaceId: params.workspace_id,
        surfaceId: params.surface_id,
        name: params.name ?? null,
        cwd: params.cwd,
        launch: { shell: program, args, env: params.env, env_remove: params.env_remove, cols: params.cols, rows: params.rows },
        scrollback: params.scrollback ?? SESSION_SCROLLBACK_DEFAULT,
        createdAtMs: Date.now(),
        resume: carried?.resume ?? null,
        restart: carried?.plan.restart ?? null,
        ...(carried ? { run: { program: carried.plan.program, args: carried.plan.args } } : {}),
      },
      { instance: this.instance, buildId: this.buildId, listener: this.listener(), terminals: this.terminals, log: this.log },
    );
    this.sessions.set(id, session);
    this.counters.sessions_created++;
    if (carried?.history) session.showHistory(carried.history);
    session.start(this.environment(session));
    return session;
  }

  /** The host's own environment, the pane's variables over it, then the pane's identity (REFERENCE.md §1.2). */
  private environment(session: Session): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    for (const key of session.spec.launch.env_remove ?? []) delete env[key];
    Object.assign(env, session.spec.launch.env, {
      ...PANE_TERMINAL_ENV,
      PANEFLOW_HOME: this.endpoints.home,
      PANEFLOW_SESSION_ID: session.id,
      PANEFLOW_SURFACE_ID: String(session.spec.surfaceId),
      PANEFLOW_WORKSPACE_ID: session.spec.workspaceId,
      PANEFLOW_SOCKET_PATH: this.endpoints.publicSocket,
    });
    // The host's socket is for Paneflow's own processes, not for what runs in a pane.
    delete env.PANEFLOW_HOST_ENDPOINT;
    return env;
  }

  /** Forgets a session that is over: its terminal, its manifest, and followers are told. */
  remove(id: string): void {
    this.sessions.get(id)?.dispose();
    this.sessions.delete(id);
    this.manifests.remove(id);
    this.screens.forget(id);
    // Serve's subagent markers (REFERENCE.md §1.1) go with the session.
    rmSync(join(this.endpoints.home, 'host', 'session-data', id), { recursive: true, force: true });
    this.broadcast({ type: 'removed', at_ms: Date.now(), session: id });
  }

  /** Once the host has begun to stop, no session is made or started again. */
  refuseIfShuttingDown(): void {
    if (this.shuttingDown) throw new RpcError(ErrorCode.HostUnavailable, 'the host is shutting down', { reason: 'host_shutting_down' });
  }

  /** Stops every live session, refusing new ones from here on: what a forced stop and SIGTERM do first. */
  async stopSessions(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.sessions.values()].filter((s) => s.lifecycle === 'live').map((s) => s.stop()));
  }

  /** Writes every pending manifest and closes the socket; sessions must be over already. */
  async shutdown(): Promise<void> {
    await this.manifests.flush(this.sessions.values());
    await this.server?.close();
    for (const session of this.sessions.values()) session.dispose();
    this.onShutdown();
  }
}
