import {
  CHECKPOINT_SCROLLBACK_MAX,
  ErrorCode,
  HOST_PROTOCOL_VERSION,
  HostMethods,
  isSameProcess,
  readJson,
  RpcError,
  RpcServer,
  StreamReply,
  writeJsonAtomic,
  type Endpoints,
  type HostFrame,
  type UnnumberedHostFrame,
  type Handlers,
  type Manifest,
} from '@paneflow/rpc';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Follower } from './follower';
import { followOutput } from './output';
import { DEFAULT_SCROLLBACK, Session, type SessionContext, type SessionListener } from './session';
import { stopTree } from '@paneflow/procscan';

/** Manifests are written at most this often per session while only records change. */
const MANIFEST_COALESCE_MS = 50;

interface Counters {
  [name: string]: number;
}

/**
 * The host: owns every PTY of a home, keeps each session's terminal and records whether or not a
 * client is attached, answers on `host.sock`, and pushes every change to its followers at once.
 */
export class Host {
  readonly instance = randomUUID();
  private readonly sessions = new Map<string, Session>();
  /** Sessions this host did not start (an earlier host's), known from their manifests. */
  private readonly inherited = new Map<string, Manifest>();
  private readonly followers = new Set<Follower>();
  private readonly manifestTimers = new Map<string, NodeJS.Timeout>();
  private readonly lastManifestWrite = new Map<string, number>();
  private readonly pendingAnnouncements = new Map<string, Set<'status' | 'output'>>();
  /** Frames sent so far, to every follower. */
  private frameSeq = 0;
  private readonly counters: Counters = { sessions_created: 0, follower_resyncs: 0, follower_collapses: 0, manifests_written: 0 };
  private readonly server: RpcServer<HostMethods>;
  private readonly sessionsDir: string;
  private shuttingDown = false;
  onShutdown: () => void = () => undefined;

  constructor(
    private readonly endpoints: Endpoints,
    private readonly buildId: string,
    private readonly log: (message: string) => void,
  ) {
    this.sessionsDir = join(endpoints.home, 'host', 'sessions');
    this.server = new RpcServer<HostMethods>({
      methods: HostMethods,
      handlers: this.handlers(),
      mode: 'multi',
      first: 'host.hello',
      lineDeadlineMs: 10_000,
      log,
    });
  }

  async start(): Promise<void> {
    mkdirSync(this.sessionsDir, { recursive: true, mode: 0o700 });
    this.adoptManifests();
    await this.server.listen(this.endpoints.hostSocket);
  }

  /** Sessions of an earlier host: kept for their records and final screen, marked lost if they were running. */
  private adoptManifests() {
    for (const name of readdirSync(this.sessionsDir)) {
      if (!name.endsWith('.json')) continue;
      const path = join(this.sessionsDir, name);
      let manifest: Manifest | undefined;
      try {
        manifest = readJson<Manifest>(path);
      } catch (error) {
        this.log(`unreadable manifest ${name}: ${(error as Error).message}; moved aside`);
        renameSync(path, `${path}.unreadable`);
        continue;
      }
      if (!manifest) continue;
      if (manifest.lifecycle === 'live' || manifest.lifecycle === 'starting') {
        manifest = { ...manifest, lifecycle: 'lost', updated_at_ms: Date.now() };
        writeJsonAtomic(path, manifest);
      }
      this.inherited.set(manifest.session, manifest);
    }
    for (const name of readdirSync(this.sessionsDir)) {
      if (name.endsWith('.tmp')) rmSync(join(this.sessionsDir, name), { force: true });
    }
  }

  private listener(): SessionListener {
    return {
      status: (session) => {
        this.announce(session, 'status');
        this.scheduleManifest(session, false);
      },
      output: (session) => this.announce(session, 'output'),
      title: (session) => {
        this.broadcast({ type: 'title', at_ms: Date.now(), session: session.id, title: session.title });
        this.scheduleManifest(session, false);
      },
      observation: (session) => {
        this.broadcast({
          type: 'observation',
          at_ms: Date.now(),
          session: session.id,
          observation: session.observation,
          last_runtime_id: session.lastRuntimeId,
          foreground_cmd: session.foregroundCmd,
          foreground_cwd: session.foregroundCwd,
        });
        this.scheduleManifest(session, false);
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
        this.scheduleManifest(session, true);
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
    if (pending.has('output')) {
      this.broadcast({ type: 'output', at_ms: Date.now(), session: id, output_generation: session.outputGeneration });
    }
  }

  private context(): SessionContext {
    return {
      instance: this.instance,
      buildId: this.buildId,
      home: this.endpoints.home,
      publicSocket: this.endpoints.publicSocket,
      hostSocket: this.endpoints.hostSocket,
      listener: this.listener(),
      log: this.log,
    };
  }

  private broadcast(unnumbered: UnnumberedHostFrame) {
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

  private scheduleManifest(session: Session, urgent: boolean) {
    if (this.manifestTimers.has(session.id) && !urgent) return;
    const since = Date.now() - (this.lastManifestWrite.get(session.id) ?? 0);
    const delay = urgent ? 0 : Math.max(0, MANIFEST_COALESCE_MS - since);
    clearTimeout(this.manifestTimers.get(session.id));
    this.manifestTimers.set(
      session.id,
      setTimeout(() => {
        this.manifestTimers.delete(session.id);
        this.writeManifest(session);
      }, delay),
    );
  }

  private writeManifest(session: Session) {
    if (!this.sessions.has(session.id)) return;
    try {
      writeJsonAtomic(join(this.sessionsDir, `${session.id}.json`), session.manifest());
      this.lastManifestWrite.set(session.id, Date.now());
      this.counters.manifests_written++;
    } catch (error) {
      this.log(`manifest of ${session.id} not written: ${(error as Error).message}`);
    }
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
    };
  }

  private snapshotFrame(): HostFrame {
    return { type: 'snapshot', at_ms: Date.now(), seq: this.frameSeq, sessions: [...this.sessions.values()].map((s) => s.state()) };
  }

  private manifests(): Manifest[] {
    return [...[...this.inherited.values()], ...[...this.sessions.values()].map((s) => s.manifest())].sort(
      (a, b) => a.created_at_ms - b.created_at_ms,
    );
  }

  private find(id: string): Session {
    const session = this.sessions.get(id);
    if (!session) throw new RpcError(ErrorCode.NotFound, `no session ${id}`, { reason: 'session_not_found' });
    return session;
  }

  private liveCount(): number {
    return [...this.sessions.values()].filter((s) => s.lifecycle === 'live' || s.lifecycle === 'starting').length;
  }

  private hello() {
    return { protocol: HOST_PROTOCOL_VERSION, build_id: this.buildId, instance: this.instance, home: this.endpoints.home };
  }

  private create(params: Parameters<NonNullable<Handlers<HostMethods>['session.create']>>[0], generation = 1, id = params.session ?? randomUUID()) {
    if (this.sessions.has(id) || this.inherited.has(id)) {
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
        scrollback: params.scrollback ?? DEFAULT_SCROLLBACK,
        createdAtMs: Date.now(),
      },
      this.context(),
    );
    this.sessions.set(id, session);
    this.counters.sessions_created++;
    session.start(this.environment(session));
    return session;
  }

  /** The host's own environment, the pane's variables over it, then the pane's identity (REFERENCE.md §1.2). */
  private environment(session: Session): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
    for (const key of session.spec.launch.env_remove ?? []) delete env[key];
    Object.assign(env, session.spec.launch.env, {
      TERM: 'xterm-256color',
      TERM_PROGRAM: 'ghostty',
      PANEFLOW_HOME: this.endpoints.home,
      PANEFLOW_SESSION_ID: session.id,
      PANEFLOW_SURFACE_ID: String(session.spec.surfaceId),
      PANEFLOW_WORKSPACE_ID: session.spec.workspaceId,
      PANEFLOW_SOCKET_PATH: this.endpoints.publicSocket,
      PANEFLOW_HOST_ENDPOINT: this.endpoints.hostSocket,
    });
    return env;
  }

  private handlers(): Handlers<HostMethods> {
    return {
      'host.hello': ({ protocol }) => {
        if (protocol !== HOST_PROTOCOL_VERSION) {
          throw new RpcError(ErrorCode.ProtocolMismatch, `host protocol ${HOST_PROTOCOL_VERSION}, client ${protocol}`, {
            reason: 'protocol_mismatch',
            host: HOST_PROTOCOL_VERSION,
          });
        }
        return this.hello();
      },
      'host.status': () => {
        const sessions = { live: 0, exited: 0, failed: 0, lost: 0 };
        for (const m of this.manifests()) {
          const key = m.lifecycle === 'starting' ? 'live' : m.lifecycle;
          sessions[key]++;
        }
        const scans = [...this.sessions.values()].reduce((sum, s) => sum + s.scans, 0);
        return { ...this.hello(), pid: process.pid, sessions, counters: { ...this.counters, scans, followers: this.followers.size } };
      },
      'host.shutdown': async ({ force }) => {
        const live = [...this.sessions.values()].filter((s) => s.lifecycle === 'live').map((s) => s.id);
        if (live.length > 0 && !force) {
          throw new RpcError(ErrorCode.SessionLive, `${live.length} session(s) live`, { reason: 'sessions_live', live });
        }
        this.shuttingDown = true;
        await Promise.all(live.map((id) => this.sessions.get(id)!.stop()));
        setImmediate(() => void this.shutdown());
        return {};
      },
      'session.create': (params) => {
        if (this.shuttingDown) throw new RpcError(ErrorCode.HostUnavailable, 'the host is shutting down');
        const session = this.create(params);
        return { session: session.id, generation: session.generation, pid: session.pid ?? 0 };
      },
      'session.ensure': (params) => {
        const existing = this.sessions.get(params.session);
        if (existing && existing.lifecycle === 'live') {
          return { session: existing.id, generation: existing.generation, pid: existing.pid ?? 0, created: false };
        }
        if (existing || this.inherited.has(params.session)) {
          throw new RpcError(ErrorCode.SessionLive, `session ${params.session} exists and is not live; restart it`, {
            reason: 'session_not_live',
          });
        }
        const session = this.create(params);
        return { session: session.id, generation: session.generation, pid: session.pid ?? 0, created: true };
      },
      'session.list': () => ({ sessions: this.manifests() }),
      'session.inspect': ({ session }) => {
        const manifest = this.sessions.get(session)?.manifest() ?? this.inherited.get(session);
        if (!manifest) throw new RpcError(ErrorCode.NotFound, `no session ${session}`, { reason: 'session_not_found' });
        return { ...manifest, frame_seq: this.frameSeq };
      },
      'session.attach': async ({ session, scrollback }) => {
        const found = this.find(session);
        const checkpoint = await found.checkpoint(scrollback ?? CHECKPOINT_SCROLLBACK_MAX);
        return { ...checkpoint, instance: this.instance, generation: found.generation };
      },
      'session.output': ({ session, offset, follow }, { connection }) => {
        const found = this.find(session);
        if (offset > found.output.end) {
          throw new RpcError(ErrorCode.InvalidParams, `offset ${offset} is past the end of the output (${found.output.end})`, { reason: 'offset_ahead', field: 'offset' });
        }
        if (found.output.read(offset, 0) === null) throw new RpcError(ErrorCode.OffsetEvicted, `output before ${offset} is no longer kept`, { reason: 'offset_evicted' });
        if (follow) return new StreamReply({ chunks: [], end_offset: found.output.end, following: true }, () => followOutput(connection, found, offset));
        const chunks: Array<{ offset: number; data: string }> = [];
        for (let at = offset; at < found.output.end; ) {
          const data = found.output.read(at)!;
          chunks.push({ offset: at, data: data.toString('base64') });
          at += data.length;
        }
        return { chunks, end_offset: found.output.end, following: false };
      },
      'session.input': ({ session, text, origin }) => ({ written: this.find(session).input(text, origin) }),
      'session.resize': ({ session, cols, rows }) => {
        this.find(session).resize(cols, rows);
        return {};
      },
      'session.read': ({ session, lines, offset }) => this.find(session).read(lines, offset),
      'session.modes': async ({ session }) => {
        const found = this.find(session);
        await found.settled();
        return found.modes();
      },
      'session.search': ({ session, pattern, max_matches }) => this.find(session).search(pattern, max_matches),
      'session.stop': async ({ session }) => {
        const inherited = this.inherited.get(session);
        if (inherited) {
          // Only a process proven to be the recorded one, by its start time, is ever signalled.
          if (inherited.process && isSameProcess(inherited.process.pid, inherited.process.started_at)) {
            await stopTree(inherited.process.pid);
          }
          return {};
        }
        await this.find(session).stop();
        return {};
      },
      'session.restart': ({ session }) => {
        const old = this.sessions.get(session);
        const manifest = old?.manifest() ?? this.inherited.get(session);
        if (!manifest) throw new RpcError(ErrorCode.NotFound, `no session ${session}`, { reason: 'session_not_found' });
        if (manifest.lifecycle !== 'exited' && manifest.lifecycle !== 'lost' && manifest.lifecycle !== 'failed') {
          throw new RpcError(ErrorCode.SessionLive, `session ${session} is ${manifest.lifecycle}`, { reason: 'session_live' });
        }
        old?.dispose();
        this.sessions.delete(session);
        this.inherited.delete(session);
        const { launch } = manifest;
        const restarted = this.create(
          {
            workspace_id: manifest.workspace_id,
            surface_id: manifest.surface_id,
            name: manifest.name,
            cwd: manifest.cwd,
            argv: [launch.shell, ...launch.args],
            env: launch.env,
            env_remove: launch.env_remove,
            cols: launch.cols,
            rows: launch.rows,
          },
          manifest.generation + 1,
          session,
        );
        return { session, generation: restarted.generation, pid: restarted.pid ?? 0 };
      },
      'session.remove': ({ session }) => {
        const live = this.sessions.get(session);
        if (live && (live.lifecycle === 'live' || live.lifecycle === 'starting')) {
          throw new RpcError(ErrorCode.SessionLive, `session ${session} is live; stop it first`, { reason: 'session_live', live: [session] });
        }
        if (!live && !this.inherited.has(session)) {
          throw new RpcError(ErrorCode.NotFound, `no session ${session}`, { reason: 'session_not_found' });
        }
        live?.dispose();
        this.sessions.delete(session);
        this.inherited.delete(session);
        clearTimeout(this.manifestTimers.get(session));
        this.manifestTimers.delete(session);
        rmSync(join(this.sessionsDir, `${session}.json`), { force: true });
        this.broadcast({ type: 'removed', at_ms: Date.now(), session });
        return {};
      },
      'agent.event': ({ session, generation, hook }) => {
        const found = this.find(session);
        if (found.generation !== generation) return { stored: false, hook_revision: found.hook?.revision ?? 0 };
        found.hook = hook;
        this.scheduleManifest(found, false);
        return { stored: true, hook_revision: hook.revision };
      },
      'agent.snapshot': ({ session }) => ({
        sessions: session ? [this.find(session).state()] : [...this.sessions.values()].map((s) => s.state()),
      }),
      'agent.follow': (_params, { connection }) =>
        new StreamReply({ following: true as const }, () => {
          const follower = new Follower(connection, {
            snapshot: () => this.snapshotFrame(),
            statusFrame: (id) => this.statusFrame(id),
          });
          this.followers.add(follower);
          connection.onClose(() => this.followers.delete(follower));
          follower.push(this.snapshotFrame());
        }),
    };
  }

  /** Writes every pending manifest and closes the socket; sessions must be over already. */
  async shutdown(): Promise<void> {
    for (const [id, timer] of this.manifestTimers) {
      clearTimeout(timer);
      const session = this.sessions.get(id);
      if (session) this.writeManifest(session);
    }
    this.manifestTimers.clear();
    await this.server.close();
    for (const session of this.sessions.values()) session.dispose();
    this.onShutdown();
  }
}
