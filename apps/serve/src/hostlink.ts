import { connectHost, type Endpoints, ensureHost } from '@paneflow/instance';
import { ErrorCode, type HostFrame, type HostMethods, type Manifest, type MethodName, type ParamsOf, type ResultOf, RpcError } from '@paneflow/protocol';
import type { RpcConnection } from '@paneflow/rpc';

const RECONNECT_MS = 1000;

/**
 * serve's connection to the host: hello, the full session list, then `agent.follow`. When the
 * host goes away, every request fails with -32010 and the link starts the host again and
 * reconnects every second; each connection begins with a fresh list and snapshot.
 */
export class HostLink {
  private connection: RpcConnection<HostMethods> | null = null;
  private stopped = false;
  instance: string | null = null;

  constructor(
    private readonly endpoints: Endpoints,
    private readonly handlers: {
      connected(manifests: Manifest[]): void;
      frame(frame: HostFrame): void;
      disconnected(): void;
    },
    private readonly log: (message: string) => void,
  ) {}

  get available(): boolean {
    return this.connection !== null && !this.connection.closed;
  }

  async start(): Promise<void> {
    await this.connect();
  }

  private async connect(): Promise<void> {
    while (!this.stopped) {
      try {
        await ensureHost(this.endpoints);
        const { connection, hello } = await connectHost(this.endpoints, 'paneflow-serve');
        const { sessions } = await connection.request('session.list', {});
        this.instance = hello.instance;
        this.connection = connection;
        connection.onFrame((frame) => this.handlers.frame(frame as HostFrame));
        connection.onClose(() => {
          if (this.connection !== connection) return;
          this.connection = null;
          this.handlers.disconnected();
          if (!this.stopped) setTimeout(() => void this.connect(), RECONNECT_MS);
        });
        this.handlers.connected(sessions);
        await connection.request('agent.follow', {});
        this.log(`following host ${hello.instance} (${sessions.length} sessions)`);
        return;
      } catch (error) {
        this.log(`host unavailable: ${(error as Error).message}; retrying in ${RECONNECT_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
      }
    }
  }

  async request<M extends MethodName<HostMethods>>(method: M, params: ParamsOf<HostMethods, M>, timeoutMs?: number): Promise<ResultOf<HostMethods, M>> {
    const connection = this.connection;
    if (!connection || connection.closed) throw new RpcError(ErrorCode.HostUnavailable, 'the host is unavailable', { reason: 'host_unavailable' });
    try {
      // `send`, not `request`: awaiting the generic result type costs the type checker seconds.
      return (await connection.send(method, params, { timeoutMs })) as ResultOf<HostMethods, M>;
    } catch (error) {
      if (error instanceof RpcError) throw error;
      throw new RpcError(ErrorCode.HostUnavailable, `the host is unavailable: ${(error as Error).message}`, { reason: 'host_unavailable' });
    }
  }

  close(): void {
    this.stopped = true;
    this.connection?.close();
  }
}
