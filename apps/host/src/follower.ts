import type { HostFrame } from '@paneflow/protocol';
import type { Connection } from '@paneflow/rpc';

/** A follower whose queue passes this many frames is resynchronised with one snapshot. */
export const FOLLOWER_MAX_FRAMES = 4096;
/** Pending status frames of one session beyond this are replaced by one fresh status frame. */
export const FOLLOWER_MAX_STATUS_BYTES = 256 * 1024;
/** Frames wait in the queue, not in the socket, once the socket holds this much. */
const SOCKET_HIGH_WATER = 64 * 1024;

interface Entry {
  frame: HostFrame;
  line: string | null;
}

export interface FollowerSource {
  snapshot(): HostFrame;
  statusFrame(session: string): HostFrame | null;
}

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
  /** How often a lag replaced this follower's whole queue, or one session's status burst. */
  resyncs = 0;
  collapses = 0;

  constructor(
    private readonly connection: Connection,
    private readonly source: FollowerSource,
  ) {}

  get closed(): boolean {
    return this.connection.closed;
  }

  push(frame: HostFrame): void {
    if (this.connection.closed) return;
    if (frame.type === 'output' || frame.type === 'title') {
      const pending = this.queue.find((e) => e.frame.type === frame.type && 'session' in e.frame && e.frame.session === frame.session);
      if (pending) {
        pending.frame = frame;
        this.flush();
        return;
      }
    }
    if (frame.type === 'status') {
      const line = JSON.stringify(frame) + '\n';
      const bytes = (this.statusBytes.get(frame.session) ?? 0) + line.length;
      if (bytes > FOLLOWER_MAX_STATUS_BYTES) {
        this.collapses++;
        this.queue = this.queue.filter((e) => !(e.frame.type === 'status' && e.frame.session === frame.session));
        const fresh = this.source.statusFrame(frame.session) ?? frame;
        const freshLine = JSON.stringify(fresh) + '\n';
        this.statusBytes.set(frame.session, freshLine.length);
        this.queue.push({ frame: fresh, line: freshLine });
      } else {
        this.statusBytes.set(frame.session, bytes);
        this.queue.push({ frame, line });
      }
    } else {
      this.queue.push({ frame, line: null });
    }
    if (this.queue.length > FOLLOWER_MAX_FRAMES) {
      this.resyncs++;
      this.statusBytes.clear();
      this.queue = [{ frame: this.source.snapshot(), line: null }];
    }
    this.flush();
  }

  private flush() {
    while (this.queue.length > 0 && this.connection.bufferedBytes < SOCKET_HIGH_WATER && !this.connection.closed) {
      const entry = this.queue.shift()!;
      if (entry.frame.type === 'status') {
        const left = (this.statusBytes.get(entry.frame.session) ?? 0) - (entry.line?.length ?? 0);
        if (left > 0) this.statusBytes.set(entry.frame.session, left);
        else this.statusBytes.delete(entry.frame.session);
      }
      this.connection.sendLine(entry.line ?? JSON.stringify(entry.frame) + '\n');
    }
    if (this.queue.length > 0 && !this.waitingForDrain && !this.connection.closed) {
      this.waitingForDrain = true;
      this.connection.onDrain(() => {
        this.waitingForDrain = false;
        this.flush();
      });
    }
  }

  get queued(): number {
    return this.queue.length;
  }
}
