import { Terminal } from '@xterm/headless';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SavedScreen } from '../src/saved-screens';
import { running, startHost, waitUntil, type TestHost } from './helpers';
import { scaled } from '@paneflow/testing';

// Each session's screen on disk (the host's README, "Saved screens"): a host killed with -9 loses
// no screen; the lost session, restarted on the next host, shows it above its new process.

let host: TestHost | null = null;
afterEach(async () => {
  await host?.cleanup();
  host = null;
});

const screenFile = (session: string) => join(host!.env.PANEFLOW_HOME!, 'host/sessions', `${session}.screen`);
const saved = (session: string): SavedScreen | null => {
  try {
    return JSON.parse(readFileSync(screenFile(session), 'utf8')) as SavedScreen;
  } catch {
    return null;
  }
};

/** The foreground colour of the first cell of the last row that reads `text`. */
function colourOf(term: Terminal, text: string) {
  for (let y = term.buffer.active.length - 1; y >= 0; y--) {
    const line = term.buffer.active.getLine(y)!;
    if (line.translateToString(true) !== text) continue;
    const cell = line.getCell(0)!;
    return { palette: cell.isFgPalette(), fg: cell.getFgColor() };
  }
  throw new Error(`no row reads ${text}`);
}

async function killHost(): Promise<void> {
  process.kill(host!.pid, 'SIGKILL');
  await waitUntil(() => !running(host!.pid), 'the killed host is gone');
}

test('kill -9 mid-output: the next host restarts the lost session below its last saved screen, colours and all, marked as history', async () => {
  host = await startHost();
  const client = await host.connect();
  // Red numbered lines, without end: its output never settles, so it is saved at least every 3 s.
  const loop = `i=0; while :; do i=$((i+1)); printf '\\033[31mline %d\\033[0m\\n' $i; sleep 0.02; done`;
  const { session } = await client.create({ argv: ['sh', '-c', `if [ -e ./second ]; then echo second life; exec sleep 600; fi; touch ./second; ${loop}`], cwd: host.dir });
  await waitUntil(() => saved(session) !== null, 'a first save while the output goes on', 30_000);
  const first = saved(session)!;
  await waitUntil(() => (saved(session)?.saved_at_ms ?? 0) > first.saved_at_ms, 'a second save while the output goes on', 30_000);
  await killHost();
  const last = saved(session)!;
  const lastLine = Math.max(...[...last.checkpoint.matchAll(/line (\d+)/g)].map((m) => Number(m[1])));
  expect(last).toMatchObject({ session, generation: 1, cols: 80, rows: 24 });

  host.start();
  const after = await host.connect();
  expect((await after.request('session.inspect', { session })).lifecycle).toBe('lost');
  // The old process, deaf to nothing, went with its host's hangup or is ended here.
  await after.request('session.stop', { session });
  expect(await after.request('session.restart', { session })).toMatchObject({ generation: 2 });
  const text = await after.screenMatching(session, /second life/);
  const lines = text.split('\n');
  const marker = lines.findIndex((line) => line.startsWith('── above: what this pane showed before the host stopped ('));
  expect(marker).toBeGreaterThan(0);
  expect(lines.slice(marker - 1)).toEqual([`line ${lastLine}`, expect.stringMatching(/ \(\d{4}-\d\d-\d\d \d\d:\d\d\) ──$/), 'second life']);
  // A mirror attaching now gets the history in its checkpoint, in its colour.
  const { checkpoint, cols, rows } = await after.request('session.attach', { session });
  const mirror = new Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true });
  await new Promise<void>((resolve) => mirror.write(checkpoint, resolve));
  expect(colourOf(mirror, `line ${lastLine}`)).toEqual({ palette: true, fg: 1 });
  expect(colourOf(mirror, 'second life')).toEqual({ palette: false, fg: -1 });
  mirror.dispose();
  // The new generation saves its own screen, history included: a second crash loses it no more.
  await waitUntil(() => saved(session)?.generation === 2, 'the new generation saved');
  expect(saved(session)!.checkpoint).toContain(`line ${lastLine}`);
}, scaled(90_000));

test('a lost session shows its saved screen to a face, and to a read or search, before it is restarted; nothing follows it, and the restart ends that view', async () => {
  host = await startHost();
  const client = await host.connect();
  const { session } = await client.create({ argv: ['sh', '-c', 'if [ -e ./again ]; then echo running again; exec sleep 600; fi; touch ./again; printf "\\033[32mbefore the crash\\033[0m\\n"; exec sleep 600'], cwd: host.dir });
  await waitUntil(() => saved(session)?.checkpoint.includes('before the crash') === true, 'the screen saved');
  await killHost();
  host.start();
  const after = await host.connect();
  expect((await after.request('session.inspect', { session })).lifecycle).toBe('lost');
  // What a face gets: the saved screen, colours and all, and an output stream with nothing in it.
  const view = await after.request('session.attach', { session });
  expect(view).toMatchObject({ output_offset: 0, cols: 80, rows: 24, generation: 1 });
  const mirror = new Terminal({ cols: view.cols, rows: view.rows, scrollback: 1000, allowProposedApi: true });
  await new Promise<void>((resolve) => mirror.write(view.checkpoint, resolve));
  expect(colourOf(mirror, 'before the crash')).toEqual({ palette: true, fg: 2 });
  mirror.dispose();
  // Read and searched as a live session's terminal is, in the same shape.
  expect(await after.request('session.read', { session, lines: 10 })).toEqual({ text: 'before the crash', lines: 1, total_lines: 1, eof: true, output_generation: expect.any(Number), dropped_rows: 0 });
  expect(await after.request('session.search', { session, pattern: 'THE CRASH' })).toEqual({ matches: [{ line: 1, text: 'before the crash' }], truncated: false });
  const stream = await host.outputStream(session, 0, false);
  expect(stream.result).toEqual({ chunks: [], end_offset: 0, following: true });
  expect(await after.request('session.resize', { session, cols: 100, rows: 30 })).toEqual({});
  // Restarted, the view closes (the face attaches again) and what runs now is the session's.
  const closed = new Promise<void>((resolve) => stream.connection.onClose(resolve));
  await after.request('session.stop', { session });
  await after.request('session.restart', { session });
  await closed;
  expect(stream.frames).toEqual([]);
  await after.screenMatching(session, /running again/);
}, scaled(60_000));

test('an exit saves the last screen; a removed session takes its screen with it; the next host removes a screen without a manifest', async () => {
  host = await startHost();
  const client = await host.connect();
  const { session } = await client.create({ argv: ['sh', '-c', 'echo the last words'] });
  await client.frame((f) => f.type === 'lifecycle' && f.session === session && f.lifecycle === 'exited');
  await waitUntil(() => saved(session)?.checkpoint.includes('the last words') === true, 'the exit screen saved');
  await client.request('session.remove', { session });
  expect(existsSync(screenFile(session))).toBe(false);

  const orphan = join(host.env.PANEFLOW_HOME!, 'host/sessions', '0f8e2b1c-3d4a-4b5c-9d6e-7f8091a2b3c4.screen');
  writeFileSync(orphan, '{}');
  await client.request('host.shutdown', {});
  await waitUntil(() => !running(host!.pid), 'the host stopped');
  host.start();
  expect(existsSync(orphan)).toBe(false);
});

test('a session an earlier host saw exit reads and shows as its saved screen on the next host', async () => {
  host = await startHost();
  const client = await host.connect();
  const { session } = await client.create({ argv: ['sh', '-c', 'echo the last words; exit 3'] });
  await client.frame((f) => f.type === 'lifecycle' && f.session === session && f.lifecycle === 'exited');
  await waitUntil(() => saved(session)?.checkpoint.includes('the last words') === true, 'the exit screen saved');
  await client.request('host.shutdown', {});
  await waitUntil(() => !running(host!.pid), 'the host stopped');
  host.start();
  const after = await host.connect();
  expect(await after.request('session.inspect', { session })).toMatchObject({ lifecycle: 'exited', exit_code: 3 });
  expect(await after.request('session.read', { session, lines: 10 })).toMatchObject({ text: 'the last words', lines: 1, eof: true });
  expect(await after.request('session.search', { session, pattern: 'LAST' })).toEqual({ matches: [{ line: 1, text: 'the last words' }], truncated: false });
  expect((await after.request('session.attach', { session })).checkpoint).toContain('the last words');
});

test('a saved screen that is not one (a FIFO, garbage) is not shown and does not hold the restart up', async () => {
  host = await startHost();
  const client = await host.connect();
  const sessions = await Promise.all([1, 2].map(() => client.create({ argv: ['sh', '-c', "trap '' HUP; echo first life; exec sleep 600"] })));
  for (const { session } of sessions) await waitUntil(() => saved(session) !== null, 'saved');
  await killHost();
  const [fifo, garbage] = sessions.map((s) => s.session);
  rmSync(screenFile(fifo));
  execFileSync('mkfifo', [screenFile(fifo)]);
  writeFileSync(screenFile(garbage), 'not json');

  host.start();
  const after = await host.connect();
  for (const { session, pid } of sessions) {
    // No screen to show: it reads as an empty one.
    expect(await after.request('session.read', { session })).toMatchObject({ text: '', lines: 0, total_lines: 0 });
    await after.request('session.stop', { session });
    await waitUntil(() => !running(pid), 'the old process ended');
    await after.request('session.restart', { session });
    const text = await after.screenMatching(session, /first life/);
    expect(text).not.toContain('above: what this pane showed');
  }
  const log = readFileSync(join(host.env.PANEFLOW_HOME!, 'host/host.log'), 'utf8');
  expect(log).toContain(`session ${fifo}: its saved screen is not shown: a FIFO, not a regular file`);
  expect(log).toMatch(new RegExp(`session ${garbage}: its saved screen is not shown: .*JSON`));
});
