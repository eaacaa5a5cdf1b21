import { Scanner, Store, replyFor, type Parsed, type StatusRecord } from '@paneflow/osc7501';
import {
  ErrorCode,
  HOST_PROTOCOL_VERSION,
  isSameProcess,
  processStartTime,
  READ_LINES_DEFAULT,
  READ_LINES_MAX,
  RpcError,
  SEARCH_MATCHES_DEFAULT,
  SEARCH_MATCHES_MAX,
  type HookMetadata,
  type Manifest,
  type Observation,
  type SessionState,
} from '@paneflow/rpc';
import { SerializeAddon } from '@xterm/addon-serialize';
import { Terminal } from '@xterm/headless';
import * as pty from 'node-pty';
import { describeForeground, ForegroundReader, runtimeCatalog, stopTree } from '@paneflow/procscan';
import { OutputTail } from './output';
import { logicalLines, tailText } from './terminal-text';

/** Host constants (REFERENCE.md §1.2). */
export const DEFAULT_SCROLLBACK = 10_000;
const INBOX_HIGH_WATER = 2 * 1024 * 1024;
const INBOX_LOW_WATER = 256 * 1024;
const MAX_INPUT_BYTES = 2 * 1024 * 1024;
const FINAL_DRAIN_MS = 2000;
const FINAL_DRAIN_QUIET_MS = 50;
const FINAL_TEXT_BYTES = 512 * 1024;
/** A session's foreground is read at most this often (REFERENCE.md §1.2). */
export const SCAN_INTERVAL_MS = 500;

export type Lifecycle = Manifest['lifecycle'];

/** What a session tells its host; the host fans it out to followers and the manifest. */
export interface SessionListener {
  status(session: Session): void;
  output(session: Session): void;
  title(session: Session): void;
  lifecycle(session: Session): void;
  observation(session: Session): void;
}

export interface SessionContext {
  instance: string;
  buildId: string;
  home: string;
  publicSocket: string;
  hostSocket: string;
  listener: SessionListener;
  log(message: string): void;
}

export interface LaunchSpec {
  session: string;
  generation: number;
  workspaceId: string;
  surfaceId: number;
  name: string | null;
  cwd: string;
  launch: Manifest['launch'];
  scrollback: number;
  createdAtMs: number;
}

const toWire = (r: StatusRecord) => ({
  id: r.id,
  state: r.state,
  kind: r.kind,
  progress: r.progress,
  app: r.app,
  effective_app: r.effectiveApp,
  title: r.title,
  msg: r.msg,
});

/**
 * One pane's PTY and its canonical terminal: a headless xterm that keeps the screen, with the
 * OSC 7501 scanner in front of it so that reports, queries, prompt marks and resets apply in
 * stream order (OSC7501.md §2.9, §7.3), whether or not any client is attached.
 */
export class Session {
  readonly id: string;
  readonly generation: number;
  readonly spec: LaunchSpec;
  lifecycle: Lifecycle = 'starting';
  exitCode: number | null = null;
  exitSignal: number | null = null;
  pid: number | null = null;
  startedAt: number | null = null;
  title = '';
  outputGeneration = 0;
  screenChangedAtMs: number | null = null;
  capableAtMs: number | null = null;
  lastSignalAtMs: number | null = null;
  observation: Observation | null = null;
  lastRuntimeId: string | null = null;
  foregroundCmd = '';
  foregroundCwd: string | null = null;
  finalOutput: string | null = null;
  /** serve's hook metadata for this generation (agent.event); the host only keeps it. */
  hook: HookMetadata | null = null;
  updatedAtMs: number;
  /** The raw output, for mirrors (session.output); `parsedOffset` is how much the terminal has parsed. */
  readonly output = new OutputTail();
  private parsedOffset = 0;
  private readonly outputWatchers = new Set<() => void>();
  private pty: pty.IPty | null = null;
  private readonly term: Terminal;
  private readonly serializer = new SerializeAddon();
  private readonly scanner = new Scanner();
  private readonly store = new Store();
  /** Bytes handed to the terminal that it has not parsed yet. */
  private inbox = 0;
  private paused = false;
  private lastDataAt = 0;
  private exited: Promise<void> | null = null;
  private readonly reader = new ForegroundReader(runtimeCatalog());
  private lastScanAt = 0;
  scans = 0;
  private scanTimer: NodeJS.Timeout | null = null;

  constructor(
    spec: LaunchSpec,
    private readonly context: SessionContext,
  ) {
    this.spec = spec;
    this.id = spec.session;
    this.generation = spec.generation;
    this.updatedAtMs = Date.now();
    this.term = new Terminal({
      cols: spec.launch.cols,
      rows: spec.launch.rows,
      scrollback: spec.scrollback,
      allowProposedApi: true,
    });
    this.term.loadAddon(this.serializer);
    this.term.parser.registerOscHandler(133, (data) => {
      if (data === 'A' || data.startsWith('A;')) this.recordsChanged(this.store.promptStart().length > 0);
      this.requestScan(); // a prompt or a command mark: the foreground may have changed
      return false;
    });
    this.term.parser.registerEscHandler({ final: 'c' }, () => {
      this.recordsChanged(this.store.reset().length > 0);
      return false; // xterm still performs the reset
    });
    this.term.onTitleChange((title) => {
      this.title = title;
      this.touch();
      context.listener.title(this);
    });
    // The canonical terminal answers the program's requests (DA1, cursor position, …).
    this.term.onData((data) => this.pty?.write(data));
    this.term.onBinary((data) => this.pty?.write(Buffer.from(data, 'binary')));
  }

  /** Starts the process; a launch that cannot start leaves the session `failed`. */
  start(env: Record<string, string>): void {
    const { launch, cwd } = this.spec;
    try {
      this.pty = pty.spawn(launch.shell, launch.args, {
        name: 'xterm-256color',
        cols: launch.cols,
        rows: launch.rows,
        cwd,
        env,
        encoding: 'utf8',
      });
    } catch (error) {
      this.context.log(`session ${this.id}: cannot start ${launch.shell}: ${(error as Error).message}`);
      this.setLifecycle('failed');
      return;
    }
    this.pid = this.pty.pid;
    this.startedAt = processStartTime(this.pty.pid);
    this.setLifecycle('live');
    this.requestScan();
    this.pty.onData((data) => this.receive(data));
    this.exited = new Promise((resolve) => {
      this.pty!.onExit(({ exitCode, signal }) => {
        void this.finish(exitCode, signal ?? null).then(resolve);
      });
    });
  }

  private receive(data: string) {
    this.lastDataAt = Date.now();
    this.requestScan();
    this.inbox += data.length;
    const bytes = Buffer.from(data, 'utf8');
    this.output.append(bytes);
    for (const watcher of this.outputWatchers) watcher();
    if (!this.paused && this.inbox > INBOX_HIGH_WATER) {
      this.paused = true;
      this.pty?.pause();
    }
    for (const piece of this.scanner.split(data)) {
      if (typeof piece === 'string') this.term.write(piece);
      else this.term.write('', () => this.apply(piece));
    }
    this.term.write('', () => {
      this.parsedOffset += bytes.length;
      this.inbox -= data.length;
      if (this.paused && this.inbox < INBOX_LOW_WATER) {
        this.paused = false;
        this.pty?.resume();
      }
      this.outputGeneration++;
      this.screenChangedAtMs = Date.now();
      this.context.listener.output(this);
    });
  }

  private apply(item: Parsed) {
    if (item.type === 'discarded') return;
    const firstSign = this.capableAtMs === null;
    this.lastSignalAtMs = Date.now();
    if (firstSign) this.capableAtMs = this.lastSignalAtMs;
    this.requestScan();
    if (item.type === 'query') {
      this.pty?.write(replyFor(item));
      this.recordsChanged(true); // the signal time moved
      return;
    }
    this.store.apply(item);
    this.recordsChanged(true);
  }

  /**
   * Reads the foreground again soon: at once if the last read is 500 ms old, else when it is.
   * Only something happening (output, a mark, a report, the start) asks; a quiet pane costs nothing.
   */
  private requestScan() {
    if (this.scanTimer || this.lifecycle !== 'live') return;
    const wait = Math.max(0, this.lastScanAt + SCAN_INTERVAL_MS - Date.now());
    this.scanTimer = setTimeout(() => {
      this.scanTimer = null;
      this.scan();
    }, wait);
  }

  private scan() {
    if (this.lifecycle !== 'live' || this.pid === null) return;
    this.lastScanAt = Date.now();
    this.scans++;
    let observation: Observation | null;
    try {
      observation = this.reader.scan(this.pid, this.title);
    } catch (error) {
      this.context.log(`session ${this.id}: scan failed: ${(error as Error).message}`);
      return;
    }
    const foreground = describeForeground(this.pid);
    const before = this.observation;
    const sameAgent = before?.id === observation?.id && before?.pid === observation?.pid && before?.pid_started_at === observation?.pid_started_at;
    if (sameAgent && foreground.cmd === this.foregroundCmd && foreground.cwd === this.foregroundCwd) return;
    // The identified agent is gone: its turn cannot still be running (OSC7501.md §10).
    if (!sameAgent && before && !isSameProcess(before.pid, before.pid_started_at)) this.recordsChanged(this.store.processExit().length > 0);
    this.observation = observation;
    this.foregroundCmd = foreground.cmd;
    this.foregroundCwd = foreground.cwd;
    if (observation) this.lastRuntimeId = observation.id;
    this.touch();
    this.context.listener.observation(this);
  }

  private recordsChanged(changed: boolean) {
    if (!changed) return;
    this.touch();
    this.context.listener.status(this);
  }

  private touch() {
    this.updatedAtMs = Date.now();
  }

  private setLifecycle(lifecycle: Lifecycle) {
    this.lifecycle = lifecycle;
    this.touch();
    this.context.listener.lifecycle(this);
  }

  /** After exit: let the last output arrive and be parsed, then apply the exit rules. */
  private async finish(exitCode: number, signal: number | null) {
    // The foreground at exit stays the session's agent: no scan of a tree that is gone.
    if (this.scanTimer) clearTimeout(this.scanTimer);
    this.scanTimer = null;
    const deadline = Date.now() + FINAL_DRAIN_MS;
    while (Date.now() < deadline && Date.now() - this.lastDataAt < FINAL_DRAIN_QUIET_MS) {
      await new Promise((resolve) => setTimeout(resolve, FINAL_DRAIN_QUIET_MS));
    }
    await new Promise<void>((resolve) => this.term.write('', resolve));
    this.exitCode = exitCode;
    this.exitSignal = signal || null;
    this.finalOutput = tailText(logicalLines(this.term), FINAL_TEXT_BYTES);
    this.pty = null;
    this.recordsChanged(this.store.processExit().length > 0);
    this.setLifecycle('exited');
  }

  input(text: string, origin: 'user' | 'automation'): number {
    this.requireLive();
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_INPUT_BYTES) {
      throw new RpcError(ErrorCode.InvalidParams, `input of ${bytes} bytes is over ${MAX_INPUT_BYTES}`, { reason: 'input_too_large' });
    }
    this.pty!.write(text);
    // Only a real keyboard acknowledges results; automation never does (OSC7501.md §10).
    if (origin === 'user') this.recordsChanged(this.store.userInput().length > 0);
    return bytes;
  }

  resize(cols: number, rows: number): void {
    this.requireLive();
    this.pty!.resize(cols, rows);
    this.term.resize(cols, rows);
    this.spec.launch.cols = cols;
    this.spec.launch.rows = rows;
    this.touch();
  }

  /** Calls `listener` whenever output arrives; returns the call that stops it. */
  watchOutput(listener: () => void): () => void {
    this.outputWatchers.add(listener);
    return () => this.outputWatchers.delete(listener);
  }

  /**
   * A mirror's starting point (REFERENCE.md §1.4): the screen and scrollback serialized as the
   * escape sequences that redraw them, and the output offset they correspond to. Taken once the
   * terminal has parsed everything it was given, so the two agree exactly.
   */
  checkpoint(scrollback: number): Promise<{ checkpoint: string; output_offset: number; cols: number; rows: number }> {
    // Inside the write callback: xterm may go on parsing later chunks before a continuation runs.
    return new Promise((resolve) =>
      this.term.write('', () => resolve({ checkpoint: this.serializer.serialize({ scrollback }), output_offset: this.parsedOffset, cols: this.term.cols, rows: this.term.rows })),
    );
  }

  /** Parsed state only: waits for what the terminal has been given so far. */
  async settled(): Promise<void> {
    await new Promise<void>((resolve) => this.term.write('', resolve));
  }

  async read(lines = READ_LINES_DEFAULT, offset = 0) {
    await this.settled();
    const all = logicalLines(this.term);
    const count = Math.min(READ_LINES_MAX, Math.max(1, lines));
    if (offset > 0 && offset >= all.length) {
      throw new RpcError(ErrorCode.InvalidParams, `offset ${offset} is out of range: ${all.length} lines are kept`, {
        reason: 'offset_out_of_range',
        field: 'offset',
      });
    }
    const end = all.length - offset;
    const start = Math.max(0, end - count);
    return {
      text: all.slice(start, end).join('\n'),
      lines: end - start,
      total_lines: all.length,
      eof: offset === 0,
      output_generation: this.outputGeneration,
    };
  }

  async search(pattern: string, maxMatches = SEARCH_MATCHES_DEFAULT) {
    await this.settled();
    const limit = Math.min(SEARCH_MATCHES_MAX, Math.max(1, maxMatches));
    const needle = pattern.toLowerCase();
    const matches: Array<{ line: number; text: string }> = [];
    let truncated = false;
    logicalLines(this.term).forEach((text, index) => {
      if (!text.toLowerCase().includes(needle)) return;
      if (matches.length < limit) matches.push({ line: index + 1, text });
      else truncated = true;
    });
    return { matches, truncated };
  }

  /** Ends the process tree; resolves once the session has exited. */
  async stop(): Promise<void> {
    if (this.lifecycle !== 'live' || this.pid === null) return;
    await stopTree(this.pid);
    await this.exited;
  }

  /** Forgets the terminal once the session is over. */
  /** Gone for good (removed, or replaced by its next generation): mirrors following it are told. */
  disposed = false;

  dispose(): void {
    this.disposed = true;
    if (this.scanTimer) clearTimeout(this.scanTimer);
    this.pty?.kill('SIGKILL');
    this.term.dispose();
    for (const watcher of [...this.outputWatchers]) watcher();
    this.outputWatchers.clear();
  }

  private requireLive() {
    if (this.lifecycle !== 'live' || !this.pty) {
      throw new RpcError(ErrorCode.NotFound, `session ${this.id} is ${this.lifecycle}`, { reason: 'session_not_live' });
    }
  }

  records() {
    return this.store.records().map(toWire);
  }

  declaredStatus(): Manifest['declared_status'] {
    const current = this.store.current();
    if (!current) return null;
    return {
      state: current.state,
      kind: current.kind,
      progress: current.progress,
      id: current.id,
      app: current.effectiveApp,
      title: current.title,
      message: current.msg,
    };
  }

  state(): SessionState {
    return {
      session: this.id,
      generation: this.generation,
      generation_started_at_ms: this.spec.createdAtMs,
      lifecycle: this.lifecycle,
      exit_code: this.exitCode,
      pid: this.pid,
      title: this.title,
      output_generation: this.outputGeneration,
      records: this.records(),
      declared_status: this.declaredStatus(),
      program_status_capable_at_ms: this.capableAtMs,
      last_status_signal_at_ms: this.lastSignalAtMs,
      observation: this.observation,
      last_runtime_id: this.lastRuntimeId,
      foreground_cmd: this.foregroundCmd,
      foreground_cwd: this.foregroundCwd,
    };
  }

  modes() {
    const modes = this.term.modes;
    return { bracketed_paste: modes.bracketedPasteMode, application_cursor_keys: modes.applicationCursorKeysMode };
  }

  manifest(): Manifest {
    const { spec } = this;
    return {
      session: this.id,
      generation: this.generation,
      instance: this.context.instance,
      workspace_id: spec.workspaceId,
      surface_id: spec.surfaceId,
      name: spec.name,
      cwd: spec.cwd,
      launch: spec.launch,
      lifecycle: this.lifecycle,
      exit_code: this.exitCode,
      exit_signal: this.exitSignal,
      process: this.pid !== null && this.startedAt !== null ? { pid: this.pid, started_at: this.startedAt, pgid: this.pid } : null,
      title: this.title,
      records: this.records(),
      declared_status: this.declaredStatus(),
      program_status_capable_at_ms: this.capableAtMs,
      last_status_signal_at_ms: this.lastSignalAtMs,
      runtime: { current_observation: this.observation, last_runtime_id: this.lastRuntimeId },
      output_generation: this.outputGeneration,
      screen_changed_at_ms: this.screenChangedAtMs,
      final_output: this.finalOutput,
      hook: this.hook,
      host_protocol_version: HOST_PROTOCOL_VERSION,
      host_build_id: this.context.buildId,
      created_at_ms: spec.createdAtMs,
      updated_at_ms: this.updatedAtMs,
    };
  }
}
