// The desktop's one way out (REFERENCE.md §1.4): the workspace model, status and events from
// serve's public socket; terminal bytes straight from the host (attach, output, user input,
// resize), so a serve restart never interrupts a terminal. Electron's main process and the
// browser test harness both carry the renderer's calls here.
import { call, RpcConnection } from '@paneflow/rpc/client';
import type { Endpoints } from '@paneflow/rpc/endpoints';
import { HOST_PROTOCOL_VERSION, type HostMethods, type OutputFrame } from '@paneflow/rpc/host-protocol';
import type { PublicMethods } from '@paneflow/rpc/public-protocol';
import type { MethodName, ParamsOf } from '@paneflow/rpc/schema';

/** How long a lost output stream waits before it attaches again. */
export const REATTACH_MS = 500;

/** What a mirror receives: its start, then output, and word when it must start over. */
export interface MirrorSink {
  /** A fresh start: clear the mirror and write `checkpoint`. */
  reset(start: { checkpoint: string; cols: number; rows: number; generation: number }): void;
  /** Output bytes, base64, in order. */
  data(base64: string): void;
  /** `host_replaced` when the host's instance changed, `lost` while it cannot be reached. */
  state(state: 'attached' | 'lost' | 'host_replaced'): void;
}

export class DesktopBridge {
  private host: RpcConnection<HostMethods> | null = null;
  private hostInstance: string | null = null;
  private readonly subscriptions = new Map<number, RpcConnection<PublicMethods>>();
  private readonly mirrors = new Map<string, { stop: () => void }>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly endpoints: Endpoints) {}

  /** One request to serve. */
  request(method: string, params: unknown): Promise<unknown> {
    return call<PublicMethods, MethodName<PublicMethods>>(this.endpoints.publicSocket, method as MethodName<PublicMethods>, params as never);
  }

  /**
   * An `events.subscribe` stream; frames go to `onFrame` until `unsubscribe` or the stream ends
   * (`onEnd`). The id is given to the callbacks too: a frame can come with the answer itself.
   */
  async subscribe(
    params: ParamsOf<PublicMethods, 'events.subscribe'>,
    onFrame: (id: number, frame: Record<string, unknown>) => void,
    onEnd: (id: number) => void,
  ): Promise<number> {
    const id = this.nextId++;
    const connection = await RpcConnection.connect<PublicMethods>(this.endpoints.publicSocket);
    connection.onFrame((frame) => onFrame(id, frame));
    connection.onClose(() => {
      if (this.subscriptions.delete(id)) onEnd(id);
    });
    try {
      await connection.request('events.subscribe', params);
    } catch (error) {
      connection.destroy();
      throw error;
    }
    this.subscriptions.set(id, connection);
    return id;
  }

  unsubscribe(id: number): void {
    const connection = this.subscriptions.get(id);
    this.subscriptions.delete(id);
    connection?.destroy();
  }

  private async hostConnection(): Promise<RpcConnection<HostMethods>> {
    if (this.host && !this.host.closed) return this.host;
    const connection = await RpcConnection.connect<HostMethods>(this.endpoints.hostSocket);
    await connection.request('host.hello', { client: 'desktop', protocol: HOST_PROTOCOL_VERSION });
    this.host = connection;
    return connection;
  }

  /** Keyboard input: origin `user`, which is what acknowledges done and error (§1.2). Never queued. */
  async input(session: string, text: string): Promise<void> {
    if (!this.mirrors.has(session)) throw new Error(`session ${session} is not attached; input is not queued`);
    await (await this.hostConnection()).request('session.input', { session, text, origin: 'user' });
  }

  async resize(session: string, cols: number, rows: number): Promise<void> {
    await (await this.hostConnection()).request('session.resize', { session, cols, rows });
  }

  /**
   * Mirrors a session: attach (checkpoint and its offset), then follow the output from there. A
   * stream that ends (host gone, offset evicted) attaches again every 500 ms.
   */
  attach(session: string, sink: MirrorSink): void {
    this.detach(session);
    let stream: RpcConnection<HostMethods> | null = null;
    let timer: NodeJS.Timeout | null = null;
    let stopped = false;
    const retry = () => {
      if (stopped || this.closed) return;
      timer = setTimeout(() => void start(), REATTACH_MS);
    };
    const start = async () => {
      try {
        const host = await this.hostConnection();
        const hello = await host.request('host.status', {});
        if (this.hostInstance !== null && hello.instance !== this.hostInstance) sink.state('host_replaced');
        this.hostInstance = hello.instance;
        stream = await RpcConnection.connect<HostMethods>(this.endpoints.hostSocket);
        await stream.request('host.hello', { client: 'desktop-mirror', protocol: HOST_PROTOCOL_VERSION });
        const start = await host.request('session.attach', { session });
        if (stopped) return stream.destroy();
        sink.reset(start);
        stream.onFrame((frame) => {
          const output = frame as OutputFrame;
          if (output.type === 'output_data') sink.data(output.data);
          else if (output.type === 'output_evicted') stream?.destroy();
        });
        stream.onClose(() => {
          if (stopped) return;
          sink.state('lost');
          retry();
        });
        await stream.request('session.output', { session, offset: start.output_offset, follow: true });
        sink.state('attached');
      } catch {
        stream?.destroy();
        if (!stopped) sink.state('lost');
        retry();
      }
    };
    this.mirrors.set(session, {
      stop: () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        stream?.destroy();
      },
    });
    void start();
  }

  detach(session: string): void {
    this.mirrors.get(session)?.stop();
    this.mirrors.delete(session);
  }

  close(): void {
    this.closed = true;
    for (const session of [...this.mirrors.keys()]) this.detach(session);
    for (const id of [...this.subscriptions.keys()]) this.unsubscribe(id);
    this.host?.destroy();
  }
}
