// Real PTYs: writeNow puts a keystroke into the PTY without libuv's thread pool, where node-pty's
// own write waits behind whatever else the pool does; and a write the kernel cannot take at once
// keeps its order with what follows.
import { pbkdf2 } from 'node:crypto';
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
 * Twice as many slow jobs as libuv's pool has threads, all queued now: a write node-pty queues
 * after them starts only once more than a pool's worth of them have ended.
 */
function busyPool() {
  const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  let ended = 0;
  const job = () => new Promise<void>((resolve, reject) => pbkdf2('x', 'y', 1_500_000, 32, 'sha512', (error) => (error ? reject(error) : (ended++, resolve()))));
  const all = Promise.all(Array.from({ length: threads * 2 }, job));
  return { threads, ended: () => ended, all };
}

test('a key written with writeNow is echoed while the thread pool is busy; with node-pty alone it waits for the pool', async () => {
  const { terminal, seen } = echoing(['cat']);
  try {
    terminal.write('warm\r');
    await seen('warm');
    const pool = busyPool();
    writeNow(terminal, 'now\r');
    await seen('now');
    expect(pool.ended()).toBe(0);
    terminal.write('queued\r');
    await seen('queued');
    expect(pool.ended()).toBeGreaterThan(pool.threads);
    await pool.all;
  } finally {
    terminal.kill();
  }
});

test('a write the kernel cannot take whole goes on through node-pty, and what follows keeps its order', async () => {
  // The program reads nothing for a moment: a 1 MiB write fills the PTY and the rest waits.
  const { terminal, seen, output } = echoing(['sh', '-c', 'stty -echo; echo ready; sleep 0.5; exec cat']);
  try {
    await seen('ready');
    const big = `${'y'.repeat(200)}\r`.repeat(5000);
    writeNow(terminal, big);
    writeNow(terminal, 'after-the-big-one\r');
    await seen('after-the-big-one');
    const text = output();
    expect(text.lastIndexOf('y'.repeat(200))).toBeLessThan(text.indexOf('after-the-big-one'));
    expect(text.split('y'.repeat(200)).length - 1).toBe(5000);
  } finally {
    terminal.kill();
  }
});
