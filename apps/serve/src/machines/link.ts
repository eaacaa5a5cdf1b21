import {
  BRIDGE_CANCEL,
  BRIDGE_END,
  BRIDGE_FRAME,
  BRIDGE_HELLO,
  ErrorCode,
  HOST_CHECKPOINT_MAX_BYTES,
  LINK_BACKOFF_MS,
  LINK_HELLO_DEADLINE_MS,
  LINK_REQUEST_DEADLINE_MS,
  LINK_SSH_OPTIONS,
  PUBLIC_PROTOCOL_VERSION,
  RpcError,
  type BridgeHello,
  type MachineSpec,
  type MachineState,
} from '@paneflow/protocol';
import { LineReader } from '@paneflow/rpc';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/** What a link tells its owner. */
export interface LinkEvents {
  /** The bridge said hello: requests and streams may go. */
  connected(hello: BridgeHello): void;
  /** The state or its reason changed. */
  state(state: MachineState, reason: string | null): void;
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/** A remote's stream: its frames, then its end (the link dropped, or the far side ended it). */
export interface RemoteStream {
  frame(frame: Record<string, unknown>): void;
  end(): void;
}

/** Words of ssh's stderr worth a person's eye: the last line that says something, bounded. */
const REASON_CHARS = 300;
/** The stderr kept while a link is up: enough for ssh's last few lines. */
const STDERR_KEPT_BYTES = 4096;

/** A remote command as ssh sends it to the far shell: a plain path as it is (`~` expands there), any other quoted. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_./~+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The ssh command line of a link: the user's config still applies; ours adds batch mode, keepalives and a connect deadline. */
export function sshArgs(spec: MachineSpec): string[] {
  const options = [...LINK_SSH_OPTIONS, ...(spec.ssh_options ?? [])].flatMap((option) => ['-o', option]);
  return [...options, '-T', spec.destination, `${shellWord(spec.remote_command ?? 'paneflow')} rpc --stdio`];
}

/**
 * One machine's link: `ssh DEST paneflow rpc --stdio` as a child process, JSON-RPC over its
 * stdio (`libs/protocol/src/machines.ts`, the bridge). One ssh per machine carries every request
 * and stream of every face. When ssh ends, for whatever reason, what waits is refused
 * (`machine_offline`), every stream ends, and ssh is started again after a backoff; the far
 * side's host and serve are not touched by any of it.
 */
export class MachineLink {
  private child: ChildProcessWithoutNullStreams | null = null;
  private hello: BridgeHello | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly streams = new Map<number, RemoteStream>();
  private nextId = 1;
  private attempt = 0;
  private retry: NodeJS.Timeout | null = null;
  private helloTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  private everConnected = false;
  /** Why this link's ssh is being ended by us, when it is. */
  private failReason: string | null = null;
  state: MachineState = 'connecting';
  reason: string | null = null;
  since = Date.now();
  lastSeen: number | null = null;

  constructor(
    readonly name: string,
    readonly spec: MachineSpec,
    private readonly events: LinkEvents,
    private readonly log: (message: string) => void,
    private readonly ssh = 'ssh',
  ) {}

  get remote(): BridgeHello | null {
    return this.hello;
  }

  start(): void {
    if (this.stopped || this.child) return;
    let stderr = '';
    const child = spawn(this.ssh, sshArgs(this.spec), { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    const reader = new LineReader(HOST_CHECKPOINT_MAX_BYTES);
    child.stdout.on('data', (chunk: Buffer) => {
      let lines: string[];
      try {
        lines = reader.push(chunk);
      } catch {
        return this.fail(child, `${this.name} sent a line over ${HOST_CHECKPOINT_MAX_BYTES} bytes`);
      }
      for (const line of lines) this.onLine(line);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT_BYTES);
    });
    // A write to a bridge that is gone: the exit below says why.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => this.fail(child, `cannot run ${this.ssh}: ${error.message}`));
    child.on('close', (code, signal) => this.ended(child, code, signal, stderr));
    this.helloTimer = setTimeout(() => this.fail(child, `no answer from ${this.spec.destination} within ${LINK_HELLO_DEADLINE_MS / 1000} s`), LINK_HELLO_DEADLINE_MS);
  }

  /** Ends the link for good (the machine was removed, or serve stops). */
  stop(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const child = this.child;
    if (child) this.fail(child, 'stopped');
  }

  /** Drops this ssh (its far side stays as it is) and connects again after the backoff. */
  restart(reason: string): void {
    if (this.child) this.fail(this.child, reason);
  }

  /** One request to the far serve; refused at once while the link is down. */
  request(method: string, params: unknown, deadlineMs = LINK_REQUEST_DEADLINE_MS): Promise<unknown> {
    const child = this.child;
    if (!child || !this.hello) return Promise.reject(this.offline());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new RpcError(ErrorCode.MachineUnavailable, `${this.name} did not answer ${method} within ${Math.round(deadlineMs / 1000)} s`, { reason: 'machine_timeout', machine: this.name }));
      }, deadlineMs);
      this.pending.set(id, { resolve, reject, timer });
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }

  /**
   * A stream on the far side (`events.subscribe`, or a host's `session.output` through
   * `BRIDGE_HOST`): its frames go to `stream` until it ends. Resolves with the far answer and a
   * cancel.
   */
  async stream(method: string, params: unknown, stream: RemoteStream): Promise<{ result: unknown; cancel: () => void }> {
    // The request below takes this id: its frames name it as their stream.
    const id = this.nextId;
    this.streams.set(id, stream);
    let result: unknown;
    try {
      result = await this.request(method, params);
    } catch (error) {
      this.streams.delete(id);
      throw error;
    }
    const cancel = () => {
      if (!this.streams.delete(id)) return;
      this.request(BRIDGE_CANCEL, { stream: id }).catch(() => undefined);
    };
    return { result, cancel };
  }

  private offline(): RpcError {
    const why = this.reason ? `: ${this.reason}` : '';
    return new RpcError(ErrorCode.MachineUnavailable, `${this.name} is ${this.state}${why}`, { reason: 'machine_offline', machine: this.name, state: this.state });
  }

  private onLine(line: string) {
    if (line.trim() === '') return;
    let message: { id?: unknown; method?: unknown; params?: Record<string, unknown>; result?: unknown; error?: { code: number; message: string; data?: Record<string, unknown> } };
    try {
      message = JSON.parse(line);
    } catch {
      // A login script that prints (a banner, an rc file's echo) before the bridge: not ours.
      if (!this.hello) this.log(`machine ${this.name}: ignored a line before the bridge's hello`);
      return;
    }
    this.lastSeen = Date.now();
    if (message.method === BRIDGE_HELLO) return this.greeted(message.params as unknown as BridgeHello);
    if (message.method === BRIDGE_FRAME) return this.streams.get(Number(message.params?.stream))?.frame(message.params?.frame as Record<string, unknown>);
    if (message.method === BRIDGE_END) {
      const id = Number(message.params?.stream);
      const stream = this.streams.get(id);
      this.streams.delete(id);
      return stream?.end();
    }
    const pending = typeof message.id === 'number' ? this.pending.get(message.id) : undefined;
    if (!pending) return;
    this.pending.delete(message.id as number);
    clearTimeout(pending.timer);
    if (message.error) pending.reject(new RpcError(message.error.code, message.error.message, message.error.data));
    else pending.resolve(message.result);
  }

  private greeted(hello: BridgeHello) {
    if (this.hello || !this.child) return;
    // Another protocol would misread what crosses: said, and tried again (an update there may come).
    if (hello.protocol !== PUBLIC_PROTOCOL_VERSION) return this.fail(this.child, `${this.name} runs Paneflow ${hello.version} (protocol ${hello.protocol}); this one speaks protocol ${PUBLIC_PROTOCOL_VERSION}: update one of them`);
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.helloTimer = null;
    this.hello = hello;
    this.attempt = 0;
    this.everConnected = true;
    this.setState('connected', null);
    this.events.connected(hello);
  }

  /** Ends this child with `reason` (its close does the rest). */
  private fail(child: ChildProcessWithoutNullStreams, reason: string) {
    if (this.child !== child) return;
    this.failReason ??= reason;
    child.kill('SIGTERM');
    // A child that cannot be spawned has no close of its own to wait for.
    if (child.pid === undefined) this.ended(child, null, null, '');
  }

  private ended(child: ChildProcessWithoutNullStreams, code: number | null, signal: NodeJS.Signals | null, stderr: string) {
    if (this.child !== child) return;
    this.child = null;
    if (this.helloTimer) clearTimeout(this.helloTimer);
    this.helloTimer = null;
    const hadHello = this.hello !== null;
    this.hello = null;
    const reason = this.failReason ?? whyEnded(this.name, code, signal, stderr, hadHello);
    this.failReason = null;
    const error = new RpcError(ErrorCode.MachineUnavailable, `${this.name}: ${reason}`, { reason: 'machine_offline', machine: this.name });
    for (const [, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
    }
    this.pending.clear();
    const streams = [...this.streams.values()];
    this.streams.clear();
    for (const stream of streams) stream.end();
    if (this.stopped) return;
    this.setState(this.everConnected ? 'reconnecting' : 'offline', reason);
    this.log(`machine ${this.name}: ${reason}`);
    const wait = LINK_BACKOFF_MS[Math.min(this.attempt, LINK_BACKOFF_MS.length - 1)];
    this.attempt++;
    this.retry = setTimeout(() => {
      this.retry = null;
      this.start();
    }, wait);
  }

  private setState(state: MachineState, reason: string | null) {
    if (state === this.state && reason === this.reason) return;
    if (state !== this.state) this.since = Date.now();
    this.state = state;
    this.reason = reason;
    this.events.state(state, reason);
  }
}

/** Why ssh ended, in one line: a missing Paneflow said so, else ssh's (or the far side's) last words. */
export function whyEnded(name: string, code: number | null, signal: NodeJS.Signals | null, stderr: string, hadHello: boolean): string {
  const last =
    stderr
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .at(-1)
      ?.slice(0, REASON_CHARS) ?? null;
  if (!hadHello && (code === 127 || /command not found|No such file or directory|not found$/.test(last ?? ''))) {
    return `Paneflow is not installed on ${name} (or not on its login's PATH; see --remote-command)${last ? `: ${last}` : ''}`;
  }
  if (last) return last;
  if (signal) return `ssh ended by ${signal}`;
  return hadHello ? `the link closed (ssh exit ${code})` : `ssh exited ${code} before Paneflow answered`;
}
