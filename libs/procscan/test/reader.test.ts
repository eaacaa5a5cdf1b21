import * as pty from 'node-pty';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForegroundReader, runtimeCatalog, stopTree } from '../src';

// Real processes in a real PTY: the reader must find the foreground agent the way the host will.
const FIXTURE_AGENT = join(__dirname, '../../../fixtures/agent.mjs');
let dir: string;
let shell: pty.IPty;
const reader = new ForegroundReader(runtimeCatalog());

beforeAll(() => {
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
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}`, PS1: '$ ' },
  });
});
afterEach(() => stopTree(shell.pid, 5000, 0));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Scans until `test` holds (the program needs a moment to exec); the last observation. */
async function scanUntil(test: (o: ReturnType<ForegroundReader['scan']>) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const observation = reader.scan(shell.pid);
    if (test(observation)) return observation;
    if (Date.now() > deadline) throw new Error(`scan never matched; last ${JSON.stringify(observation)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

test('a shell at its prompt runs no agent', async () => {
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(reader.scan(shell.pid)).toBeNull();
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
  shell.write("bash -c 'sleep 100'\r");
  await scanUntil(() => true);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(reader.scan(shell.pid)).toBeNull();
});

test('when the agent exits the pane returns to no agent', async () => {
  shell.write('claude\r');
  await scanUntil((o) => o?.id === 'claude-code');
  shell.write('exit\r');
  await scanUntil((o) => o === null);
});

test('a background agent is not the foreground', async () => {
  shell.write(`node ${join(dir, 'node_modules/@openai/codex/bin/codex.js')} &\r`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(reader.scan(shell.pid)).toBeNull();
});

test('a shell that execs the agent, or runs it as a child and stays, is read again', async () => {
  shell.write(`sh -c 'sleep 0.3; exec claude'\r`);
  await scanUntil((o) => o?.id === 'claude-code');
  shell.write('exit\r');
  await scanUntil((o) => o === null);
  shell.write(`sh -c 'sleep 0.3; claude; echo after'\r`);
  await scanUntil((o) => o?.id === 'claude-code');
});
