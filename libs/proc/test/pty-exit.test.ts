// Real PTYs whose reader is behind when their program exits, as the host's is when its terminal
// parses slower than the program writes: what node-pty and Node's libuv do alone, and what
// keepOutputAtExit keeps.
import * as pty from 'node-pty';
import { keepOutputAtExit } from '../src/pty-exit';
import { scaled } from '@paneflow/test-time';

// More than the 4 KiB a PTY hands over in one read, less than its kernel buffer takes unread.
const TAIL = `${'x'.repeat(6000)}\nthe-end\n`;
/** TAIL as the terminal delivers it (ONLCR). */
const TAIL_READ = TAIL.replaceAll('\n', '\r\n');

const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
};

/**
 * Runs a program that prints `ready`, then, a moment later, TAIL and exits; what the reader got by
 * the exit. The reader holds off from `ready` until the program is gone: `behind` picks how.
 * 'busy, then paused' is busy, then pauses on the next chunk (its terminal now 2 MiB behind), with
 * the stream's end already read. A paused reader is never resumed: node-pty closes its stream.
 */
async function readBehind(behind: 'paused' | 'busy' | 'busy, then paused', keep: (terminal: pty.IPty) => void): Promise<string> {
  const program = `process.stdout.write('ready\\n'); setTimeout(() => process.stdout.write(${JSON.stringify(TAIL)}, () => process.exit(0)), 300);`;
  const terminal = pty.spawn(process.execPath, ['-e', program], { cols: 80, rows: 24, encoding: 'utf8' });
  keep(terminal);
  let output = '';
  const exited = new Promise<void>((resolve) => terminal.onExit(() => resolve()));
  let chunks = 0;
  terminal.onData((data) => {
    output += data;
    chunks++;
    if (chunks === 2 && behind === 'busy, then paused') terminal.pause();
    if (chunks !== 1) return;
    if (behind === 'paused') {
      terminal.pause();
      return;
    }
    // A reader busy parsing: nothing is read until the program has written TAIL and exited.
    const deadline = Date.now() + scaled(10_000);
    while (!gone(terminal.pid) && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
  });
  await exited;
  return output;
}

// When one of these fails, the library named reads to the end by itself and that half of
// keepOutputAtExit can go.
test.each([
  { behind: 'paused', library: 'node-pty closes the stream and throws away what it had not read' },
  { behind: 'busy', library: "Node's libuv ends the stream after one 4 KiB read" },
] as const)('without keepOutputAtExit, a reader $behind when the program exits loses its end: $library', async ({ behind }) => {
  const output = await readBehind(behind, () => undefined);
  expect(output).toMatch(/^ready\r\n/);
  expect(output).not.toContain('the-end');
});

test.each(['paused', 'busy', 'busy, then paused'] as const)('with keepOutputAtExit, a reader %s when the program exits gets every byte', async (behind) => {
  expect(await readBehind(behind, keepOutputAtExit)).toBe(`ready\r\n${TAIL_READ}`);
});

test('a child left writing to the PTY does not hold back the exit', async () => {
  // The child ignores the hang-up its session leader's exit sends, and goes on writing.
  const terminal = pty.spawn('sh', ['-c', '(trap "" HUP; exec yes) & echo "child=$!"; sleep 0.3'], { cols: 80, rows: 24, encoding: 'utf8' });
  keepOutputAtExit(terminal);
  let output = '';
  terminal.onData((data) => (output += data));
  let child = 0;
  try {
    await new Promise<void>((resolve) => terminal.onExit(() => resolve()));
    child = Number(/child=(\d+)/.exec(output)![1]);
    expect(output).toContain('y\r\ny\r\n');
  } finally {
    if (child && !gone(child)) process.kill(child, 'SIGKILL');
  }
});
