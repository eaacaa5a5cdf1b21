import { bootId, keepOutputAtExit, processStartTime, writeNow } from '@paneflow/proc';
import { runtimeCatalog, stopTree } from '@paneflow/procscan';
import { ErrorCode, FINAL_OUTPUT_BYTES, HOST_PROTOCOL_VERSION, RpcError, type HookMetadata, type Manifest, type RestartAttempt, type ResumeRecord, type SessionState } from '@paneflow/protocol';
import * as pty from 'node-pty';
import { ForegroundWatch } from './foreground';
import { collectSoon } from './memory';
import { OutputTail, type ResizeMark } from './output';
import { SessionResume } from './resume';
import { SessionInput, type InputOrigin } from './session-input';
import type { RemoteTerminal, TerminalPool } from './terminals';

// One pane's session: its PTY and process from start to exit, the output's backpressure, its
// resizes, and the state and manifest it reports. Its input is session-input.ts's.

/** Host constants (REFERENCE.md §1.2). */
const INBOX_HIGH_WATER = 256 * 1024;
const INBOX_LOW_WATER = 64 * 1024;
/** Resizes remembered for mirrors that follow from an older offset. */
const MAX_RESIZE_MARKS = 64;
const BOOT_ID = bootId();

export type Lifecycle = Manifest['lifecycle'];

/** What a session tells its host; the host fans it out to followers and the manifest. */
export interface SessionListener {
  status(session: Session): void;
  output(session: Session): void;
  title(session: Session): void;
  lifecycle(session: Session): void;
  observation(session: Session): void;
  resume(session: Session): void;
}

export interface SessionContext {
  instance: string;
  buildId: string;
  listener: SessionListener;
  /** Where its canonical terminal runs. */
  terminals: TerminalPool;
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
  /** The resume record so far, and the restart that begins this generation, if one does. */
  resume: ResumeRecord | null;
  restart: RestartAttempt | null;
  /** What runs now when it is not the recorded launch (a resume). */
  run?: { program: string; args: string[] };
}

/**
 * One pane's PTY and process, its canonical terminal, its raw output for mirrors, and which agent
 * runs in its foreground — kept whether or not any client is attached.
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
  /** serve's hook metadata for this generation (agent.event); the host only keeps it. */
  hook: HookMetadata | null = null;
  readonly resume: SessionResume;
  updatedAtMs: number;
  /** Gone for good (removed, or replaced by its next generation): mirrors following it are told. */
  disposed = false;
  /**
   * The text kept at exit, made when first asked for: a session removed right after its exit (a
   * pane closed) never makes it, and closing many panes does not raise the host's memory.
   */
  private finalText: string | null = null;
  private finalTextDue = false;
  private finalTextMaking: Promise<void> | null = null;
  /** Which agent runs in front, and what runs there: read when something happens. */
  readonly foreground: ForegroundWatch;
  /** The raw output, for mirrors (session.output). */
  readonly output = new OutputTail();
  /** Where the PTY was resized, in output offsets, newest last. */
  readonly resizes: ResizeMark[] = [];
  readonly terminal: RemoteTerminal;
  private readonly outputWatchers = new Set<() => void>();
  private pty: pty.IPty | null = null;
  /** Bytes handed to the terminal that it has not parsed yet. */
  private inbox = 0;
  private paused = false;
  private exited: Promise<void> | null = null;
  readonly inputs: SessionInput;

  constructor(
    spec: LaunchSpec,
    private readonly context: SessionContext,
  ) {
    this.spec = spec;
    this.id = spec.session;
    this.generation = spec.generation;
    this.updatedAtMs = Date.now();
    this.resume = new SessionResume(runtimeCatalog(), { record: spec.resume, restart: spec.restart }, () => {
      this.touch();
      context.listener.resume(this);
    });
    this.terminal = context.terminals.open(spec.launch.cols, spec.launch.rows, spec.scrollback, {
      recordsChanged: () => this.recordsChanged(),
      signalled: () => {
        this.lastSignalAtMs = Date.now();
        this.capableAtMs ??= this.lastSignalAtMs;
      },
      marked: () => this.foreground.request(),
      title: (title) => {
        this.title = title;
        this.touch();
        context.listener.title(this);
      },
      parsed: (bytes, writes) => this.parsed(bytes, writes),
      reply: (data) => {
        if (this.pty) writeNow(this.pty, data);
      },
      failed: (message) => context.log(`session ${this.id}: its terminal failed and is gone (${message}); the program goes on`),
    });
    this.inputs = new SessionInput(this.terminal, () => {
      const live = this.livePty();
      return { write: (data) => writeNow(live, data) };
    });
    this.foreground = new ForegroundWatch(this, {
      agentSeen: (observation, cwd) => this.resume.observed(observation, cwd),
      agentGone: () => void this.terminal.processExit().catch(() => undefined),
      changed: () => {
        this.touch();
        context.listener.observation(this);
      },
      log: (message) => context.log(message),
    });
  }

  /** Starts the process; a launch that cannot start leaves the session `failed`. */
  start(env: Record<string, string>): void {
    const { launch, cwd } = this.spec;
    const { program, args } = this.spec.run ?? { program: launch.shell, args: launch.args };
    try {
      // Bytes as read (no encoding): the output tail keeps them, the terminals' thread decodes them.
      this.pty = pty.spawn(program, args, { name: 'xterm-256color', cols: launch.cols, rows: launch.rows, cwd, env, encoding: null });
    } catch (error) {
      this.context.log(`session ${this.id}: cannot start ${program}: ${(error as Error).message}`);
      this.setLifecycle('failed');
      return;
    }
    this.pid = this.pty.pid;
    this.startedAt = processStartTime(this.pty.pid);
    this.setLifecycle('live');
    this.foreground.request();
    // Without an encoding node-pty hands over Buffers (its typings say string).
    this.pty.onData((data) => this.receive(data as unknown as Buffer));
    keepOutputAtExit(this.pty);
    this.exited = new Promise((resolve) => {
      this.pty!.onExit(({ exitCode, signal }) => {
        void this.finish(exitCode, signal ?? null).then(resolve);
      });
    });
  }

  private receive(bytes: Buffer) {
    this.foreground.request();
    this.resume.output(bytes);
    this.feed(bytes);
  }

  /**
   * Before the process starts: what the pane shows first, above its output (a lost session's
   * saved screen). It is the start of this generation's output, so a mirror from offset 0 and
   * one from a checkpoint see the same; no failure marker or scan is looked for in it.
   */
  showHistory(text: string): void {
    this.feed(Buffer.from(text));
  }

  private feed(bytes: Buffer) {
    this.inbox += bytes.length;
    this.output.append(bytes);
    for (const watcher of this.outputWatchers) watcher();
    // The terminal parses slower than a PTY can deliver: past the high-water mark the program waits.
    if (!this.paused && this.inbox > INBOX_HIGH_WATER) {
      this.paused = true;
      this.pty?.pause();
    }
    this.terminal.write(bytes);
  }

  /** `writes` PTY reads (`bytes` in all) have been parsed. */
  private parsed(bytes: number, writes: number) {
    this.inbox -= bytes;
    if (this.paused && this.inbox < INBOX_LOW_WATER) {
      this.paused = false;
      this.pty?.resume();
    }
    this.outputGeneration += writes;
    this.screenChangedAtMs = Date.now();
    this.context.listener.output(this);
  }

  private recordsChanged() {
    this.inputs.declared();
    this.resume.declared();
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

  /** After exit, its output read to the last byte: once that is parsed, apply the exit rules. */
  private async finish(exitCode: number, signal: number | null) {
    // The foreground at exit stays the session's agent: no scan of a tree that is gone.
    this.foreground.stop();
    // Never refused while the terminals' thread runs (and the host exits if it stops).
    await this.terminal.settled().catch(() => undefined);
    this.exitCode = exitCode;
    this.exitSignal = signal || null;
    if (!this.disposed) this.finalTextDue = true;
    this.pty = null;
    await this.terminal.processExit().catch(() => undefined);
    this.resume.exited(exitCode, this.exitSignal);
    this.setLifecycle('exited');
  }

  /** Input for the PTY, in the order it came (SessionInput). */
  input(text: string, origin: InputOrigin, paste = false, client = 'unknown'): ReturnType<SessionInput['input']> {
    return this.inputs.input(text, origin, paste, client);
  }

  /** One keystroke, encoded in the program's cursor-key mode as the terminal has parsed it. */
  key(keystroke: string, origin: InputOrigin): ReturnType<SessionInput['key']> {
    return this.inputs.key(keystroke, origin);
  }

  resize(cols: number, rows: number): void {
    const live = this.livePty();
    if (cols === this.spec.launch.cols && rows === this.spec.launch.rows) return;
    live.resize(cols, rows);
    // Mirrors resize where the canonical terminal does, so both parse what follows at one size.
    const offset = this.terminal.resize(cols, rows);
    this.resizes.push({ seq: (this.resizes.at(-1)?.seq ?? 0) + 1, offset, cols, rows });
    if (this.resizes.length > MAX_RESIZE_MARKS) this.resizes.shift();
    for (const watcher of this.outputWatchers) watcher();
    this.spec.launch.cols = cols;
    this.spec.launch.rows = rows;
    this.touch();
  }

  /** Calls `listener` whenever output arrives; returns the call that stops it. */
  watchOutput(listener: () => void): () => void {
    this.outputWatchers.add(listener);
    return () => this.outputWatchers.delete(listener);
  }

  async read(lines?: number, offset?: number) {
    return { ...(await this.terminal.read(lines, offset)), output_generation: this.outputGeneration };
  }

  /** Ends the process tree; resolves once the session has exited. */
  async stop(): Promise<void> {
    if (this.lifecycle !== 'live' || this.pid === null) return;
    await stopTree(this.pid);
    await this.exited;
  }

  /**
   * Makes the text kept at exit (≤ 512 KiB) once the program has exited, on the terminals'
   * thread; `manifest()` carries it from then on. It stays due until it is made, so a manifest
   * written meanwhile is followed by one with it.
   */
  makeFinalOutput(): Promise<void> {
    if (this.finalTextDue && !this.finalTextMaking) {
      this.finalTextMaking = this.terminal
        .finalText(FINAL_OUTPUT_BYTES)
        .then(
          (text) => {
            if (!this.disposed) this.finalText = text;
          },
          (error: Error) => {
            // Removed meanwhile: there is no text to keep. Anything else, the manifest goes without it.
            if (!this.disposed) this.context.log(`session ${this.id}: the text kept at exit was not made: ${error.message}`);
          },
        )
        .finally(() => {
          this.finalTextDue = false;
          this.finalTextMaking = null;
        });
    }
    return this.finalTextMaking ?? Promise.resolve();
  }

  /** The program has exited and its text is not made yet. */
  get finalOutputDue(): boolean {
    return this.finalTextDue;
  }

  dispose(): void {
    this.disposed = true;
    this.finalTextDue = false;
    this.foreground.stop();
    this.pty?.kill('SIGKILL');
    this.terminal.dispose();
    this.output.close();
    for (const watcher of [...this.outputWatchers]) watcher();
    this.outputWatchers.clear();
    collectSoon();
  }

  /** The PTY of a live session; any other refuses. */
  private livePty(): pty.IPty {
    if (this.lifecycle !== 'live' || !this.pty) {
      throw new RpcError(ErrorCode.NotFound, `session ${this.id} is ${this.lifecycle}`, { reason: 'session_not_live' });
    }
    return this.pty;
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
      records: this.terminal.records(),
      declared_status: this.terminal.declaredStatus(),
      program_status_capable_at_ms: this.capableAtMs,
      last_status_signal_at_ms: this.lastSignalAtMs,
      observation: this.foreground.observation,
      last_runtime_id: this.foreground.lastRuntimeId,
      foreground_cmd: this.foreground.cmd,
      foreground_cwd: this.foreground.cwd,
      resume: this.resume.record,
      restart: this.resume.restart,
      typed: this.inputs.typed,
    };
  }

  /** The text kept at exit is there once `makeFinalOutput` has made it. */
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
      records: this.terminal.records(),
      declared_status: this.terminal.declaredStatus(),
      program_status_capable_at_ms: this.capableAtMs,
      last_status_signal_at_ms: this.lastSignalAtMs,
      runtime: { current_observation: this.foreground.observation, last_runtime_id: this.foreground.lastRuntimeId },
      output_generation: this.outputGeneration,
      screen_changed_at_ms: this.screenChangedAtMs,
      final_output: this.finalText,
      hook: this.hook,
      resume: this.resume.record,
      restart: this.resume.restart,
      lost: null,
      boot_id: BOOT_ID,
      host_protocol_version: HOST_PROTOCOL_VERSION,
      host_build_id: this.context.buildId,
      created_at_ms: spec.createdAtMs,
      updated_at_ms: this.updatedAtMs,
    };
  }
}
