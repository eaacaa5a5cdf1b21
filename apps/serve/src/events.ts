import { HEARTBEAT_MS, SOCKET_HIGH_WATER, SUBSCRIBER_QUEUE_FRAMES, type EventFrame } from '@paneflow/protocol';
import type { Connection } from '@paneflow/rpc';

const ALWAYS = new Set(['subscribed', 'heartbeat', 'dropped']);

type Frame = EventFrame;

/**
 * One `events.subscribe` stream. A subscriber that does not read costs at most 1024 queued frames:
 * newer frames are counted and dropped, then one `dropped` frame says how many, and the stream
 * goes on. The socket is only written while it drains.
 */
class Subscriber {
  private queue: string[] = [];
  private dropped = 0;
  private waiting = false;
  lastFrameAt = Date.now();

  constructor(
    readonly connection: Connection,
    private readonly surfaces: ReadonlySet<number> | null,
    private readonly types: ReadonlySet<string> | null,
    readonly heartbeat: boolean,
    /** Other machines' frames too (issue 32), or (`only`) those alone: only a face that tells panes apart by machine asks. */
    private readonly machines: boolean | 'only',
  ) {}

  wants(frame: Frame): boolean {
    if (ALWAYS.has(frame.type)) return true;
    // A far pane's id is its machine's: a filter by this machine's ids says nothing of it.
    const far = frame.type === 'machine_changed' || ('machine' in frame && typeof frame.machine === 'string');
    if (far && (!this.machines || this.surfaces)) return false;
    if (!far && this.machines === 'only') return false;
    if (this.types && !this.types.has(frame.type)) return false;
    if (this.surfaces && 'surface_id' in frame && frame.surface_id !== undefined && !this.surfaces.has(frame.surface_id)) return false;
    return true;
  }

  push(frame: Frame): boolean {
    if (this.queue.length >= SUBSCRIBER_QUEUE_FRAMES) {
      this.dropped++;
      return false;
    }
    if (this.dropped > 0) {
      this.queue.push(JSON.stringify({ type: 'dropped', at_ms: Date.now(), count: this.dropped }) + '\n');
      this.dropped = 0;
    }
    this.queue.push(JSON.stringify(frame) + '\n');
    this.lastFrameAt = Date.now();
    this.flush();
    return true;
  }

  private flush() {
    while (this.queue.length > 0 && this.connection.bufferedBytes < SOCKET_HIGH_WATER && !this.connection.closed) {
      this.connection.sendLine(this.queue.shift()!);
    }
    if (this.dropped > 0 && this.queue.length < SUBSCRIBER_QUEUE_FRAMES && this.connection.bufferedBytes < SOCKET_HIGH_WATER) {
      this.connection.sendLine(JSON.stringify({ type: 'dropped', at_ms: Date.now(), count: this.dropped }) + '\n');
      this.dropped = 0;
    }
    if ((this.queue.length > 0 || this.dropped > 0) && !this.waiting && !this.connection.closed) {
      this.waiting = true;
      this.connection.onDrain(() => {
        this.waiting = false;
        this.flush();
      });
    }
  }

  get queued(): number {
    return this.queue.length;
  }
}

/** Fans frames out to subscribers; the heartbeat clock runs only while a subscriber wants heartbeats. */
export class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private heartbeat: NodeJS.Timeout | null = null;
  droppedFrames = 0;

  subscribe(connection: Connection, surfaces: number[] | null, types: string[] | null, heartbeat: boolean, machines: boolean | 'only' = false): void {
    const subscriber = new Subscriber(connection, surfaces ? new Set(surfaces) : null, types ? new Set(types) : null, heartbeat, machines);
    this.subscribers.add(subscriber);
    connection.onClose(() => {
      this.subscribers.delete(subscriber);
      if (this.heartbeat && ![...this.subscribers].some((s) => s.heartbeat)) {
        clearInterval(this.heartbeat);
        this.heartbeat = null;
      }
    });
    if (heartbeat) this.heartbeat ??= setInterval(() => this.beat(), 1000);
  }

  publish(frame: Frame): void {
    for (const subscriber of this.subscribers) {
      if (subscriber.wants(frame) && !subscriber.push(frame)) this.droppedFrames++;
    }
  }

  private beat() {
    const now = Date.now();
    for (const subscriber of this.subscribers) {
      if (subscriber.heartbeat && now - subscriber.lastFrameAt >= HEARTBEAT_MS) subscriber.push({ type: 'heartbeat', at_ms: now });
    }
  }

  get count(): number {
    return this.subscribers.size;
  }

  closeAll(): void {
    for (const subscriber of this.subscribers) subscriber.connection.close();
  }
}
