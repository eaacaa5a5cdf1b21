// A face's one way out (REFERENCE.md §1.4): the workspace model, status and events from serve's
// public socket; terminal bytes straight from the host (attach, output, user input, resize), so
// a serve restart never interrupts a terminal. The desktop (Electron's main process and the
// browser test harness) and `paneflow attach` use it. It connects only to sockets that are the
// user's own (checkSocketPath), and says hello to the host with the host's secret.
import { callChecked, connectChecked } from '@paneflow/instance/connect';
import type { Endpoints } from '@paneflow/instance/endpoints';
import { requestDeadlineMs } from '@paneflow/protocol/deadlines';
import { ErrorCode } from '@paneflow/protocol/errors';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { MethodTable, ParamsOf } from '@paneflow/protocol/schema';
import type { RpcConnection } from '@paneflow/rpc/client';
import { FarTerminals, LocalTerminals, type OutputStream, type TerminalPath } from './terminals';

/** How long a lost output stream waits before it attaches again. */
export const REATTACH_MS = 500;

/** What a mirror receives: its start, then output, and word when it must start over. */
export interface MirrorSink {
  /** A fresh start: clear the mirror and write `checkpoint`. */
  reset(start: { checkpoint: string; cols: number; rows: number; generation: number }): void;
  /** Output bytes, base64, in order. */
  data(base64: string): void;
  /** The PTY was resized (by this face or another): what follows was written for this size. */
  resized(size: { cols: number; rows: number }): void;
  /**
   * `host_replaced` while another host instance holds no such session (its host died; a restart
   * there attaches again), `lost` while the host cannot be reached.
   */
  state(state: 'attached' | 'lost' | 'host_replaced'): void;
}

export class InstanceClient {
  private readonly terminals: TerminalPath;
  private readonly subscriptions = new Map<number, RpcConnection<PublicMethods>>();
  private readonly mirrors = new Map<string, { stop: () => void }>();
  private nextId = 1;
  private closed = false;

  /**
   * `face` names this client to the host (`desktop`, `web`, `attach`): the turn ledger says which
   * face answered a question. With `machine`, the client works in that machine's instance through
   * this serve's link (issue 32): its model, events and terminals are that machine's. A face that
   * draws less often than the host's output streams gather (16 ms) asks its own `outputGatherMs`:
   * frames faster than it draws only wake it.
   */
  constructor(
    private readonly endpoints: Endpoints,
    face = 'desktop',
    readonly machine: string | null = null,
    outputGatherMs?: number,
  ) {
    this.terminals = machine ? new FarTerminals(endpoints, machine, outputGatherMs) : new LocalTerminals(endpoints, face, outputGatherMs);
  }

  /** One request to serve (the far machine's, through this one's, when the client is a machine's). */
  request(method: string, params: unknown): Promise<unknown> {
    // Typed as any method of any table: as `PublicMethods` the result would be the union of every
    // method's result, which costs the type checker seconds to relate to `unknown`.
    // As long as serve may take to answer it (libs/protocol deadlines.ts), and the link's way for a far one.
    if (this.machine) {
      const timeoutMs = requestDeadlineMs(method, { ...(params as object), machine: this.machine });
      return callChecked<MethodTable, string>(this.endpoints.publicSocket, 'machine.call', { machine: this.machine, method, params }, { timeoutMs });
    }
    return callChecked<MethodTable, string>(this.endpoints.publicSocket, method, params, { timeoutMs: requestDeadlineMs(method, params) });
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
    const connection = await connectChecked<PublicMethods>(this.endpoints.publicSocket);
    connection.onFrame((frame) => onFrame(id, frame));
    connection.onClose(() => {
      if (this.subscriptions.delete(id)) onEnd(id);
    });
    try {
      if (this.machine) await connection.request('machine.subscribe', { machine: this.machine, params });
      else await connection.request('events.subscribe', params);
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

  /**
   * Keyboard input: origin `user`, which is what acknowledges done and error (§1.2). Never
   * queued. A `paste` is bracketed by the host when the program asked for bracketed paste.
   */
  async input(session: string, text: string, options: { paste?: boolean } = {}): Promise<void> {
    if (!this.mirrors.has(session)) throw new Error(`session ${session} is not attached; input is not queued`);
    await this.terminals.call('session.input', { session, text, origin: 'user', ...(options.paste ? { paste: true } : {}) });
  }

  async resize(session: string, cols: number, rows: number): Promise<void> {
    await this.terminals.call('session.resize', { session, cols, rows });
  }

  /**
   * Mirrors a session: attach (checkpoint and its offset), then follow the output from there. A
   * stream that ends (host gone, offset evicted) attaches again every 500 ms. `scrollback` caps
   * the rows of scrollback the checkpoint carries (a mirror that keeps fewer need not parse more);
   * without it the host replays every row it keeps, up to its 16 MiB of text.
   */
  attach(session: string, sink: MirrorSink, scrollback?: number): void {
    this.detach(session);
    let stream: OutputStream | null = null;
    let timer: NodeJS.Timeout | null = null;
    let stopped = false;
    let attempt = 0;
    let instance: string | null = null;
    let replaced = false;
    // One retry per attempt, whichever of its failures comes first.
    const retry = (of: number) => {
      if (stopped || this.closed || of !== attempt) return;
      attempt++;
      stream?.destroy();
      sink.state(replaced ? 'host_replaced' : 'lost');
      timer = setTimeout(() => void start(), REATTACH_MS);
    };
    const start = async () => {
      const mine = attempt;
      try {
        const own = await this.terminals.openStream();
        stream = own;
        own.onClose(() => retry(mine));
        // Another host instance: the session is gone with the old one, unless it was restarted there.
        replaced = instance !== null && own.instance !== null && own.instance !== instance;
        // A screen whose checkpoint passes the host's cap (-32022) is mirrored without its scrollback.
        const begin = await this.terminals
          .call('session.attach', { session, ...(scrollback !== undefined ? { scrollback } : {}) })
          .catch((error: { code?: number }) => (error.code === ErrorCode.CheckpointTooLarge ? this.terminals.call('session.attach', { session, scrollback: 0 }) : Promise.reject(error)));
        if (stopped || mine !== attempt) return own.destroy();
        instance = begin.instance;
        replaced = false;
        sink.reset(begin);
        await own.follow(session, begin.output_offset, (output) => {
          if (output.type === 'output_data') sink.data(output.data);
          else if (output.type === 'output_resized') sink.resized({ cols: output.cols, rows: output.rows });
          else if (output.type === 'output_evicted' || output.type === 'output_end') own.destroy();
        });
        sink.state('attached');
      } catch {
        retry(mine);
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

  /**
   * The session's screen and up to `scrollback` rows above it, once, as a checkpoint that redraws
   * them: what a face reads deep history from without keeping it in its mirror.
   */
  async history(session: string, scrollback: number): Promise<{ checkpoint: string; cols: number; rows: number; scrollback_rows: number }> {
    return this.terminals.call('session.attach', { session, scrollback });
  }

  detach(session: string): void {
    this.mirrors.get(session)?.stop();
    this.mirrors.delete(session);
  }

  /** Ends every mirror and subscription (the renderer reloaded or went away); the bridge stays usable. */
  reset(): void {
    for (const session of [...this.mirrors.keys()]) this.detach(session);
    for (const id of [...this.subscriptions.keys()]) this.unsubscribe(id);
  }

  close(): void {
    this.closed = true;
    this.reset();
    this.terminals.close();
  }
}
