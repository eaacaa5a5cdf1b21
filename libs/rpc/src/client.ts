import { createConnection, type Socket } from 'node:net';
import { ErrorCode, RpcError } from '@paneflow/protocol/errors';
import { requestLine } from '@paneflow/protocol/line';
import type { MethodName, MethodTable, ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import { LineReader } from './framing';

/** Frames pushed by a streaming method can be large (host output chunks up to 1 MiB). */
const MAX_INCOMING_LINE_BYTES = 64 * 1024 * 1024;
/**
 * Where every connection's socket reads land (`onread`): a line reader copies out what it keeps
 * before the next read, so one buffer serves all. Read this way rather than through the stream's
 * `data` events, a wake for a frame costs a client about a tenth of a millisecond less (a third of
 * what a bare relay of 30 frames a second costs; bench/README.md, *CPU, 8 agents working*).
 */
const readBuffer = Buffer.allocUnsafe(64 * 1024);
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** The endpoint could not be reached at all: nothing listens, or it went away mid-request. */
export class UnreachableError extends Error {
  constructor(
    readonly endpoint: string,
    override readonly cause: Error,
  ) {
    super(`cannot reach ${endpoint}: ${cause.message}`);
    this.name = 'UnreachableError';
  }
}

export interface RequestOptions {
  timeoutMs?: number;
}

/**
 * A connection to a JSON-RPC server: requests matched to their responses by id, and every other
 * line (a stream's frames) handed to `onFrame` listeners in order.
 */
export class RpcConnection<T extends MethodTable> {
  /**
   * Requests waiting for their answers, by id. Matched here rather than by json-rpc-2.0's client,
   * whose downlevelled async layers cost a keystroke a tenth of a millisecond in attach (apps/host
   * README, *A keystroke's echo*) and every CLI verb their loading.
   */
  private readonly waiting = new Map<number, { resolve(result: unknown): void; reject(error: Error): void; timer: NodeJS.Timeout }>();
  private nextId = 1;
  private readonly frameListeners: Array<(frame: Record<string, unknown>) => void> = [];
  private readonly closeListeners: Array<() => void> = [];
  private closedFlag = false;
  /** The last connection-level error the server sent (connection cap, line too long), if any. */
  connectionError: RpcError | null = null;

  private readonly reader = new LineReader(MAX_INCOMING_LINE_BYTES);

  private constructor(
    readonly endpoint: string,
    private readonly socket: Socket,
  ) {
    socket.on('error', () => socket.destroy());
    socket.once('close', () => {
      this.closedFlag = true;
      this.failAll(this.connectionError ?? new UnreachableError(endpoint, new Error(`connection to ${endpoint} closed`)));
      for (const listener of this.closeListeners.splice(0)) listener();
    });
  }

  static connect<T extends MethodTable>(endpoint: string, options: RequestOptions = {}): Promise<RpcConnection<T>> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return new Promise((resolve, reject) => {
      let connection: RpcConnection<T> | null = null;
      const onread = {
        buffer: readBuffer,
        callback: (bytes: number) => {
          connection?.receive(readBuffer.subarray(0, bytes));
          return true; // false would pause the socket
        },
      };
      const socket = createConnection({ path: endpoint, onread });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new UnreachableError(endpoint, new Error(`no connection within ${timeoutMs} ms`)));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        connection = new RpcConnection<T>(endpoint, socket);
        resolve(connection);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        reject(new UnreachableError(endpoint, error));
      });
    });
  }

  request<M extends MethodName<T>>(method: M, params: ParamsOf<T, M>, options: RequestOptions = {}): Promise<ResultOf<T, M>> {
    return this.send(method, params, options) as Promise<ResultOf<T, M>>;
  }

  /**
   * `request` without its method's types, for the helpers below whose own signatures check them:
   * the type checker spends seconds relating one generic method's types to another's.
   */
  async send(method: string, params: unknown, options: RequestOptions = {}): Promise<unknown> {
    if (this.closedFlag) throw this.connectionError ?? new UnreachableError(this.endpoint, new Error('connection closed'));
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const id = this.nextId++;
    const result = await new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new RpcError(ErrorCode.InternalError, `no answer to ${method} within ${timeoutMs} ms`, { reason: 'timeout' }));
      }, timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.socket.write(requestLine(id, method, params as object));
    });
    // A server that put its failure in the result (REFERENCE.md §2.2: ours never does) failed all the same.
    const failure = (result as { error?: unknown } | null)?.error;
    if (typeof failure === 'string') throw new RpcError(ErrorCode.InternalError, failure, { reason: 'result_error' });
    return result;
  }

  onFrame(listener: (frame: Record<string, unknown>) => void): void {
    this.frameListeners.push(listener);
  }

  onClose(listener: () => void): void {
    if (this.closedFlag) listener();
    else this.closeListeners.push(listener);
  }

  get closed(): boolean {
    return this.closedFlag;
  }

  /** Stops reading the server's lines until `resume`: a reader that cannot keep up lets the server's own backpressure act. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.end();
    this.socket.destroySoon?.();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    let lines: string[];
    try {
      lines = this.reader.push(chunk);
    } catch {
      this.socket.destroy();
      return;
    }
    for (const line of lines) this.receiveLine(line);
  }

  private receiveLine(line: string) {
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(line);
    } catch {
      this.socket.destroy();
      return;
    }
    if (message && message.jsonrpc === '2.0' && ('result' in message || 'error' in message)) {
      const error = message.error as { code: number; message: string; data?: Record<string, unknown> } | undefined;
      if (message.id === null) {
        // An error the server could not tie to a request (connection cap, line too long).
        this.connectionError = new RpcError(error?.code ?? ErrorCode.InternalError, error?.message ?? 'connection refused');
        this.failAll(this.connectionError);
        return;
      }
      const waiting = typeof message.id === 'number' ? this.waiting.get(message.id) : undefined;
      // An answer to nothing asked, or to a request given up (timed out), is dropped.
      if (!waiting) return;
      this.waiting.delete(message.id as number);
      clearTimeout(waiting.timer);
      if (error) waiting.reject(new RpcError(typeof error.code === 'number' ? error.code : ErrorCode.InternalError, String(error.message), error.data));
      else waiting.resolve(message.result);
      return;
    }
    for (const listener of this.frameListeners) listener(message);
  }

  private failAll(error: Error): void {
    for (const { reject, timer } of this.waiting.values()) {
      clearTimeout(timer);
      reject(error);
    }
    this.waiting.clear();
  }
}

/**
 * One request on a connection of its own, as the public socket expects. The connection is closed
 * at once when the answer is in: a caller that then blocks (a CLI in spawnSync) must not keep it
 * open, or a draining server waits for it.
 */
export async function call<T extends MethodTable, M extends MethodName<T>>(
  endpoint: string,
  method: M,
  params: ParamsOf<T, M>,
  options: RequestOptions = {},
): Promise<ResultOf<T, M>> {
  const connection = await RpcConnection.connect<T>(endpoint, options);
  try {
    return (await connection.send(method, params, options)) as ResultOf<T, M>;
  } finally {
    connection.destroy();
  }
}

/** Calls a streaming method: its result, then every frame it pushes, until the connection closes. */
export async function subscribe<T extends MethodTable, M extends MethodName<T>>(
  endpoint: string,
  method: M,
  params: ParamsOf<T, M>,
  onFrame: (frame: Record<string, unknown>) => void,
  options: RequestOptions = {},
): Promise<{ result: ResultOf<T, M>; connection: RpcConnection<T> }> {
  const connection = await RpcConnection.connect<T>(endpoint, options);
  connection.onFrame(onFrame);
  try {
    const result = (await connection.send(method, params, options)) as ResultOf<T, M>;
    return { result, connection };
  } catch (error) {
    connection.destroy();
    throw error;
  }
}
