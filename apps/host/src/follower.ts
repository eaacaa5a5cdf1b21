import { HOST_FOLLOW_MAX_FRAMES, SOCKET_HIGH_WATER, type HostFrame } from '@paneflow/protocol';
import type { Connection } from '@paneflow/rpc';

/** A follower whose queue passes this many frames is resynchronised with one snapshot. */
export const FOLLOWER_MAX_FRAMES = HOST_FOLLOW_MAX_FRAMES;
/** Pending status frames of one session beyond this are replaced by one fresh status frame. */
export const FOLLOWER_MAX_STATUS_BYTES = 256 * 1024;

/** What a follower uses of its connection. */
export type FollowerConnection = Pick<Connection, 'closed' | 'bufferedBytes' | 'sendLine' | 'onDrain'>;

interface Entry {
  frame: HostFrame;
  /** Encoded when queued, so the queue's size is known and a frame goes out as it was then. */
  line: string;
}

export interface FollowerSource {
  snapshot(): HostFrame;
  statusFrame(session: string): HostFrame | null;
}

const encode = (frame: HostFrame) => JSON.stringify(frame) + '\n';

/**
 * One `agent.follow` stream. Frames go out at once while the client keeps up; a client that lags
 * costs bounded memory: output and title frames coalesce per session, a session's status burst
 * collapses into its current records, and a queue that still overflows is replaced by a snapshot.
 * Every frame carries absolute state, so a follower never holds a partial picture.
 */
export class Follower {
  private queue: Entry[] = [];
  private readonly statusBytes = new Map<string, number>();
  private waitingForDrain = false;
  /** Bytes of the frames in the queue. */
  queuedBytes = 0;
  /** How often a lag replaced this follower's whole queue, or one session's status burst. */
  resyncs = 0;
  collapses = 0;
  /** The most this follower has held at once, measured each time the queue settles. */
  peakQueuedFrames = 0;
  peakHeldBytes = 0;
  /** When a frame was last pushed: a keepalive goes only to a follower that heard nothing for a while. */
  lastPushAt = Date.now();

  constructor(
    private readonly connection: FollowerConnection,
    private readonly source: FollowerSource,
    /** Frames held before the queue is replaced by one snapshot (the follower's `max_frames`). */
    readonly maxFrames = FOLLOWER_MAX_FRAMES,
  ) {}

  get closed(): boolean {
    return this.connection.closed;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Memory held for this follower: its queue and what its socket has not handed to the kernel. */
  get heldBytes(): number {
    return this.queuedBytes + this.connection.bufferedBytes;
  }

  push(frame: HostFrame): void {
    if (this.connection.closed) return;
    this.lastPushAt = Date.now();
    const line = encode(frame);
    if (frame.type === 'output' || frame.type === 'title') {
      const pending = this.queue.find((e) => e.frame.type === frame.type && 'session' in e.frame && e.frame.session === frame.session);
      if (pending) {
        this.queuedBytes += line.length - pending.line.length;
        pending.frame = frame;
        pending.line = line;
        this.flush();
        return;
      }
    }
    if (frame.type === 'status' && (this.statusBytes.get(frame.session) ?? 0) + line.length > FOLLOWER_MAX_STATUS_BYTES) {
      this.collapses++;
      this.queue = this.queue.filter((e) => {
        const stale = e.frame.type === 'status' && e.frame.session === frame.session;
        if (stale) this.queuedBytes -= e.line.length;
        return !stale;
      });
      this.statusBytes.delete(frame.session);
      const fresh = this.source.statusFrame(frame.session);
      this.enqueue(fresh ?? frame, fresh ? encode(fresh) : line);
    } else {
      this.enqueue(frame, line);
    }
    if (this.queue.length > this.maxFrames) {
      this.resyncs++;
      this.queue = [];
      this.queuedBytes = 0;
      this.statusBytes.clear();
      const snapshot = this.source.snapshot();
      this.enqueue(snapshot, encode(snapshot));
    }
    this.flush();
  }

  private enqueue(frame: HostFrame, line: string) {
    this.queue.push({ frame, line });
    this.queuedBytes += line.length;
    if (frame.type === 'status') this.statusBytes.set(frame.session, (this.statusBytes.get(frame.session) ?? 0) + line.length);
  }

  private flush() {
    while (this.queue.length > 0 && this.connection.bufferedBytes < SOCKET_HIGH_WATER && !this.connection.closed) {
      const { frame, line } = this.queue.shift()!;
      this.queuedBytes -= line.length;
      if (frame.type === 'status') {
        const left = (this.statusBytes.get(frame.session) ?? 0) - line.length;
        if (left > 0) this.statusBytes.set(frame.session, left);
        else this.statusBytes.delete(frame.session);
      }
      this.connection.sendLine(line);
    }
    this.peakQueuedFrames = Math.max(this.peakQueuedFrames, this.queue.length);
    this.peakHeldBytes = Math.max(this.peakHeldBytes, this.heldBytes);
    if (this.queue.length > 0 && !this.waitingForDrain && !this.connection.closed) {
      this.waitingForDrain = true;
      this.connection.onDrain(() => {
        this.waitingForDrain = false;
        this.flush();
      });
    }
  }
}
