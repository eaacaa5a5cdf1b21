import { connectHost, type Endpoints, ensureHost } from '@paneflow/instance';
import {
  ErrorCode,
  FOLLOW_QUEUE_FRAMES,
  FOLLOW_READ_TIMEOUT_MS,
  HOST_CONNECTION_QUEUE,
  type HostFrame,
  type HostMethods,
  type Manifest,
  type MethodName,
  type ParamsOf,
  type ResultOf,
  RpcError,
} from '@paneflow/protocol';
import type { RpcConnection } from '@paneflow/rpc';

const RECONNECT_MS = 1000;
/** How long a request waits for a host being started again before it fails `host_unavailable`. */
const RESTART_GRACE_MS = 5000;
/** How long serve's start waits for its first try at a host before it opens its socket anyway. */
const FIRST_TRY_MS = RESTART_GRACE_MS;

/** A frame of the follow that says something about sessions (keepalives stop at the link). */
export type SessionsFrame = Exclude<HostFrame, { type: 'keepalive' }>;

/** What serve hears from its host: the full list at each connection, the follow's frames, its going away. */
export interface HostEvents {
  connected(manifests: Manifest[]): void;
  frame(frame: SessionsFrame): void;
  disconnected(): void;
  /** A try to reach a host again failed (it may have died only now: its exit is not always over when its socket closes). */
  stillDown(): void;
}

/**
 * The host as serve uses it, and all it uses: `HostLink` over host.sock, or an in-process host of
 * a test (apps/serve/test/inproc). It tells serve what happens through the `HostEvents` it is made with.
 */
export interface HostPort {
  request<M extends MethodName<HostMethods>>(method: M, params: ParamsOf<HostMethods, M>, timeoutMs?: number): Promise<ResultOf<HostMethods, M>>;
  /** Since when serve has had no host to follow, and why the last try failed: null while following one. */
  readonly down: { sinceMs: number; why: string } | null;
  start(): Promise<void>;
  close(): void;
}

/**
 * How long serve's follow may stay silent before serve drops the connection and reconnects:
 * FOLLOW_READ_TIMEOUT_MS, or a positive integer in `PANEFLOW_SERVE_FOLLOW_TIMEOUT_MS` (read at
 * start, so a test need not wait 30 s).
 */
export function followTimeoutMs(env: NodeJS.ProcessEnv): number {
  const given = Number(env.PANEFLOW_SERVE_FOLLOW_TIMEOUT_MS);
  return Number.isSafeInteger(given) && given > 0 ? given : FOLLOW_READ_TIMEOUT_MS;
}

/**
 * serve's connection to the host: hello, the full session list, then `agent.follow` (§1.3: a
 * queue of 1024 frames on the host's side, replaced by a fresh snapshot when serve lags; a
 * keepalive after 10 s of quiet, so 30 s of silence means a host that hangs: serve drops the
 * connection). When the host goes away, the link starts the host again and reconnects every
 * second, and a request waits up to 5 s for it before it fails with -32010; each connection begins with a fresh list and snapshot.
 * At most 64 requests wait for the host's answers at once (its per-connection queue); more wait here.
 */
export class HostLink implements HostPort {
  private connection: RpcConnection<HostMethods> | null = null;
  private stopped = false;
  private silence: NodeJS.Timeout | null = null;
  private inFlight = 0;
  private readonly waiting: Array<() => void> = [];
  /** Callers waiting for the next connection (`whenConnected`). */
  private readonly reconnectWaiters = new Set<() => void>();
  private readonly followTimeoutMs = followTimeoutMs(process.env);
  instance: string | null = null;
  /** Since when serve has had no host to follow, and why the last try failed: null while following one. */
  down: { sinceMs: number; why: string } | null = { sinceMs: Date.now(), why: 'not connected yet' };

  constructor(
    private readonly endpoints: Endpoints,
    private readonly handlers: HostEvents,
    private readonly log: (message: string) => void,
  ) {}

  get available(): boolean {
    return this.connection !== null && !this.connection.closed;
  }

  /**
   * Resolves once the first try has reached a host, failed, or taken FIRST_TRY_MS: serve then
   * opens its socket whatever the host does (one that hangs must not keep every client out, and
   * `serve.status` says it is missing), and the link goes on trying.
   */
  async start(): Promise<void> {
    let tried = () => undefined as void;
    const firstTry = new Promise<void>((resolve) => (tried = resolve));
    void this.connect(tried);
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([firstTry, new Promise((resolve) => (bound = setTimeout(resolve, FIRST_TRY_MS)))]);
    clearTimeout(bound);
  }

  /** Connects, retrying every second until it follows a host; `tried` is told after the first try. */
  private async connect(tried: () => void = () => undefined): Promise<void> {
    while (!this.stopped) {
      try {
        await ensureHost(this.endpoints);
        const { connection, hello } = await connectHost(this.endpoints, 'paneflow-serve');
        const { sessions } = await connection.request('session.list', {});
        this.instance = hello.instance;
        this.connection = connection;
        connection.onFrame((frame) => {
          this.heard(connection);
          if (frame.type !== 'keepalive') this.handlers.frame(frame as SessionsFrame);
        });
        connection.onClose(() => {
          if (this.silence) clearTimeout(this.silence);
          this.silence = null;
          if (this.connection !== connection) return;
          this.connection = null;
          this.down = { sinceMs: Date.now(), why: 'the connection closed' };
          this.handlers.disconnected();
          if (!this.stopped) setTimeout(() => void this.connect(), RECONNECT_MS);
        });
        this.down = null;
        this.handlers.connected(sessions);
        for (const wake of this.reconnectWaiters) wake();
        this.heard(connection);
        await connection.request('agent.follow', { max_frames: FOLLOW_QUEUE_FRAMES, keepalive: true });
        this.log(`following host ${hello.instance} (${sessions.length} sessions)`);
        tried();
        return;
      } catch (error) {
        const why = (error as Error).message;
        // Said once per reason: a host that cannot start fails the same way every second.
        if (this.down?.why !== why) this.log(`host unavailable: ${why}; retrying every ${RECONNECT_MS} ms`);
        this.down = { sinceMs: this.down?.sinceMs ?? Date.now(), why };
        this.handlers.stillDown();
        tried();
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    }
  }

  /** Resolves true once serve follows a host (at once if it does), false after `timeoutMs`. */
  whenConnected(timeoutMs: number): Promise<boolean> {
    if (this.down === null) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (connected: boolean) => {
        clearTimeout(timer);
        this.reconnectWaiters.delete(wake);
        resolve(connected);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.reconnectWaiters.add(wake);
    });
  }

  /** A frame came: the follow is alive for another read timeout. */
  private heard(connection: RpcConnection<HostMethods>) {
    if (this.silence) clearTimeout(this.silence);
    this.silence = setTimeout(() => {
      this.log(`the host sent nothing for ${this.followTimeoutMs} ms; reconnecting`);
      connection.destroy();
    }, this.followTimeoutMs);
  }

  async request<M extends MethodName<HostMethods>>(method: M, params: ParamsOf<HostMethods, M>, timeoutMs?: number): Promise<ResultOf<HostMethods, M>> {
    // A host that died is started again within a second or two: a request then waits for it.
    if (!this.available && !(await this.whenConnected(Math.min(RESTART_GRACE_MS, timeoutMs ?? RESTART_GRACE_MS)))) throw new RpcError(ErrorCode.HostUnavailable, 'the host is unavailable', { reason: 'host_unavailable' });
    if (this.inFlight < HOST_CONNECTION_QUEUE) this.inFlight++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      const connection = this.connection;
      if (!connection || connection.closed) throw new RpcError(ErrorCode.HostUnavailable, 'the host is unavailable', { reason: 'host_unavailable' });
      // `send`, not `request`: awaiting the generic result type costs the type checker seconds.
      return (await connection.send(method, params, { timeoutMs })) as ResultOf<HostMethods, M>;
    } catch (error) {
      if (error instanceof RpcError) throw error;
      // The socket's own words (which may name its path) are serve.log's, not every client's.
      this.log(`host request ${method} failed: ${(error as Error).message}`);
      throw new RpcError(ErrorCode.HostUnavailable, 'the host is unavailable', { reason: 'host_unavailable' });
    } finally {
      // The slot goes straight to the next waiting request, so no newcomer can take it first.
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }

  close(): void {
    this.stopped = true;
    if (this.silence) clearTimeout(this.silence);
    this.connection?.close();
  }
}
