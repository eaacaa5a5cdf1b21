import { resolveEndpoints } from '@paneflow/instance';
import type { SessionRow } from '@paneflow/protocol';
import { makeHome, refuseWrites, scaled, until, type Home } from '@paneflow/testing';
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { join } from 'node:path';

// The instance under faults a user can cause: a home that cannot be written, clients that connect
// and say nothing, a host that does not answer. Every verb still reaches serve and says why.
let home: Home;
let undo: (() => void) | null = null;
beforeEach(() => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
});
afterEach(() => {
  undo?.();
  undo = null;
  home.cleanup();
});

const state = (...parts: string[]) => join(home.env.PANEFLOW_HOME!, ...parts);
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z');
const hostPid = () => JSON.parse(readFileSync(state('host/instance.json'), 'utf8')).pid as number;

test('while serve runs and its home cannot be written, new and restore reach serve and get its answer', () => {
  expect(home.run(['start']).code).toBe(0);
  undo = refuseWrites(state('serve'));
  const made = home.run(['new', '--cwd', home.dir]);
  expect(made.stderr).not.toMatch(/cannot start Paneflow/);
  expect(made.stderr).toMatch(/workspaces\.json cannot be written/);
  expect(made.code).toBe(1);
  const restored = home.run(['restore']);
  expect(restored.stderr).not.toMatch(/cannot start Paneflow/);
  expect(restored.stdout).toBe('nothing to restore: every agent pane is running\n');
  expect(restored.code).toBe(0);
});

test('with 70 connections that say nothing, ls still answers, and they are closed at the first-line deadline', async () => {
  expect(home.run(['start']).code).toBe(0);
  const path = resolveEndpoints(home.env).publicSocket;
  const idle: Socket[] = [];
  const closed = new Set<Socket>();
  for (let i = 0; i < 70; i++) {
    const socket = createConnection(path);
    socket.on('error', () => undefined);
    socket.on('close', () => closed.add(socket));
    socket.resume(); // reads what serve sends, so its close is seen
    idle.push(socket);
  }
  try {
    await Promise.all(idle.map((socket) => new Promise((resolve) => (socket.connecting ? socket.once('connect', resolve).once('close', resolve) : resolve(null)))));
    const ls = home.run(['ls', '--scope', 'all']);
    expect(ls.stderr).toBe('');
    expect(ls.code).toBe(0);
    await until(() => closed.size === idle.length, 'every silent connection closed');
  } finally {
    for (const socket of idle) socket.destroy();
  }
});

test('stop --force stops serve, a host that does not answer (stopped by SIGSTOP) and its panes', async () => {
  expect(home.run(['new', '--cwd', home.dir]).code).toBe(0);
  const servePid = home.run(['serve', 'status']).json<{ pid: number }>().pid;
  const host = hostPid();
  const [{ session }] = (await home.rpc('session.list', {})).sessions;
  // The pane's shell, as the host's manifest records it.
  const pane = await until(() => JSON.parse(readFileSync(state('host/sessions', `${session}.json`), 'utf8')).process?.pid as number | undefined, 'the pane’s pid on disk');
  expect(alive(pane)).toBe(true);
  process.kill(host, 'SIGSTOP');
  const stopped = home.run(['stop', '--force']);
  expect(stopped.code).toBe(0);
  await until(() => ![servePid, host, pane].some(alive), 'serve, the host and the pane gone');
});

test('with the host stopped, read and send wait for serve’s answer, which says the host did not answer', async () => {
  expect(home.run(['new', '--cwd', home.dir]).code).toBe(0);
  const host = hostPid();
  process.kill(host, 'SIGSTOP');
  try {
    const verbs = [home.start(['read', '1']), home.start(['send', '1', 'hello'])];
    const codes = await Promise.all(verbs.map((verb) => verb.exited));
    expect(codes).toEqual([1, 1]);
    expect(verbs[0].stderr).toMatch(/the host did not answer session\.read within \d+ ms/);
    expect(verbs[1].stderr).toMatch(/the host did not answer session\.input within \d+ ms/);
  } finally {
    process.kill(host, 'SIGCONT');
  }
}, scaled(60_000));

test('restart and restore wait for the resume’s verdict: one not judged in time is reported pending', async () => {
  writeFileSync(join(home.dir, 'team.toml'), 'name = "team"\n[[panes]]\nname = "lead"\ncommand = "claude"\ncwd = "."\n');
  expect(home.run(['up', join(home.dir, 'team.toml')]).code).toBe(0);
  const [{ surface_id }] = (await home.rpc('surface.list', { scope: 'all' })).surfaces;
  expect(await home.rpc('surface.wait_ready', { surface_id, timeout_ms: 30_000 })).toEqual({ ready: true, by: 'declared_idle' });
  expect(home.run(['send', 'lead', 'fix the login', '--submit', '--scope', 'all']).code).toBe(0);
  const row = async (): Promise<SessionRow> => (await home.rpc('session.list', {})).sessions[0];
  const id = await until(async () => (await row()).provider_session_id, 'a conversation id');
  // Its turn over first: a submit into it would be refused (agent_busy), and it would never exit.
  await until(async () => (await row()).status === 'idle' || null, 'the turn ended');
  home.run(['send', 'lead', 'exit', '--submit', '--scope', 'all']);
  await until(async () => (await row()).lifecycle === 'exited', 'the agent exited');
  // What `claude --resume` runs now says nothing, ever: its resume is never judged.
  rmSync(join(home.dir, 'bin/claude'));
  writeFileSync(join(home.dir, 'bin/claude'), '#!/bin/sh\nexec sleep 600\n');
  chmodSync(join(home.dir, 'bin/claude'), 0o755);
  const pending = `lead: resuming conversation ${id}; not confirmed within 15 s\n`;

  const restarted = home.run(['restart', 'lead', '--scope', 'all']);
  expect(restarted.stderr).toBe('');
  expect(restarted.stdout).toBe(pending);
  expect(restarted.code).toBe(0);

  expect(home.run(['key', 'lead', 'ctrl-c', '--scope', 'all']).code).toBe(0);
  await until(async () => (await row()).lifecycle === 'exited', 'the silent resume ended');
  const restored = home.run(['restore']);
  expect(restored.stderr).toBe('');
  expect(restored.stdout).toBe(pending);
  expect(restored.code).toBe(0);
}, scaled(120_000));
