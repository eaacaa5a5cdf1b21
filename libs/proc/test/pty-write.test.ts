// Real PTYs: writeNow puts a keystroke into the PTY without libuv's thread pool, where node-pty's
// own write waits behind whatever else the pool does; and a write the kernel cannot take at once
// keeps its order with what follows.
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, open, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { writeNow } from '../src/pty-write';

/** A `cat` in a PTY and everything it echoes so far; `seen(text)` resolves once `text` is there. */
function echoing(argv: string[]) {
  const terminal = pty.spawn(argv[0], argv.slice(1), { cols: 80, rows: 24, encoding: 'utf8' });
  let output = '';
  const waiters: Array<() => void> = [];
  terminal.onData((data) => {
    output += data;
    for (const wake of waiters.splice(0)) wake();
  });
  const seen = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => (output.includes(text) ? resolve() : waiters.push(check));
      check();
    });
  return { terminal, seen, output: () => output };
}

/**
 * Every thread of libuv's pool held until `release()`: each opens a FIFO for reading, which blocks
 * until a writer opens it. Nothing that needs the pool (node-pty's write among it) runs meanwhile.
 */
function holdPool(dir: string) {
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const fifos = Array.from({ length: threads }, (_, i) => join(dir, `hold-${i}`));
  for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
  const opened = fifos.map((fifo) => new Promise<number>((resolve, reject) => open(fifo, 'r', (error, fd) => (error ? reject(error) : resolve(fd)))));
  let released: Promise<void> | null = null;
  const release = async () => {
    for (const fifo of fifos) closeSync(openSync(fifo, 'w'));
    for (const fd of await Promise.all(opened)) closeSync(fd);
  };
  return { release: () => (released ??= release()) };
}

// Released even when a test fails on its timeout: a held pool would hold jest too.
let held: { release(): Promise<void> } | null = null;
afterEach(() => held?.release());

test("a key written with writeNow is echoed while every thread of libuv's pool is held, as node-pty's own write is not", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pf-pty-write-'));
  const { terminal, seen } = echoing(['cat']);
  try {
    const pool = (held = holdPool(dir));
    writeNow(terminal, 'now\r');
    // With the pool held, only a write that needs no pool thread can be echoed.
    await seen('now');
    terminal.write('queued\r');
    await pool.release();
    await seen('queued');
  } finally {
    terminal.kill();
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Writes waiting in node-pty's own queue (the field writeNow looks at). */
const queued = (terminal: pty.IPty) => (terminal as unknown as { _writeStream: { _writeQueue: unknown[] } })._writeStream._writeQueue.length;

test('a write the kernel cannot take whole goes on through node-pty, and what follows keeps its order', async () => {
  const { terminal, seen, output } = echoing(['sh', '-c', 'stty -echo; echo ready; exec cat']);
  try {
    await seen('ready');
    // 1 MiB is far more than a PTY's buffer holds: the kernel takes part, node-pty queues the rest.
    const big = `${'y'.repeat(200)}\r`.repeat(5000);
    writeNow(terminal, big);
    expect(queued(terminal)).toBeGreaterThan(0);
    // So this one must wait behind the queue, not jump it.
    writeNow(terminal, 'after-the-big-one\r');
    await seen('after-the-big-one');
    const text = output();
    expect(text.lastIndexOf('y'.repeat(200))).toBeLessThan(text.indexOf('after-the-big-one'));
    expect(text.split('y'.repeat(200)).length - 1).toBe(5000);
  } finally {
    terminal.kill();
  }
});
