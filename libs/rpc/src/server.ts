import type { Socket } from 'node:net';
import { ErrorCode, RpcError } from '@paneflow/protocol/errors';
import { MAX_REQUEST_ID_CHARS, MAX_REQUEST_LINE_BYTES } from '@paneflow/protocol/limits';
import { encodeLine } from '@paneflow/protocol/line';
import { validate, type MethodName, type MethodTable, type ParamsOf, type ResultOf } from '@paneflow/protocol/schema';
import { Connection, StreamReply } from './connection';
import { errorResponse, LineReader, LineTooLongError } from './framing';
import { SocketListener, type KeepOptions } from './listener';

export { Connection, StreamReply } from './connection';
export { isListening, type KeepOptions } from './listener';

/** How long a refused client has to read its answer and leave. */
const REFUSED_GRACE_MS = 1000;

export interface CallContext {
  connection: Connection;
  method: string;
}

export type Handler<T extends MethodTable, M extends MethodName<T>> = (
  params: ParamsOf<T, M>,
  context: CallContext,
) => ResultOf<T, M> | StreamReply<ResultOf<T, M>> | Promise<ResultOf<T, M> | StreamReply<ResultOf<T, M>>>;

export type Handlers<T extends MethodTable> = { [M in MethodName<T>]?: Handler<T, M> };

export interface ServerOptions<T extends MethodTable> {
  methods: T;
  handlers: Handlers<T>;
  /**
   * `single`: one request per connection, answered then closed, unless the method streams (the
   * public socket). `multi`: any number of requests per connection (the host's socket).
   */
  mode: 'single' | 'multi';
  maxLineBytes?: number;
  /**
   * Connections beyond this get a -32000 error and are closed, unless one has not sent a complete
   * line yet: the oldest such gives its place to the newcomer (a client sends as it connects).
   */
  maxConnections?: number;
  /**
   * Connections that may hold a stream (a `StreamReply`) at once, so that one-shot requests keep
   * room under `maxConnections`; a stream past it is refused with -32000 instead of starting.
   */
  maxStreams?: number;
  /** A connection that leaves a request unfinished this long is closed. */
  lineDeadlineMs?: number;
  /** A connection that has not sent a complete line this long after it connected is closed. */
  firstLineDeadlineMs?: number;
  /** A method that must succeed on a connection before any other is accepted. */
  first?: MethodName<T>;
  /**
   * A line over this many bytes is refused (-32600, the connection goes on) unless its method is
   * one of `dataMethods`, which may use up to `maxLineBytes`: control frames stay small.
   */
  maxControlBytes?: number;
  dataMethods?: readonly string[];
  /** Requests one connection may have waiting for their answers (`multi`); the next gets -32000 `queue_full`, unrun. */
  maxPending?: number;
  /** Called for each well-formed request, before it is dispatched (a work counter). */
  onRequest?: (method: string) => void;
  log?: (message: string) => void;
}

/** A request as read off the wire, checked to have this shape (`handleLine`); no id is a notification, answered with nothing. */
interface Request {
  jsonrpc: '2.0';
  id?: string | number | null;
  method: string;
  params?: Record<string, unknown>;
}
type Response = { jsonrpc: '2.0'; id: string | number | null; result: unknown } | ReturnType<typeof errorResponse>;

const FIRST_DONE = 'rpc.firstDone';
/** The first request's answer while it is being made. */
const FIRST_PENDING = 'rpc.firstPending';
/** Requests of a connection not answered yet. */
const PENDING = 'rpc.pending';

/**
 * A JSON-RPC 2.0 server on a unix socket, newline-delimited. Every request is checked against its
 * method's schema before the handler runs; whatever a client sends, the server answers with an
 * error or closes that connection, and goes on serving the others.
 */
export class RpcServer<T extends MethodTable> {
  private readonly listener: SocketListener;
  private readonly sockets = new Set<Socket>();
  /** Counted connections that have not sent a complete line yet, oldest first. */
  private readonly silent = new Set<Socket>();
  private readonly streams = new Set<Connection>();

  constructor(private readonly options: ServerOptions<T>) {
    this.listener = new SocketListener((socket) => this.accept(socket), options.log);
  }

  /**
   * Runs a request's handler once its params pass their schema, and makes its answer: the result,
   * or the error it threw (an RpcError as it is; anything else -32603, logged with its stack). Our
   * own rather than json-rpc-2.0's server, whose downlevelled async layers cost every request
   * (a keystroke's echo among them: apps/host README) tens of microseconds.
   */
  private async answer(request: Request, context: CallContext): Promise<Response | null> {
    const { id } = request;
    try {
      const result = await this.run(request.method as MethodName<T>, request.params ?? {}, context);
      return id === undefined ? null : { jsonrpc: '2.0', id, result };
    } catch (error) {
      if (!(error instanceof RpcError)) this.options.log?.(`handler failed: ${(error as Error)?.stack ?? String(error)}`);
      if (id === undefined) return null;
      const { code, message, data } = error instanceof RpcError ? error.toObject() : { code: ErrorCode.InternalError, message: `internal error: ${(error as Error)?.message ?? String(error)}`, data: undefined };
      return errorResponse(id, code, message, data);
    }
  }

  private run(name: MethodName<T>, params: object, context: CallContext) {
    const spec = Object.hasOwn(this.options.methods, name) ? this.options.methods[name] : undefined;
    const handler = spec && this.options.handlers[name];
    if (!handler) throw new RpcError(ErrorCode.MethodNotFound, `method not found: ${name}`);
    const problem = validate(spec.params, params);
    if (problem) throw new RpcError(ErrorCode.InvalidParams, `invalid params: ${problem.message}`, { reason: 'invalid_params', field: problem.field });
    return handler(params as ParamsOf<T, typeof name>, context);
  }

  /**
   * Listens on `path`, replacing a dead socket file; the file gets mode 0600. With `keep`, a socket
   * file removed or replaced later (or its directory) is made again at once (`SocketListener`).
   */
  listen(path: string, keep?: KeepOptions): Promise<void> {
    return this.listener.listen(path, keep);
  }

  get connectionCount(): number {
    return this.sockets.size;
  }

  /** Stops accepting; with `drop`, also closes every open connection. */
  async close(drop = true): Promise<void> {
    if (drop) for (const socket of this.sockets) socket.destroy();
    await this.listener.close();
  }

  private accept(socket: Socket) {
    const { mode, maxConnections = Infinity, lineDeadlineMs, firstLineDeadlineMs, maxLineBytes = MAX_REQUEST_LINE_BYTES } = this.options;
    socket.on('error', () => socket.destroy());
    if (this.sockets.size >= maxConnections) {
      // The oldest connection that has sent no request makes room; with none, the newcomer is refused.
      const idle = this.silent.values().next().value;
      if (!idle) return this.dismiss(socket, errorResponse(null, ErrorCode.Backpressure, 'too many connections'));
      this.dismiss(idle, errorResponse(null, ErrorCode.Backpressure, 'too many connections, and this one sent no request'));
    }
    this.sockets.add(socket);
    this.silent.add(socket);
    const firstLine = firstLineDeadlineMs === undefined ? null : setTimeout(() => socket.destroy(), firstLineDeadlineMs);
    const spoke = () => {
      this.silent.delete(socket);
      if (firstLine) clearTimeout(firstLine);
    };
    const connection = new Connection(socket);
    const reader = new LineReader(maxLineBytes);
    let answered = false;
    let deadline: NodeJS.Timeout | null = null;
    const armDeadline = () => {
      if (lineDeadlineMs === undefined || deadline) return;
      deadline = setTimeout(() => socket.destroy(), lineDeadlineMs);
    };
    const disarmDeadline = () => {
      if (deadline) clearTimeout(deadline);
      deadline = null;
    };
    socket.once('close', () => {
      disarmDeadline();
      spoke();
      this.sockets.delete(socket);
    });
    if (mode === 'single') armDeadline();

    socket.on('data', (chunk: Buffer) => {
      if (mode === 'single' && answered) return; // one request per connection: the rest is ignored
      let lines: string[];
      try {
        lines = reader.push(chunk);
      } catch (error) {
        if (!(error instanceof LineTooLongError)) throw error;
        this.dismiss(socket, errorResponse(null, ErrorCode.InvalidRequest, `request line over ${maxLineBytes} bytes`));
        return;
      }
      for (const line of lines) {
        if (line.trim() === '') continue;
        spoke();
        if (mode === 'single') {
          answered = true;
          disarmDeadline();
          this.handleLine(line, connection, true);
          return;
        }
        this.handleLine(line, connection, false);
      }
      if (mode === 'multi') {
        if (reader.hasPartialLine) armDeadline();
        else disarmDeadline();
      }
    });
  }

  /**
   * Sends `response` and closes the connection, counted no more. What the client sent is read and
   * dropped: a socket closed with input unread resets the connection, and the client loses the
   * answer. Its own close then ends the socket; one that keeps its side open is cut off after a
   * grace period, so no dismissed socket stays for good.
   */
  private dismiss(socket: Socket, response: ReturnType<typeof errorResponse>) {
    this.sockets.delete(socket);
    this.silent.delete(socket);
    socket.removeAllListeners('data');
    socket.end(encodeLine(response));
    socket.resume();
    const grace = setTimeout(() => socket.destroy(), REFUSED_GRACE_MS);
    socket.once('close', () => clearTimeout(grace));
  }

  private handleLine(line: string, connection: Connection, closeAfter: boolean) {
    const reply = (response: Response | null) => {
      if (response) connection.send(response);
      if (closeAfter) connection.close();
    };
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch {
      reply(errorResponse(null, ErrorCode.ParseError, 'parse error: the line is not JSON'));
      return;
    }
    if (Array.isArray(request)) {
      reply(errorResponse(null, ErrorCode.InvalidRequest, 'invalid request: batches are not supported'));
      return;
    }
    const candidate = request as Partial<Request>;
    const rawId: unknown = candidate && typeof candidate === 'object' ? candidate.id : undefined;
    // JSON-RPC 2.0 ids are strings, numbers or null; any other id cannot be echoed back.
    if (rawId !== undefined && rawId !== null && typeof rawId !== 'string' && typeof rawId !== 'number') {
      reply(errorResponse(null, ErrorCode.InvalidRequest, 'invalid request: id must be a string, a number or null'));
      return;
    }
    if (typeof rawId === 'string' && rawId.length > MAX_REQUEST_ID_CHARS) {
      reply(errorResponse(null, ErrorCode.InvalidRequest, `invalid request: a string id may have at most ${MAX_REQUEST_ID_CHARS} characters`));
      return;
    }
    const id = rawId ?? null;
    const { maxControlBytes, dataMethods = [] } = this.options;
    if (maxControlBytes !== undefined && Buffer.byteLength(line) > maxControlBytes && !dataMethods.includes(String(candidate?.method))) {
      reply(errorResponse(id, ErrorCode.InvalidRequest, `invalid request: a control frame may have at most ${maxControlBytes} bytes`, { reason: 'frame_too_large' }));
      return;
    }
    if (
      !candidate ||
      typeof candidate !== 'object' ||
      candidate.jsonrpc !== '2.0' ||
      typeof candidate.method !== 'string' ||
      (candidate.params !== undefined && (typeof candidate.params !== 'object' || candidate.params === null || Array.isArray(candidate.params)))
    ) {
      reply(errorResponse(id, ErrorCode.InvalidRequest, 'invalid request: expected {jsonrpc: "2.0", id, method, params?: {…}}'));
      return;
    }
    this.options.onRequest?.(candidate.method);
    this.dispatch(candidate as Request, id, connection, reply);
  }

  /** Counts `connection` as streaming, unless that would pass `maxStreams`. */
  private admitStream(connection: Connection): boolean {
    if (this.streams.has(connection)) return true;
    if (this.streams.size >= (this.options.maxStreams ?? Infinity)) return false;
    this.streams.add(connection);
    connection.onClose(() => this.streams.delete(connection));
    return true;
  }

  private dispatch(candidate: Request, id: string | number | null, connection: Connection, reply: (response: Response | null) => void) {
    const first = this.options.first;
    if (first && candidate.method !== first && !connection.state.get(FIRST_DONE)) {
      // A client may send its next request right behind the first one: it waits for that answer.
      const pending = connection.state.get(FIRST_PENDING) as Promise<void> | undefined;
      if (pending) {
        void pending.then(() => this.dispatch(candidate, id, connection, reply));
        return;
      }
      reply(errorResponse(id, ErrorCode.InvalidRequest, `${first} must come first on every connection`));
      return;
    }
    const pending = (connection.state.get(PENDING) as number | undefined) ?? 0;
    if (pending >= (this.options.maxPending ?? Infinity)) {
      reply(errorResponse(id, ErrorCode.Backpressure, `too many requests waiting on this connection (at most ${this.options.maxPending})`, { reason: 'queue_full' }));
      return;
    }
    connection.state.set(PENDING, pending + 1);
    const context: CallContext = { connection, method: candidate.method };
    const answered = this.answer(candidate, context);
    const settled = () => connection.state.set(PENDING, (connection.state.get(PENDING) as number) - 1);
    if (candidate.method === first && !connection.state.get(FIRST_DONE)) {
      const settled = answered.then(
        () => undefined,
        () => undefined,
      );
      connection.state.set(FIRST_PENDING, settled);
      void settled.then(() => {
        if (connection.state.get(FIRST_PENDING) === settled) connection.state.delete(FIRST_PENDING);
      });
    }
    answered.then(
      (response) => {
        settled();
        if (response && 'result' in response) {
          if (candidate.method === first) connection.state.set(FIRST_DONE, true);
          const result = response.result;
          if (result instanceof StreamReply) {
            if (!this.admitStream(connection)) {
              const max = this.options.maxStreams;
              reply(errorResponse(id, ErrorCode.Backpressure, `too many subscribers: at most ${max} connections may stream at once; try again when one closes`, { reason: 'too_many_subscribers' }));
              return;
            }
            connection.send({ ...response, result: result.result });
            result.start();
            return;
          }
        }
        reply(response);
      },
      (error) => {
        settled();
        this.options.log?.(`dispatch failed: ${String(error)}`);
        reply(errorResponse(id, ErrorCode.InternalError, 'internal error'));
      },
    );
  }
}
