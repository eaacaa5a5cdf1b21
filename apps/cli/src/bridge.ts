// `paneflow rpc --stdio`: the far end of a machine link (issue 32; the contract is libs/protocol's
// bridge.ts). A thin relay: it reads no more of a request than its id and method;
// serve answers (and refuses) as it would any local client.
import { BUILD_ID } from '@paneflow/instance/build-id';
import { connectChecked, connectHost } from '@paneflow/instance/connect';
import type { Endpoints } from '@paneflow/instance/endpoints';
import { ErrorCode, RpcError } from '@paneflow/protocol/errors';
import { MAX_REQUEST_ID_CHARS, MAX_REQUEST_LINE_BYTES } from '@paneflow/protocol/limits';
import { encodeLine } from '@paneflow/protocol/line';
import { BRIDGE_CANCEL, BRIDGE_END, BRIDGE_FRAME, BRIDGE_HELLO, BRIDGE_HOST, TERMINAL_METHODS, type BridgeHello } from '@paneflow/protocol/bridge';
import type { HostMethods } from '@paneflow/protocol/host-protocol';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import { PUBLIC_PROTOCOL_VERSION } from '@paneflow/protocol/versions';
import type { RpcConnection } from '@paneflow/rpc/client';
import { errorResponse } from '@paneflow/rpc/framing';
import { requestDeadlineMs } from '@paneflow/protocol/deadlines';

/** The one method whose connection stays open after its answer, its frames following. */
const STREAMING_METHOD = 'events.subscribe';
/** Output stdout has not taken past this (a stalled ssh) ends every stream rather than grow. */
export const BRIDGE_OUTPUT_MAX_BYTES = 16 * 1024 * 1024;

type Id = string | number;

/** A connection of serve's or of the host's: the bridge only sends, reads answers and frames, and closes. */
type AnyConnection = RpcConnection<PublicMethods> | RpcConnection<HostMethods>;

interface Stream {
  connection: AnyConnection;
  /** Frames that came before the answer went out: they follow it. */
  held: Record<string, unknown>[] | null;
}

/**
 * Splits stdin into lines. A line over MAX_REQUEST_LINE_BYTES is not kept: `onLong` is told once
 * and the rest of it is skipped up to its newline, so one bad line costs bounded memory and the
 * next line is read as usual.
 */
class LineSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;

  constructor(
    private readonly onLine: (line: string) => void,
    private readonly onLong: () => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (!this.skipping && this.pendingBytes + piece.length > MAX_REQUEST_LINE_BYTES) {
        this.skipping = true;
        this.pending = [];
        this.pendingBytes = 0;
        this.onLong();
      }
      if (!this.skipping && piece.length > 0) {
        this.pending.push(Buffer.from(piece));
        this.pendingBytes += piece.length;
      }
      if (nl === -1) return;
      if (!this.skipping) this.onLine(Buffer.concat(this.pending).toString('utf8'));
      this.pending = [];
      this.pendingBytes = 0;
      this.skipping = false;
      start = nl + 1;
    }
  }
}

/** A request's id when it is one the answer can carry back; else why not. */
function idOf(request: unknown): Id | { fault: string } {
  const id = request && typeof request === 'object' && !Array.isArray(request) ? (request as { id?: unknown }).id : undefined;
  if (Array.isArray(request)) return { fault: 'invalid request: batches are not supported' };
  if (typeof id === 'number' || (typeof id === 'string' && id.length <= MAX_REQUEST_ID_CHARS)) return id;
  if (typeof id === 'string') return { fault: `invalid request: a string id may have at most ${MAX_REQUEST_ID_CHARS} characters` };
  return { fault: 'invalid request: the bridge carries requests, each with a string or number id' };
}

/** What an answer that failed says: serve's own error as it sent it, or the client's (unreachable, no answer in time). */
function errorOf(error: unknown): { code: number; message: string; data?: unknown } {
  if (error instanceof RpcError) return error.toObject();
  const message = error instanceof Error ? error.message : String(error);
  return { code: ErrorCode.MachineUnavailable, message, data: { reason: 'machine_offline' } };
}

/** A `BRIDGE_HOST` request's terminal method and params, or why it is none. */
function terminalRequest(params: unknown): { method: string; params: Record<string, unknown> } | { fault: string } {
  const { method, params: inner } = (params ?? {}) as { method?: unknown; params?: unknown };
  if (typeof method !== 'string' || !(TERMINAL_METHODS as readonly string[]).includes(method)) return { fault: `${BRIDGE_HOST} carries only ${TERMINAL_METHODS.join(', ')}` };
  if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) return { fault: `${BRIDGE_HOST} needs params {method, params: {…}}` };
  return { method, params: inner as Record<string, unknown> };
}

export class Bridge {
  private readonly streams = new Map<Id, Stream>();
  /** Every connection to serve now open, streams and one-shot requests alike. */
  private readonly connections = new Set<AnyConnection>();
  private hostControl: Promise<RpcConnection<HostMethods>> | null = null;
  private closed = false;
  private draining = false;
  private finish!: () => void;
  /** Settles when stdin ends or stdout fails, once every connection to serve is closed. */
  readonly done = new Promise<void>((resolve) => (this.finish = resolve));

  constructor(
    private readonly endpoints: Endpoints,
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream & { writableLength: number },
  ) {}

  start(): void {
    const hello: BridgeHello = { name: 'paneflow-rpc', version: BUILD_ID, protocol: PUBLIC_PROTOCOL_VERSION };
    this.write({ jsonrpc: '2.0', method: BRIDGE_HELLO, params: hello });
    const lines = new LineSplitter(
      (line) => this.receive(line),
      () => this.write(errorResponse(null, ErrorCode.InvalidRequest, `request line over ${MAX_REQUEST_LINE_BYTES} bytes`)),
    );
    this.input.on('data', (chunk: Buffer) => lines.push(chunk));
    this.input.once('end', () => this.close());
    this.input.once('error', () => this.close());
    this.output.on('error', () => this.close());
  }

  /** Ends the bridge: every connection to serve closed, nothing more written. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.streams.clear();
    for (const connection of this.connections) connection.destroy();
    this.connections.clear();
    this.finish();
  }

  private receive(line: string): void {
    if (line.trim() === '') return;
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      this.write(errorResponse(null, ErrorCode.ParseError, 'parse error: the line is not JSON'));
      return;
    }
    const id = idOf(request);
    if (typeof id === 'object') {
      this.write(errorResponse(null, ErrorCode.InvalidRequest, id.fault));
      return;
    }
    const { jsonrpc, method, params } = request as { jsonrpc?: unknown; method?: unknown; params?: unknown };
    if (jsonrpc !== '2.0' || typeof method !== 'string') {
      this.write(errorResponse(id, ErrorCode.InvalidRequest, 'invalid request: expected {jsonrpc: "2.0", id, method, params?: {…}}'));
      return;
    }
    if (method === BRIDGE_CANCEL) return this.cancel(id, (params as { stream?: unknown } | null)?.stream);
    const host = method === BRIDGE_HOST ? terminalRequest(params) : null;
    if (host && 'fault' in host) {
      this.write(errorResponse(id, ErrorCode.InvalidParams, host.fault, { reason: 'invalid_params' }));
      return;
    }
    const streaming = host ? host.method === 'session.output' && host.params.follow === true : method === STREAMING_METHOD;
    if (streaming && this.streams.has(id)) {
      this.write(errorResponse(id, ErrorCode.InvalidRequest, `a stream with id ${JSON.stringify(id)} is open: a subscription needs an id of its own`, { reason: 'duplicate_stream' }));
      return;
    }
    if (host && !streaming) void this.hostCall(id, host.method, host.params);
    else if (host) void this.relay(id, host.method, host.params, streaming, (timeoutMs) => connectHost(this.endpoints, 'remote', { timeoutMs }).then(({ connection }) => connection));
    else void this.relay(id, method, params, streaming, (timeoutMs) => connectChecked<PublicMethods>(this.endpoints.publicSocket, { timeoutMs }));
  }

  /**
   * One request on a connection of its own (to serve, or for `BRIDGE_HOST` to the host, said hello
   * to with this user's secret); a stream's connection stays, its frames relayed.
   */
  private async relay(id: Id, method: string, params: unknown, streaming: boolean, connect: (timeoutMs: number) => Promise<AnyConnection>): Promise<void> {
    const timeoutMs = requestDeadlineMs(method, params);
    let connection: AnyConnection;
    try {
      connection = await connect(timeoutMs);
    } catch (error) {
      this.write({ jsonrpc: '2.0', id, error: errorOf(error) });
      return;
    }
    if (this.closed) return connection.destroy();
    this.connections.add(connection);
    connection.onClose(() => this.connections.delete(connection));
    const stream: Stream | null = streaming ? { connection, held: [] } : null;
    if (stream) {
      this.streams.set(id, stream);
      connection.onFrame((frame) => {
        if (this.streams.get(id) !== stream) return;
        if (stream.held) stream.held.push(frame);
        else this.write({ jsonrpc: '2.0', method: BRIDGE_FRAME, params: { stream: id, frame } });
      });
      if (this.draining) connection.pause();
    }
    try {
      const result = await (connection as RpcConnection<PublicMethods>).send(method, params, { timeoutMs });
      if (this.closed) return;
      this.write({ jsonrpc: '2.0', id, result });
    } catch (error) {
      if (stream && this.streams.get(id) === stream) this.streams.delete(id);
      if (!this.closed) this.write({ jsonrpc: '2.0', id, error: errorOf(error) });
      connection.destroy();
      return;
    }
    if (!stream) return connection.destroy();
    if (this.streams.get(id) !== stream) return; // cancelled, or ended for backpressure, before its answer
    for (const frame of stream.held ?? []) this.write({ jsonrpc: '2.0', method: BRIDGE_FRAME, params: { stream: id, frame } });
    stream.held = null;
    connection.onClose(() => this.endStream(id, stream));
  }

  /**
   * A host request on the one control connection to the host, opened on first use and again after
   * it drops: the host answers one connection's requests in order, so keys typed stay in order.
   */
  private async hostCall(id: Id, method: string, params: unknown): Promise<void> {
    const timeoutMs = requestDeadlineMs(method, params);
    try {
      this.hostControl ??= connectHost(this.endpoints, 'remote', { timeoutMs }).then(({ connection }) => {
        this.connections.add(connection);
        connection.onClose(() => {
          this.connections.delete(connection);
          this.hostControl = null;
        });
        return connection;
      });
      const opening = this.hostControl;
      opening.catch(() => {
        if (this.hostControl === opening) this.hostControl = null;
      });
      const result = await (await opening).send(method, params, { timeoutMs });
      this.write({ jsonrpc: '2.0', id, result });
    } catch (error) {
      this.write({ jsonrpc: '2.0', id, error: errorOf(error) });
    }
  }

  private cancel(id: Id, streamId: unknown): void {
    const stream = typeof streamId === 'string' || typeof streamId === 'number' ? this.streams.get(streamId) : undefined;
    if (!stream) {
      this.write(errorResponse(id, ErrorCode.NotFound, `no open stream with id ${JSON.stringify(streamId ?? null)}`, { reason: 'unknown_stream' }));
      return;
    }
    this.streams.delete(streamId as Id);
    stream.connection.destroy();
    this.write({ jsonrpc: '2.0', id, result: {} });
  }

  /** A stream serve closed, or one the bridge gave up (`reason`): the far side hears it once. */
  private endStream(id: Id, stream: Stream, reason?: string): void {
    if (this.streams.get(id) !== stream) return;
    this.streams.delete(id);
    stream.connection.destroy();
    if (!this.closed) this.write({ jsonrpc: '2.0', method: BRIDGE_END, params: reason ? { stream: id, reason } : { stream: id } });
  }

  /**
   * One line out. While stdout has not taken what it was given (a slow ssh), stdin and every
   * stream are paused: no new requests, and serve's own per-subscriber bound applies (it drops
   * frames and says `dropped`). Past BRIDGE_OUTPUT_MAX_BYTES the streams are ended.
   */
  private write(message: unknown): void {
    if (this.closed) return;
    const flowing = this.output.write(encodeLine(message));
    if (this.output.writableLength > BRIDGE_OUTPUT_MAX_BYTES) {
      for (const [id, stream] of [...this.streams]) this.endStream(id, stream, `the output to the link is over ${BRIDGE_OUTPUT_MAX_BYTES} bytes behind`);
    }
    if (flowing || this.draining) return;
    this.draining = true;
    this.input.pause();
    for (const stream of this.streams.values()) stream.connection.pause();
    this.output.once('drain', () => {
      this.draining = false;
      if (this.closed) return;
      this.input.resume();
      for (const stream of this.streams.values()) stream.connection.resume();
    });
  }
}
