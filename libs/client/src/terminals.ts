// Where a face's terminal bytes come from: this machine's host, straight (a serve restart never
// interrupts a terminal), or another machine's host through this serve's link to it (issue 32).
import { callChecked, connectChecked, connectHost, readHostSecret } from '@paneflow/instance/connect';
import type { Endpoints } from '@paneflow/instance/endpoints';
import type { HostMethods, OutputFrame } from '@paneflow/protocol/host-protocol';
import type { TerminalMethod } from '@paneflow/protocol/bridge';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { MethodTable, ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import type { RpcConnection } from '@paneflow/rpc/client';

/** One output stream of its own: the host instance it reached (null when it cannot be told), then its frames. */
export interface OutputStream {
  instance: string | null;
  follow(session: string, offset: number, onFrame: (frame: OutputFrame) => void): Promise<unknown>;
  onClose(listener: () => void): void;
  destroy(): void;
}

export interface TerminalPath {
  call<M extends TerminalMethod>(method: M, params: ParamsOf<HostMethods, M>): Promise<ResultOf<HostMethods, M>>;
  openStream(): Promise<OutputStream>;
  close(): void;
}

/** A connection's stream of `session.output` frames, asked for with `ask`. */
function outputStream<T extends MethodTable>(connection: RpcConnection<T>, instance: string | null, ask: (session: string, offset: number) => Promise<unknown>): OutputStream {
  return {
    instance,
    follow: (session, offset, onFrame) => {
      connection.onFrame((frame) => onFrame(frame as OutputFrame));
      return ask(session, offset);
    },
    onClose: (listener) => connection.onClose(listener),
    destroy: () => connection.destroy(),
  };
}

/** The same request `session.output` takes, following from `offset`: a closed socket says the stream is gone, so no keepalives wake it. */
const following = (session: string, offset: number) => ({ session, offset, follow: true, keepalive: false });

/** This machine's host: one control connection shared by every call, made again once it drops. */
export class LocalTerminals implements TerminalPath {
  private host: Promise<RpcConnection<HostMethods>> | null = null;

  constructor(
    private readonly endpoints: Endpoints,
    private readonly face: string,
  ) {}

  async call<M extends TerminalMethod>(method: M, params: ParamsOf<HostMethods, M>): Promise<ResultOf<HostMethods, M>> {
    return (await this.connection()).request(method, params);
  }

  async openStream(): Promise<OutputStream> {
    const { connection, hello } = await connectHost(this.endpoints, 'desktop-mirror');
    return outputStream(connection, hello.instance, (session, offset) => connection.request('session.output', following(session, offset)));
  }

  private connection(): Promise<RpcConnection<HostMethods>> {
    if (!this.host) {
      const opening = (async () => {
        const { connection } = await connectHost(this.endpoints, this.face);
        connection.onClose(() => {
          if (this.host === opening) this.host = null;
        });
        return connection;
      })();
      this.host = opening;
      opening.catch(() => {
        if (this.host === opening) this.host = null;
      });
    }
    return this.host;
  }

  close(): void {
    void this.host?.then((connection) => connection.destroy(), () => undefined);
  }
}

/**
 * Another machine's host, through this serve (`machine.terminal`): each call shows this machine's
 * host secret, as a face shows it to the host here, since what it types lands as a keyboard there.
 */
export class FarTerminals implements TerminalPath {
  constructor(
    private readonly endpoints: Endpoints,
    private readonly machine: string,
  ) {}

  private params(method: TerminalMethod, params: unknown): ParamsOf<PublicMethods, 'machine.terminal'> {
    return { machine: this.machine, host_secret: readHostSecret(this.endpoints.home) ?? '', method, params: params as Record<string, unknown> };
  }

  async call<M extends TerminalMethod>(method: M, params: ParamsOf<HostMethods, M>): Promise<ResultOf<HostMethods, M>> {
    return (await callChecked<PublicMethods, 'machine.terminal'>(this.endpoints.publicSocket, 'machine.terminal', this.params(method, params))) as ResultOf<HostMethods, M>;
  }

  async openStream(): Promise<OutputStream> {
    const connection = await connectChecked<PublicMethods>(this.endpoints.publicSocket);
    return outputStream(connection, null, (session, offset) => connection.request('machine.terminal', this.params('session.output', following(session, offset))));
  }

  close(): void {
    // Nothing is kept open between calls: each call and each stream has a connection of its own.
  }
}
