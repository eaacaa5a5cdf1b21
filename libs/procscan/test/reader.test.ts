import { execFileSync } from 'node:child_process';
import * as pty from 'node-pty';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForegroundReader, readAgentSession, runtimeCatalog, stopTree } from '../src';
import { scaled } from '@paneflow/test-time';

// Real processes in a real PTY: the reader must find the foreground agent the way the host will.
// The fixture agent runs as it is, from fixtures/, and imports the built libs/osc7501 (the test
// target builds it first: project.json).
const FIXTURE_AGENT = join(__dirname, '../../../fixtures/agent.mjs');
const OSC7501 = join(__dirname, '../../osc7501');
let dir: string;
let shell: pty.IPty;
/** Everything the pane's shell has printed since it started. */
let output: string;
const reader = new ForegroundReader(runtimeCatalog());

/** The newest modification time of the files under `path`. */
const newest = (path: string): number =>
  readdirSync(path, { recursive: true, encoding: 'utf8' }).reduce((latest, name) => Math.max(latest, statSync(join(path, name)).mtimeMs), 0);

beforeAll(() => {
  // Never the fixture agent against a missing or stale build: that would test other code.
  const built = join(OSC7501, 'dist/index.mjs');
  if (!existsSync(built) || statSync(built).mtimeMs < newest(join(OSC7501, 'src'))) {
    throw new Error(`${built} is missing or older than libs/osc7501/src, which the fixture agent imports: run \`npx nx build osc7501\` (\`npx nx test procscan\` does)`);
  }
  dir = mkdtempSync(join(tmpdir(), 'pf-procscan-'));
  mkdirSync(join(dir, 'bin'));
  symlinkSync(FIXTURE_AGENT, join(dir, 'bin/claude'));
  const codex = join(dir, 'node_modules/@openai/codex/bin');
  mkdirSync(codex, { recursive: true });
  writeFileSync(join(codex, 'codex.js'), 'setInterval(() => {}, 1000);\n');
  writeFileSync(join(dir, 'bin/plain'), '#!/bin/sh\nsleep 100\n');
  chmodSync(join(dir, 'bin/plain'), 0o755);
});
beforeEach(() => {
  shell = pty.spawn('bash', ['--norc', '--noprofile'], {
    cols: 80,
    rows: 24,
    cwd: dir,
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, PS1: '$ ', CLAUDE_CONFIG_DIR: join(dir, 'claude') },
  });
  output = '';
  shell.onData((data) => (output += data));
});
afterEach(() => stopTree(shell.pid, 5000, 0));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pane's foreground process group, as the terminal says (field 8 of the shell's stat). */
const foregroundGroup = () => {
  const stat = readFileSync(`/proc/${shell.pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[5]);
};

/** A process's command line, or '' while there is none to read. */
const cmdline = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
};

/** The pids of a process's children. */
const childrenOf = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
};

/** Waits until `test` holds: the positive sign that what a negative check is about has happened. */
async function until(test: () => boolean, what: string) {
  const deadline = Date.now() + scaled(20_000);
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}; the pane shows ${JSON.stringify(output.slice(-300))}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The shell is at its prompt: it printed one and holds the terminal's foreground itself. */
const atPrompt = () => output.endsWith('$ ') && foregroundGroup() === shell.pid;

/** Scans until `test` holds (the program needs a moment to exec); the last observation. */
async function scanUntil(test: (o: ReturnType<ForegroundReader['scan']>) => boolean) {
  const deadline = Date.now() + scaled(10_000);
  for (;;) {
    const observation = reader.scan(shell.pid);
    if (test(observation)) return observation;
    if (Date.now() > deadline) throw new Error(`scan never matched; last ${JSON.stringify(observation)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test('a shell at its prompt runs no agent', async () => {
  await until(atPrompt, 'the shell at its prompt');
  expect(reader.scan(shell.pid)).toBeNull();
  expect(reader.settled).toBe(true);
});

test('an executable named claude on the PATH that runs the fixture agent is claude-code', async () => {
  shell.write('claude\r');
  const observation = await scanUntil((o) => o !== null);
  expect(observation).toMatchObject({ id: 'claude-code', process_name: expect.any(String), pid_started_at: expect.any(Number) });
  expect(observation!.pid).not.toBe(shell.pid);
  expect(observation!.process_group).toBe(observation!.pid);
});

test('node running a script from @openai/codex is codex, through the wrapper', async () => {
  shell.write(`node ${join(dir, 'node_modules/@openai/codex/bin/codex.js')}\r`);
  const observation = await scanUntil((o) => o !== null);
  expect(observation).toMatchObject({ id: 'codex', process_name: 'node' });
  expect(observation!.argv).toBeUndefined(); // argv is kept for direct matches only
});

test("bash -c 'sleep 100' is nothing", async () => {
  await until(atPrompt, 'the shell at its prompt');
  shell.write("bash -c 'sleep 100'\r");
  // In front now: a job of its own holds the terminal, and it runs sleep (bash execs a lone command).
  await until(() => foregroundGroup() !== shell.pid && cmdline(foregroundGroup()) === 'sleep\x00100\x00', 'sleep 100 in the foreground');
  expect(reader.scan(shell.pid)).toBeNull();
  expect(reader.settled).toBe(true);
});

test('when the agent exits the pane returns to no agent', async () => {
  shell.write('claude\r');
  await scanUntil((o) => o?.id === 'claude-code');
  shell.write('exit\r');
  await scanUntil((o) => o === null);
});

test('a background agent is not the foreground', async () => {
  const script = join(dir, 'node_modules/@openai/codex/bin/codex.js');
  await until(atPrompt, 'the shell at its prompt');
  shell.write(`node ${script} &\r`);
  // It runs (a child of the shell with that command line), and the shell is at its prompt again.
  await until(() => childrenOf(shell.pid).some((pid) => cmdline(pid) === `node\x00${script}\x00`), 'the agent running in the background');
  output = '';
  shell.write('\r');
  await until(atPrompt, 'the shell at its prompt again');
  expect(reader.scan(shell.pid)).toBeNull();
  expect(reader.settled).toBe(true);
});

test('a shell that execs the agent, or runs it as a child and stays, is read again', async () => {
  shell.write(`sh -c 'sleep 0.3; exec claude'\r`);
  await scanUntil((o) => o?.id === 'claude-code');
  shell.write('exit\r');
  await scanUntil((o) => o === null);
  shell.write(`sh -c 'sleep 0.3; claude; echo after'\r`);
  await scanUntil((o) => o?.id === 'claude-code');
});

test('a child the shell forked is read again when it execs the agent: read before, it was a copy of the shell', async () => {
  // A shell without job control (as `bash -c` runs a pane's command) forks a subshell into its own
  // process group; the subshell waits for a line, then execs the fixture agent. The group leader,
  // its program and its children's pids stay the same throughout.
  shell.write(`bash -c '(read go; exec claude); sleep 1'\r`);
  const before = await scanUntil((o) => o === null && cmdline(foregroundGroup()).includes('read go') && childrenOf(foregroundGroup()).length === 1);
  expect(before).toBeNull();
  shell.write('\r');
  const after = await scanUntil((o) => o !== null);
  expect(after).toMatchObject({ id: 'claude-code' });
});

test('a program that execs the agent under the same name is read again (node-pty starts every pane as a copy of node)', async () => {
  // A shell named `node` that waits for a line, then execs the fixture agent: the pid, its start
  // time, its name and its children stay the same; only the command line changes.
  mkdirSync(join(dir, 'fake'), { recursive: true });
  symlinkSync('/bin/bash', join(dir, 'fake/node'));
  shell.write(`AGENT=${join(dir, 'bin/claude')} ${join(dir, 'fake/node')} -c 'read go; exec "$AGENT"'\r`);
  const before = await scanUntil((o) => o === null && cmdline(foregroundGroup()).includes('read go'));
  expect(before).toBeNull();
  shell.write('\r');
  const after = await scanUntil((o) => o !== null);
  expect(after).toMatchObject({ id: 'claude-code', pid: foregroundGroup() });
});

describe("the agent's own session files (runtime.toml [sessions])", () => {
  const claude = runtimeCatalog().bySlug.get('claude-code')!;
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

  async function sessionUntil(observation: NonNullable<ReturnType<ForegroundReader['scan']>>, test: (s: ReturnType<typeof readAgentSession>) => boolean) {
    const deadline = Date.now() + scaled(10_000);
    for (;;) {
      const session = readAgentSession(claude, observation);
      if (test(session)) return session!;
      if (Date.now() > deadline) throw new Error(`session never matched; last ${JSON.stringify(session)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  test('name the running conversation and its transcript, follow /clear, and never match another process of that pid', async () => {
    shell.write('claude\r');
    const observation = (await scanUntil((o) => o?.id === 'claude-code'))!;
    const first = await sessionUntil(observation, (s) => s !== null);
    expect(first.id).toMatch(UUID);
    expect(first.transcriptPath).toBeNull(); // nothing said yet
    shell.write('hello\r');
    const talked = await sessionUntil(observation, (s) => s?.transcriptPath !== null);
    expect(talked).toEqual({ id: first.id, transcriptPath: join(dir, 'claude/projects', dir.replace(/[^a-zA-Z0-9]/g, '-'), `${first.id}.jsonl`) });
    shell.write('/clear\r');
    const cleared = await sessionUntil(observation, (s) => s !== null && s.id !== first.id);
    expect(cleared.id).toMatch(UUID);
    // The same pid started at another time is another process: its file says nothing of it.
    expect(readAgentSession(claude, { ...observation, pid_started_at: observation.pid_started_at + 1 })).toBeNull();
    shell.write('exit\r');
    await scanUntil((o) => o === null);
    expect(readAgentSession(claude, observation)).toBeNull();
    expect(existsSync(join(dir, 'claude/sessions', `${observation.pid}.json`))).toBe(false); // the file goes with the process
  });

  test("a FIFO in place of the agent's session file is not read (the host scans on its own thread): null at once", async () => {
    shell.write('claude\r');
    const observation = (await scanUntil((o) => o?.id === 'claude-code'))!;
    await sessionUntil(observation, (s) => s !== null);
    const file = join(dir, 'claude/sessions', `${observation.pid}.json`);
    rmSync(file);
    execFileSync('mkfifo', [file]);
    expect(readAgentSession(claude, observation)).toBeNull();
    shell.write('exit\r');
    await scanUntil((o) => o === null);
  });

  test('a runtime without a reader reads nothing', () => {
    expect(readAgentSession(runtimeCatalog().bySlug.get('codex')!, { id: 'codex', pid: process.pid, pid_started_at: 0, pid_started_at_ms: 0, process_group: 0, process_name: 'node' })).toBeNull();
  });
});
