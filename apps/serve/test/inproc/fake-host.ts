import { Scanner, Store } from '@paneflow/osc7501';
import {
  declaredStatusOf,
  ErrorCode,
  HOST_PROTOCOL_VERSION,
  RpcError,
  wireRecord,
  type HostMethods,
  type Manifest,
  type MethodName,
  type ParamsOf,
  type ResultOf,
  type UnnumberedHostFrame,
} from '@paneflow/protocol';
import { manifestOf, scaled } from '@paneflow/testing';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../src/clock';
import type { HostEvents, HostPort, SessionsFrame } from '../../src/hostlink';

/** One session as the fake host holds it: its manifest, the records its program declared, what serve typed. */
interface FakeSession {
  manifest: Manifest;
  scanner: Scanner;
  store: Store;
  screen: string[];
  cpuMs: number;
}

/** What serve wrote to a session: `session.input` text or a `session.key` keystroke. */
export interface Written {
  session: string;
  method: 'session.input' | 'session.key';
  text: string;
  paste: boolean;
}

export interface SessionSpec {
  workspace_id?: string;
  surface_id?: number;
  name?: string | null;
  cwd?: string;
  /** The runtime slug of the agent the host finds in front (its process scan), if any. */
  agent?: string;
}

type Answer<M extends MethodName<HostMethods>> = (params: ParamsOf<HostMethods, M>) => ResultOf<HostMethods, M>;

/** Pids no process of this machine has (above Linux's largest pid_max): nothing of /proc can match them. */
const FIRST_FAKE_PID = 5_000_000;

/**
 * The host serve follows, in memory (serve's `ServeSeams.host`): it answers the host methods
 * serve's decisions call from what it holds, and a test makes happen what a real host would
 * report — a program's output with its OSC 7501 declarations (parsed by @paneflow/osc7501's
 * scanner and store, as the host does), an agent found in front, an exit, the host going away.
 * There is no PTY and no process: what crosses processes stays with the process tests.
 */
export class FakeHost implements HostPort {
  down: { sinceMs: number; why: string } | null;
  /** Everything serve wrote to a session, in order. */
  readonly written: Written[] = [];
  /** Every request serve made, with the time on serve's clock. */
  readonly requests: Array<{ method: string; at_ms: number }> = [];
  private readonly sessions = new Map<string, FakeSession>();
  private readonly instance = randomUUID();
  private events: HostEvents | null = null;
  private seq = 0;
  private nextPid = FIRST_FAKE_PID;
  private readonly writeWaiters = new Set<() => void>();

  constructor(
    private readonly clock: Clock,
    private readonly home: string,
  ) {
    this.down = { sinceMs: clock.now(), why: 'not connected yet' };
  }

  /** For `ServeSeams.host`: serve hands over what it wants to hear. */
  readonly port = (events: HostEvents): HostPort => {
    this.events = events;
    return this;
  };

  async start(): Promise<void> {
    this.connect();
  }

  close(): void {
    this.events = null;
  }

  /** serve (re)connects: the full list of sessions, as a real link begins every connection. */
  connect(): void {
    this.down = null;
    this.events?.connected(this.list());
  }

  /** The host goes away: its connection closes, and nothing answers until `connect`. */
  die(): void {
    this.down = { sinceMs: this.clock.now(), why: 'the connection closed' };
    this.events?.disconnected();
  }

  async request<M extends MethodName<HostMethods>>(method: M, params: ParamsOf<HostMethods, M>): Promise<ResultOf<HostMethods, M>> {
    this.requests.push({ method, at_ms: this.clock.now() });
    if (this.down) throw new RpcError(ErrorCode.HostUnavailable, 'the host is unavailable', { reason: 'host_unavailable' });
    const answer = (this.answers as Record<string, Answer<M> | undefined>)[method];
    if (!answer) throw new RpcError(ErrorCode.MethodNotFound, `method not found: ${method}`);
    return answer(params);
  }

  /**
   * What the host does right after it answers `session.inspect`, before serve has taken the answer:
   * frames it sends then reach serve while it is still making the pane's view.
   */
  afterInspect: ((session: string) => void) | null = null;

  /** A session the host runs: before serve starts it is in the first list; after, serve adopts it from its first frame. */
  addSession(spec: SessionSpec = {}): string {
    const session = this.made(randomUUID(), spec);
    if (spec.agent) this.setObservation(session, spec.agent);
    if (!this.down) this.send({ type: 'lifecycle', at_ms: this.clock.now(), session, generation: 1, lifecycle: 'live', exit_code: null, pid: null });
    return session;
  }

  /** A new session's manifest, kept. */
  private made(session: string, spec: Omit<SessionSpec, 'agent'>): string {
    const now = this.clock.now();
    const manifest = manifestOf({
      session,
      instance: this.instance,
      workspace_id: spec.workspace_id ?? randomUUID(),
      surface_id: spec.surface_id ?? this.sessions.size + 1,
      name: spec.name ?? null,
      cwd: spec.cwd ?? this.home,
      host_build_id: 'fake-host',
      created_at_ms: now,
      updated_at_ms: now,
    });
    this.sessions.set(session, { manifest, scanner: new Scanner(), store: new Store(), screen: [], cpuMs: 0 });
    return session;
  }

  /** The host's process scan finds `runtimeId`'s agent in front (null: none); the same one again is a rescan. */
  observe(session: string, runtimeId: string | null): void {
    const { manifest } = this.setObservation(session, runtimeId);
    this.send({ type: 'observation', at_ms: this.clock.now(), session, observation: manifest.runtime.current_observation, last_runtime_id: manifest.runtime.last_runtime_id, foreground_cmd: runtimeId ?? '/bin/sh', foreground_cwd: manifest.cwd });
  }

  /** What the session's program writes to its terminal: OSC 7501 declarations among plain text. */
  print(session: string, output: string): void {
    const s = this.session(session);
    const now = this.clock.now();
    const { items, text } = s.scanner.feed(output);
    let signalled = false;
    for (const item of items) {
      if (item.type === 'query' || item.type === 'report' || item.type === 'clear') signalled = true;
      s.store.apply(item);
    }
    if (signalled) {
      s.manifest.program_status_capable_at_ms ??= now;
      s.manifest.last_status_signal_at_ms = now;
      this.sendStatus(s);
    }
    if (text) {
      s.screen.push(...text.split('\n'));
      s.manifest.output_generation++;
      s.manifest.screen_changed_at_ms = now;
      this.send({ type: 'output', at_ms: now, session, output_generation: s.manifest.output_generation });
    }
  }

  /** The session's process exits with `code`: working and blocked records go (OSC7501.md), the session is `exited`. */
  exit(session: string, code: number): void {
    const s = this.session(session);
    s.store.processExit();
    this.sendStatus(s);
    s.manifest.lifecycle = 'exited';
    s.manifest.exit_code = code;
    // An agent in front is the session's own process here (`sh -c agent` execs it).
    const pid = s.manifest.runtime.current_observation?.pid ?? null;
    this.send({ type: 'lifecycle', at_ms: this.clock.now(), session, generation: s.manifest.generation, lifecycle: 'exited', exit_code: code, pid });
  }

  /** The CPU time the session's process tree has used, as `session.cpu` answers it. */
  cpu(session: string, cpuMs: number): void {
    this.session(session).cpuMs = cpuMs;
  }

  /** The first write from `from` on (an index into `written`) that passes `test`, as serve makes it. */
  nextWrite(test: (write: Written) => boolean, from = 0, timeoutMs = scaled(5000)): Promise<Written> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.writeWaiters.delete(check);
        reject(new Error(`serve wrote nothing that matched in ${timeoutMs} ms; it wrote ${JSON.stringify(this.written.slice(from))}`));
      }, timeoutMs);
      const check = () => {
        const found = this.written.slice(from).find(test);
        if (!found) return;
        clearTimeout(timer);
        this.writeWaiters.delete(check);
        resolve(found);
      };
      this.writeWaiters.add(check);
      check();
    });
  }

  private session(session: string): FakeSession {
    const s = this.sessions.get(session);
    if (!s) throw new RpcError(ErrorCode.NotFound, `session ${session} not found`, { reason: 'not_found' });
    return s;
  }

  /** The same agent found again keeps its process: a rescan, not a new agent. */
  private setObservation(session: string, runtimeId: string | null): FakeSession {
    const s = this.session(session);
    if (runtimeId !== null && s.manifest.runtime.current_observation?.id === runtimeId) return s;
    const pid = this.nextPid++;
    const now = this.clock.now();
    s.manifest.runtime = {
      current_observation: runtimeId ? { id: runtimeId, pid, pid_started_at: pid, pid_started_at_ms: now, process_group: pid, process_name: runtimeId } : null,
      last_runtime_id: runtimeId ?? s.manifest.runtime.last_runtime_id,
    };
    return s;
  }

  private sendStatus(s: FakeSession): void {
    const { manifest } = s;
    manifest.records = s.store.records().map(wireRecord);
    manifest.declared_status = declaredStatusOf(s.store.current());
    this.send({
      type: 'status',
      at_ms: this.clock.now(),
      session: manifest.session,
      generation: manifest.generation,
      records: manifest.records,
      declared_status: manifest.declared_status,
      program_status_capable_at_ms: manifest.program_status_capable_at_ms,
      last_status_signal_at_ms: manifest.last_status_signal_at_ms,
      typed: null,
    });
  }

  private send(frame: UnnumberedHostFrame): void {
    if (this.down) return;
    this.events?.frame({ ...frame, seq: ++this.seq } as SessionsFrame);
  }

  private list(): Manifest[] {
    return [...this.sessions.values()].map((s) => structuredClone(s.manifest));
  }

  private wrote(write: Written): void {
    this.written.push(write);
    for (const check of [...this.writeWaiters]) check();
  }

  /** The host methods serve's decisions call, answered from memory. */
  private readonly answers: { [M in MethodName<HostMethods>]?: Answer<M> } = {
    'host.status': () => ({
      protocol: HOST_PROTOCOL_VERSION,
      build_id: 'fake-host',
      instance: this.instance,
      home: this.home,
      pid: process.pid,
      sessions: { live: this.count('live'), exited: this.count('exited'), failed: this.count('failed'), lost: this.count('lost') },
      counters: {},
    }),
    'session.list': () => ({ sessions: this.list() }),
    'session.create': ({ session, workspace_id, surface_id, name, cwd }) => {
      const made = this.made(session ?? randomUUID(), { workspace_id, surface_id, name: name ?? null, cwd });
      return { session: made, generation: 1, pid: this.nextPid++ };
    },
    'session.inspect': ({ session }) => {
      const answer = { ...structuredClone(this.session(session).manifest), frame_seq: this.seq };
      this.afterInspect?.(session);
      return answer;
    },
    'session.input': ({ session, text, paste }) => {
      this.session(session);
      this.wrote({ session, method: 'session.input', text, paste: paste ?? false });
      return { written: Buffer.byteLength(text), bracketed: paste ?? false, bracketed_paste_mode: true };
    },
    'session.key': ({ session, keystroke }) => {
      this.session(session);
      this.wrote({ session, method: 'session.key', text: keystroke, paste: false });
      return { written: 1 };
    },
    'session.read': ({ session, lines }) => {
      const { screen, manifest } = this.session(session);
      const shown = lines === undefined ? screen : screen.slice(-lines);
      return { text: shown.join('\n'), lines: shown.length, total_lines: screen.length, eof: shown.length === screen.length, output_generation: manifest.output_generation, dropped_rows: 0 };
    },
    'session.cpu': ({ session }) => ({ cpu_ms: this.session(session).cpuMs, processes: 1 }),
    'agent.event': ({ session, hook }) => {
      this.session(session).manifest.hook = hook;
      return { stored: true, hook_revision: hook.revision };
    },
  };

  private count(lifecycle: Manifest['lifecycle']): number {
    return [...this.sessions.values()].filter((s) => s.manifest.lifecycle === lifecycle).length;
  }
}
