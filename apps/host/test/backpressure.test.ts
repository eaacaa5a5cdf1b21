// The PTY's backpressure, in process: a session's real canonical terminal (its thread's side served
// here, over a MessageChannel) behind a stand-in PTY that delivers 1 MiB a turn, faster than any
// terminal parses, so that the pause is certain to be needed, and nothing else runs between.
import type { IPty } from 'node-pty';
import * as pty from 'node-pty';
import { MessageChannel } from 'node:worker_threads';
import { Session } from '../src/session';
import { serveTerminals } from '../src/terminal-thread';
import { TerminalPool } from '../src/terminals';
import { scaled } from '@paneflow/testing';

jest.mock('node-pty', () => ({ spawn: jest.fn() }));
// The stand-in has no kernel stream to read at its exit.
jest.mock('@paneflow/proc', () => ({ ...jest.requireActual('@paneflow/proc'), keepOutputAtExit: () => undefined }));

const MiB = 1024 * 1024;
/** README: "When the terminal falls 256 KiB behind, the PTY is paused until it catches up." */
const TERMINAL_LAG_BYTES = 256 * 1024;
const CHUNK = 64 * 1024;

/** A PTY whose program writes `total` bytes of numbered lines, 1 MiB per turn of the event loop, unless paused. */
class FloodingPty {
  readonly pid = process.pid;
  written = 0;
  pauses = 0;
  resumes = 0;
  /** What was written but not yet parsed, at most, while the PTY was not paused. */
  maxAhead = 0;
  private paused = false;
  private listener: (data: Buffer) => void = () => undefined;
  private timer: NodeJS.Immediate | null = null;
  private readonly lines: string[];

  constructor(
    readonly total: number,
    private readonly parsed: () => number,
  ) {
    const lineCount = total / 64;
    this.lines = Array.from({ length: lineCount }, (_, i) => `${String(i).padStart(8, '0')} ${'0123456789abcdef'.repeat(3)}01234\r\n`);
  }

  /** Bytes, as node-pty hands them over without an encoding. */
  onData(listener: (data: Buffer) => void) {
    this.listener = listener;
    this.timer = setImmediate(() => this.flood());
    return { dispose: () => undefined };
  }

  private flood() {
    this.timer = null;
    for (let sent = 0; sent < MiB && !this.paused && this.written < this.total; sent += CHUNK) {
      const from = this.written / 64;
      this.written += CHUNK;
      this.listener(Buffer.from(this.lines.slice(from, from + CHUNK / 64).join('')));
      this.maxAhead = Math.max(this.maxAhead, this.written - this.parsed());
    }
    if (!this.paused && this.written < this.total) this.timer = setImmediate(() => this.flood());
  }

  pause() {
    this.paused = true;
    this.pauses++;
  }

  resume() {
    this.paused = false;
    this.resumes++;
    this.timer ??= setImmediate(() => this.flood());
  }

  onExit() {
    return { dispose: () => undefined };
  }
  write() {
    // the program reads nothing
  }
  resize() {
    // nor cares for its size
  }
  kill() {
    if (this.timer) clearImmediate(this.timer);
  }
}

test('a terminal that falls 256 KiB behind pauses the PTY until it catches up, and nothing is lost', async () => {
  let session: Session | null = null;
  const fake = new FloodingPty(6 * MiB, () => session?.terminal.parsed ?? 0);
  (pty.spawn as jest.Mock).mockReturnValue(fake as unknown as IPty);
  const quiet = () => undefined;
  const channel = new MessageChannel();
  serveTerminals(channel.port2);
  session = new Session(
    {
      session: '11111111-2222-4333-8444-555555555555',
      generation: 1,
      workspaceId: 'w',
      surfaceId: 1,
      name: null,
      cwd: '/',
      launch: { shell: 'flood', args: [], env: {}, cols: 80, rows: 5 },
      scrollback: 100,
      createdAtMs: Date.now(),
      resume: null,
      restart: null,
    },
    { instance: 'i', buildId: 'b', log: quiet, terminals: new TerminalPool(channel.port1), listener: { status: quiet, output: quiet, title: quiet, lifecycle: quiet, observation: quiet, resume: quiet } },
  );
  session.start({});
  try {
    const deadline = Date.now() + scaled(60_000);
    while (session.terminal.parsed < fake.total && Date.now() < deadline) await session.terminal.settled();
    expect(fake.written).toBe(fake.total);
    expect(fake.pauses).toBeGreaterThan(0);
    expect(fake.resumes).toBe(fake.pauses);
    // At most one chunk past the mark: the one that crossed it.
    expect(fake.maxAhead).toBeLessThanOrEqual(TERMINAL_LAG_BYTES + CHUNK);
    expect(session.terminal.parsed).toBe(fake.total);
    expect(session.output.end).toBe(fake.total);
    const { text } = await session.read(2);
    expect(text).toBe(`${String(fake.total / 64 - 2).padStart(8, '0')} ${'0123456789abcdef'.repeat(3)}01234\n${String(fake.total / 64 - 1).padStart(8, '0')} ${'0123456789abcdef'.repeat(3)}01234`);
  } finally {
    session.dispose();
    channel.port1.close();
  }
}, scaled(90_000));
