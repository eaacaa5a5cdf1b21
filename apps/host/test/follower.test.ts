import { FOLLOW_QUEUE_FRAMES, SOCKET_HIGH_WATER, type HostFrame, type WireRecord } from '@paneflow/protocol';
import { FOLLOWER_MAX_FRAMES, FOLLOWER_MAX_STATUS_BYTES, Follower, type FollowerConnection } from '../src/follower';

type Status = Extract<HostFrame, { type: 'status' }>;

/** A client socket: it takes every line, and empties only when the test says the client read. */
class ClientSocket implements FollowerConnection {
  readonly lines: string[] = [];
  closed = false;
  bufferedBytes = 0;
  private drainListeners: Array<() => void> = [];

  constructor(private readonly reads: boolean) {}

  sendLine(line: string): boolean {
    this.lines.push(line);
    if (!this.reads) this.bufferedBytes += line.length;
    return this.bufferedBytes < SOCKET_HIGH_WATER;
  }

  onDrain(listener: () => void): void {
    this.drainListeners.push(listener);
  }

  /** The client reads all that was sent so far. */
  drain(): void {
    this.bufferedBytes = 0;
    for (const listener of this.drainListeners.splice(0)) listener();
  }

  frames(): HostFrame[] {
    return this.lines.map((line) => JSON.parse(line));
  }
}

/** What the host holds and numbers: each session's records, and the last frame's seq. */
class FakeHost {
  seq = 0;
  readonly records = new Map<string, WireRecord[]>();
  readonly follower: Follower;

  constructor(
    readonly socket: ClientSocket,
    maxFrames?: number,
  ) {
    this.follower = new Follower(
      socket,
      {
        snapshot: () => ({ type: 'snapshot', at_ms: 0, seq: this.seq, sessions: [] }),
        statusFrame: (session) => this.status(session),
      },
      maxFrames,
    );
  }

  /** The session's records change: `count` records whose messages are `msgBytes` long. */
  setRecords(session: string, count: number, msgBytes: number): void {
    const mark = String.fromCharCode(97 + (this.seq % 26));
    this.records.set(
      session,
      Array.from({ length: count }, (_, i) => ({ id: `t${i}`, state: 'working', kind: null, progress: null, app: null, effective_app: null, title: null, msg: mark.repeat(msgBytes) })),
    );
  }

  /** A report, announced: the session's records change and a status frame carries them. */
  report(session: string, count: number, msgBytes: number): Status {
    this.setRecords(session, count, msgBytes);
    return this.send(this.status(session)) as Status;
  }

  /** The session's current status frame, numbered as of the last frame sent. */
  status(session: string): Status {
    const records = this.records.get(session) ?? [];
    return { type: 'status', at_ms: 0, seq: this.seq, session, generation: 1, records, declared_status: null, program_status_capable_at_ms: null, last_status_signal_at_ms: null };
  }

  send(frame: HostFrame): HostFrame {
    const numbered = { ...frame, seq: ++this.seq } as HostFrame;
    this.follower.push(numbered);
    return numbered;
  }

  output(session: string): HostFrame {
    return this.send({ type: 'output', at_ms: 0, seq: 0, session, output_generation: 1 });
  }

  title(session: string, title: string): HostFrame {
    return this.send({ type: 'title', at_ms: 0, seq: 0, session, title });
  }

  removed(session: string): HostFrame {
    return this.send({ type: 'removed', at_ms: 0, seq: 0, session });
  }
}

const lineOf = (frame: HostFrame) => JSON.stringify(frame) + '\n';
const bytesOf = (frames: HostFrame[]) => frames.reduce((sum, frame) => sum + lineOf(frame).length, 0);

/** A host whose follower's socket is already full: from here on every frame waits in the queue. */
function stalledHost(maxFrames?: number): FakeHost {
  const socket = new ClientSocket(false);
  socket.bufferedBytes = SOCKET_HIGH_WATER;
  return new FakeHost(socket, maxFrames);
}

describe('Follower', () => {
  test('a follower that keeps up gets every frame at once, none coalesced', () => {
    const host = new FakeHost(new ClientSocket(true));
    const sent = [host.output('a'), host.output('a'), host.title('a', 'one'), host.report('a', 1, 10), host.report('a', 1, 10), host.removed('a')];
    expect(host.socket.frames()).toEqual(sent);
    expect({ queued: host.follower.queued, bytes: host.follower.queuedBytes, collapses: host.follower.collapses, resyncs: host.follower.resyncs }).toEqual({ queued: 0, bytes: 0, collapses: 0, resyncs: 0 });
  });

  test('a stalled follower keeps one output and one title frame per session, the newest, where the first one waited', () => {
    const host = stalledHost();
    host.output('a');
    host.output('b');
    host.title('a', 'first');
    host.output('a');
    const titleA = host.title('a', 'second');
    const outputB = host.output('b');
    const outputA = host.output('a');
    expect(host.socket.lines).toEqual([]);
    expect(host.follower.queued).toBe(3);
    expect(host.follower.queuedBytes).toBe([outputA, outputB, titleA].map(lineOf).join('').length);

    host.socket.drain();
    expect(host.socket.frames()).toEqual([outputA, outputB, titleA]);
    expect(host.follower.queuedBytes).toBe(0);
  });

  test('status frames of one session past the byte limit collapse into its current records; other sessions keep theirs', () => {
    const host = stalledHost();
    const other = host.report('b', 2, 100);
    const pending: Status[] = [];
    for (;;) {
      host.setRecords('a', 20, 500);
      const next = host.status('a');
      if (bytesOf(pending) + lineOf({ ...next, seq: host.seq + 1 }).length > FOLLOWER_MAX_STATUS_BYTES) break;
      pending.push(host.send(next) as Status);
      expect({ collapses: host.follower.collapses, bytes: host.follower.queuedBytes }).toEqual({ collapses: 0, bytes: bytesOf([other, ...pending]) });
    }
    expect(pending.length).toBeGreaterThan(10);

    host.send(host.status('a'));
    const current = host.status('a');
    expect({ collapses: host.follower.collapses, queued: host.follower.queued, bytes: host.follower.queuedBytes }).toEqual({ collapses: 1, queued: 2, bytes: bytesOf([other, current]) });
    expect(host.follower.peakHeldBytes).toBe(SOCKET_HIGH_WATER + bytesOf([other, ...pending]));

    host.socket.drain();
    expect(host.socket.frames()).toEqual([other, current]);
  });

  test('a queue past its frame limit is replaced by one snapshot as of the last frame', () => {
    const host = stalledHost();
    for (let i = 0; i < FOLLOWER_MAX_FRAMES; i++) host.removed(`s${i}`);
    expect({ queued: host.follower.queued, resyncs: host.follower.resyncs }).toEqual({ queued: FOLLOWER_MAX_FRAMES, resyncs: 0 });

    host.removed('one-too-many');
    const snapshot: HostFrame = { type: 'snapshot', at_ms: 0, seq: host.seq, sessions: [] };
    expect({ queued: host.follower.queued, resyncs: host.follower.resyncs, bytes: host.follower.queuedBytes }).toEqual({ queued: 1, resyncs: 1, bytes: lineOf(snapshot).length });
    expect(host.follower.peakQueuedFrames).toBe(FOLLOWER_MAX_FRAMES);

    host.socket.drain();
    expect(host.socket.frames()).toEqual([snapshot]);
  });

  test("a follower's own max_frames (serve asks 1024, REFERENCE.md §1.3) is its frame limit", () => {
    const host = stalledHost(FOLLOW_QUEUE_FRAMES);
    for (let i = 0; i < FOLLOW_QUEUE_FRAMES; i++) host.removed(`s${i}`);
    expect({ queued: host.follower.queued, resyncs: host.follower.resyncs }).toEqual({ queued: FOLLOW_QUEUE_FRAMES, resyncs: 0 });
    host.removed('one-too-many');
    expect({ queued: host.follower.queued, resyncs: host.follower.resyncs }).toEqual({ queued: 1, resyncs: 1 });
  });

  test('however long a follower stalls, it holds at most its socket allowance, one status limit per session and the frame limit', () => {
    const host = new FakeHost(new ClientSocket(false));
    const sessions = ['a', 'b', 'c'];
    let longestStatus = 0;
    let longestOther = 0;
    const other = (frame: HostFrame) => (longestOther = Math.max(longestOther, lineOf(frame).length));
    for (let round = 0; round < 2000; round++) {
      for (const session of sessions) {
        longestStatus = Math.max(longestStatus, lineOf(host.report(session, 4, 1000 + (round % 7) * 100)).length);
        other(host.output(session));
        other(host.title(session, `round ${round}`));
      }
      // Frames that never coalesce, enough to pass the frame limit several times over.
      for (let i = 0; i < 3; i++) other(host.removed(`gone-${round}-${i}`));
    }
    expect(host.follower.resyncs).toBeGreaterThan(0);
    expect(host.follower.collapses).toBeGreaterThan(0);
    expect(host.follower.peakQueuedFrames).toBeLessThanOrEqual(FOLLOWER_MAX_FRAMES);
    // The socket takes a line while it holds less than the high water mark: at most one line past it.
    const socketAllowance = SOCKET_HIGH_WATER + longestStatus;
    expect(host.follower.peakHeldBytes).toBeLessThanOrEqual(socketAllowance + sessions.length * FOLLOWER_MAX_STATUS_BYTES + FOLLOWER_MAX_FRAMES * longestOther);
  });
});
