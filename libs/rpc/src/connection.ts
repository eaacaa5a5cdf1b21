import type { Socket } from 'node:net';
import { encodeLine } from '@paneflow/protocol/line';

/** One client connection: the handle a streaming method keeps to push frames. */
export class Connection {
  private static nextId = 1;
  readonly id = Connection.nextId++;
  /** Per-connection state for the app (for example which client said hello). */
  readonly state = new Map<string, unknown>();
  private readonly closeListeners: Array<() => void> = [];
  private isClosed = false;

  constructor(private readonly socket: Socket) {
    socket.once('close', () => {
      this.isClosed = true;
      for (const listener of this.closeListeners.splice(0)) listener();
    });
  }

  /** Writes one frame; false when the socket's buffer is full (wait for `onDrain`). */
  send(frame: unknown): boolean {
    return this.sendLine(encodeLine(frame));
  }

  /** Writes a frame already encoded as one line, newline included. */
  sendLine(line: string): boolean {
    if (this.isClosed || this.socket.destroyed || this.socket.writableEnded) return false;
    return this.socket.write(line);
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Bytes accepted by `send` that the kernel has not taken yet. */
  get bufferedBytes(): number {
    return this.socket.writableLength;
  }

  onDrain(listener: () => void): void {
    this.socket.once('drain', listener);
  }

  onClose(listener: () => void): void {
    if (this.isClosed) listener();
    else this.closeListeners.push(listener);
  }

  close(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** What a streaming method returns: its result, and what to do once the client has it. */
export class StreamReply<R> {
  constructor(
    readonly result: R,
    readonly start: () => void,
  ) {}
}
