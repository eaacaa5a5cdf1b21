// Where a face's terminal bytes come from: this machine's host, straight (a serve restart never
// interrupts a terminal), or another machine's host through this serve's link to it (issue 32).
import { callChecked, connectChecked, connectHost, readHostSecret } from '@paneflow/instance/connect';
import type { Endpoints } from '@paneflow/instance/endpoints';
import { ErrorCode } from '@paneflow/protocol/errors';
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

type OutputParams = ParamsOf<HostMethods, 'session.output'>;

/**
 * Asks `session.output` to follow from `offset`: a closed socket says the stream is gone, so no
 * keepalives wake it; output gathered `gatherMs` (the host's default without). A host started
 * before streams took `gather_ms` (one still running after an upgrade) refuses the field: it is
 * asked again without it, and the face gets that host's gather.
 */
export async function askFollowing(ask: (params: OutputParams) => Promise<unknown>, session: string, offset: number, gatherMs: number | undefined): Promise<unknown> {
  const params: OutputParams = { session, offset, follow: true, keepalive: false };
  if (gatherMs === undefined) return ask(params);
  return ask({ ...params, gather_ms: gatherMs }).catch((error: { code?: number; data?: { field?: unknown } }) => {
    if (error.code === ErrorCode.InvalidParams && error.data?.field === 'gather_ms') return ask(params);
    throw error;
  });
}

/** This machine's host: one control connection shared by every call, made again once it drops. */
export class LocalTerminals implements TerminalPath {
  private host: Promise<RpcConnection<HostMethods>> | null = null;
  /** The connection once open: a call on it is written in the caller's own turn, not after an await. */
  private open: RpcConnection<HostMethods> | null = null;

  constructor(
    private readonly endpoints: Endpoints,
    private readonly face: string,
    private readonly gatherMs: number | undefined,
  ) {}

  call<M extends TerminalMethod>(method: M, params: ParamsOf<HostMethods, M>): Promise<ResultOf<HostMethods, M>> {
    // A keystroke goes out before the turn ends: behind an await it waited for the stream work
    // Node queued after the key's read (about 80 µs of an echo's time, apps/host README).
    if (this.open && !this.open.closed) return this.open.request(method, params);
    return this.connection().then((connection) => connection.request(method, params));
  }

  async openStream(): Promise<OutputStream> {
    const { connection, hello } = await connectHost(this.endpoints, 'desktop-mirror');
    return outputStream(connection, hello.instance, (session, offset) => askFollowing((params) => connection.request('session.output', params), session, offset, this.gatherMs));
  }

  private connection(): Promise<RpcConnection<HostMethods>> {
    if (!this.host) {
      const opening = (async () => {
        const { connection } = await connectHost(this.endpoints, this.face);
        connection.onClose(() => {
          if (this.host === opening) this.host = null;
          if (this.open === connection) this.open = null;
        });
        return connection;
      })();
      this.host = opening;
      opening.then(
        (connection) => {
          if (this.host === opening && !connection.closed) this.open = connection;
        },
        () => {
          if (this.host === opening) this.host = null;
        },
      );
    }
    return this.host;
  }

  close(): void {
    this.open = null;
    void this.host?.then((connection) => connection.destroy(), () => undefined);
  }
}

/**
 * Another machine's host, through this serve (`machine.terminal`): each call shows this machine's
 * host secret, as a face shows it to the host here, since what it types lands as a keyboard there.
 */
export class FarTerminals implements TerminalPath {
  /** Keyboard input waiting for the one before it: each call has a connection of its own, so only waiting keeps keys in order. */
  private readonly typed: Array<{ params: ParamsOf<HostMethods, 'session.input'>; done: (error: unknown) => void }> = [];
  private typing = false;

  constructor(
    private readonly endpoints: Endpoints,
    private readonly machine: string,
    private readonly gatherMs: number | undefined,
  ) {}

  private params(method: TerminalMethod, params: unknown): ParamsOf<PublicMethods, 'machine.terminal'> {
    return { machine: this.machine, host_secret: readHostSecret(this.endpoints.home) ?? '', method, params: params as Record<string, unknown> };
  }

  async call<M extends TerminalMethod>(method: M, params: ParamsOf<HostMethods, M>): Promise<ResultOf<HostMethods, M>> {
    if (method === 'session.input') {
      await new Promise<void>((resolve, reject) => {
        this.typed.push({ params: params as ParamsOf<HostMethods, 'session.input'>, done: (error) => (error ? reject(error) : resolve()) });
        void this.type();
      });
      // What a face reads of an input's answer: nothing (the keys went, or the call threw).
      return undefined as ResultOf<HostMethods, M>;
    }
    return this.send(method, params);
  }

  private async send<M extends TerminalMethod>(method: M, params: ParamsOf<HostMethods, M>): Promise<ResultOf<HostMethods, M>> {
    return (await callChecked<PublicMethods, 'machine.terminal'>(this.endpoints.publicSocket, 'machine.terminal', this.params(method, params))) as ResultOf<HostMethods, M>;
  }

  /** Sends typed input one request at a time, keys typed meanwhile to the same pane joined into the next. */
  private async type() {
    if (this.typing) return;
    this.typing = true;
    while (this.typed.length > 0) {
      const first = this.typed.shift()!;
      const batch = [first];
      const joins = (next: (typeof this.typed)[number]) => next.params.session === first.params.session && !next.params.paste && !first.params.paste && next.params.origin === first.params.origin;
      while (this.typed.length > 0 && joins(this.typed[0])) batch.push(this.typed.shift()!);
      const text = batch.map((entry) => entry.params.text).join('');
      const error = await this.send('session.input', { ...first.params, text }).then(
        () => null,
        (failure: unknown) => failure ?? new Error('input failed'),
      );
      for (const entry of batch) entry.done(error);
    }
    this.typing = false;
  }

  async openStream(): Promise<OutputStream> {
    const connection = await connectChecked<PublicMethods>(this.endpoints.publicSocket);
    return outputStream(connection, null, (session, offset) => askFollowing((params) => connection.request('machine.terminal', this.params('session.output', params)), session, offset, this.gatherMs));
  }

  close(): void {
    // Nothing is kept open between calls: each call and each stream has a connection of its own.
  }
}
