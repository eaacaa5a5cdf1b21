import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionRow } from '@paneflow/protocol';
import { makeHome, scaled, screen, until, type Home } from '@paneflow/testing';

// Never lose an agent (REFERENCE.md §1.2, §6.1): the fixture agent keeps its conversations as
// Claude Code does, so a host crash, a reboot or an exit is followed by `restore`/`restart` that
// brings each conversation back by the id the agent itself wrote down.
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { encoding: 'utf8' });

let home: Home;
beforeEach(() => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
});
afterEach(() => home.cleanup());

/** Where the fixture agent keeps its conversations: ~/.claude of the test home's user. */
const claudeDir = () => join(home.env.HOME!, '.claude');

/** A repository and a workspace of agent panes, each on its own worktree. */
function upTeam(panes: Array<{ name: string; command: string }>): string {
  const repo = join(home.dir, 'repo');
  git(home.dir, 'init', '-q', '-b', 'main', repo);
  git(repo, 'commit', '-q', '--allow-empty', '-m', 'initial');
  const spec = ['name = "team"', 'layout = "even_h"', ...panes.map((p) => `[[panes]]\nname = "${p.name}"\ncommand = "${p.command}"\ncwd = "."\nworktree = "feat/${p.name}"`)];
  writeFileSync(join(repo, 'team.toml'), spec.join('\n') + '\n');
  const up = home.run(['up', join(repo, 'team.toml')]);
  expect(up.code).toBe(0);
  return repo;
}

/** Every agent of the workspace has declared itself idle: a submit now starts a turn. */
async function ready() {
  for (const { surface_id } of (await home.rpc('surface.list', { scope: 'all' })).surfaces) {
    expect(await home.rpc('surface.wait_ready', { surface_id, timeout_ms: 30_000 })).toEqual({ ready: true, by: 'declared_idle' });
  }
}

async function rows(): Promise<SessionRow[]> {
  return (await home.rpc('session.list', {})).sessions;
}
const row = async (name: string) => {
  const { surfaces } = await home.rpc('surface.list', { scope: 'all' });
  const surface = surfaces.find((s) => s.name === name)!;
  return (await rows()).find((r) => r.surface_id === surface.surface_id)!;
};

/** The conversation id the agent wrote down for itself, once it has. */
const conversationOf = (name: string) => until(async () => (await row(name)).provider_session_id, `${name} has a conversation id`);

/** The cwd a running agent process wrote in its own session file, found by its conversation id. */
function agentCwd(id: string): string | null {
  const dir = join(claudeDir(), 'sessions');
  for (const file of readdirSync(dir)) {
    const data = JSON.parse(readFileSync(join(dir, file), 'utf8')) as { sessionId: string; cwd: string; pid: number };
    if (data.sessionId === id && existsSync(`/proc/${data.pid}`)) return data.cwd;
  }
  return null;
}

/** Submits a line the agent reads as a command, not a turn: no turn starts, so send says so (exit 1). */
function typeLine(name: string, text: string) {
  const sent = home.run(['send', name, text, '--submit', '--scope', 'all']);
  expect(sent.json()).toMatchObject({ submitted: true, started: false });
  expect(sent.code).toBe(1);
}

const pidOf = (verb: 'host' | 'serve') => home.run([verb, 'status']).json<{ pid: number }>().pid;

function killNow(pid: number) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

test('kill -9 the host while two agents are mid-turn; start; restore: both resume their conversations in their worktrees and layout', async () => {
  const repo = upTeam([
    { name: 'asker', command: 'claude' },
    { name: 'worker', command: 'claude --work-ms 600000' },
  ]);
  await ready();
  expect(home.run(['send', 'asker', 'ask permission to deploy', '--submit', '--scope', 'all']).code).toBe(0);
  expect(home.run(['send', 'worker', 'write the tests', '--submit', '--scope', 'all']).code).toBe(0);
  await until(async () => (await row('asker')).status === 'attention' && (await row('worker')).status === 'busy', 'one agent waits, one works');
  const ids = { asker: await conversationOf('asker'), worker: await conversationOf('worker') };
  const layout = (await home.rpc('workspace.list', {})).workspaces[0].layout;

  killNow(pidOf('host'));
  await until(async () => (await rows()).every((r) => r.lifecycle === 'lost'), 'both sessions lost');
  expect(home.run(['start']).code).toBe(0);
  const lost = home.run(['sessions', '--lost']);
  expect(lost.stdout.match(/lost: the host died/g)).toHaveLength(2);
  // Nothing came back by itself: restore_on_start is off.
  expect((await rows()).map((r) => r.lifecycle)).toEqual(['lost', 'lost']);
  // ps says they are gone, not what they declared last, and how to bring each back.
  const ps = home.run(['ps']).stdout.trimEnd().split('\n').slice(1);
  expect(ps).toEqual([expect.stringMatching(/^1 +asker +claude +lost +.* lost: paneflow restart 1$/), expect.stringMatching(/^2 +worker +claude +lost +.* lost: paneflow restart 2$/)]);
  expect(home.run(['status', 'asker', '--scope', 'all']).stdout).toBe('1 asker claude lost · lost: paneflow restart 1\n');

  const restore = home.run(['restore']);
  expect(restore.stderr).toBe('');
  expect(restore.stdout).toBe(`asker: resumed conversation ${ids.asker}\nworker: resumed conversation ${ids.worker}\n`);
  expect(restore.code).toBe(0);
  for (const name of ['asker', 'worker'] as const) {
    const after = await row(name);
    expect(after).toMatchObject({ lifecycle: 'live', generation: 2, provider_session_id: ids[name], restart: { mode: 'session', outcome: 'resumed', argv: ['claude', '--resume', ids[name]] } });
    expect(after.cwd).toBe(`${repo}.worktrees/feat-${name}`);
    expect(await until(() => agentCwd(ids[name]), `${name} runs again`)).toBe(`${repo}.worktrees/feat-${name}`);
  }
  // Each reprints its own conversation, the turn it was in included.
  await screen(home, 'asker', /❯ ask permission to deploy[\s\S]*conversation /);
  await screen(home, 'worker', /❯ write the tests[\s\S]*conversation /);
  expect((await home.rpc('workspace.list', {})).workspaces[0].layout).toEqual(layout);
  expect(git(repo, 'worktree', 'list')).toMatch(/feat-asker[\s\S]*feat-worker/);

  // The resumed agent takes a turn as before.
  expect(home.run(['send', 'worker', 'one more', '--submit', '--scope', 'all']).code).toBe(0);
  expect(home.run(['restore']).stdout).toBe('nothing to restore: every agent pane is running\n');
}, scaled(120_000));

test('kill -9 of the host mid-turn: the restored pane shows what it last showed, marked as history, above the resumed conversation', async () => {
  upTeam([{ name: 'lead', command: 'claude --work-ms 600000' }]);
  await ready();
  expect(home.run(['send', 'lead', 'write the tests', '--submit', '--scope', 'all']).code).toBe(0);
  await until(async () => (await row('lead')).status === 'busy', 'the agent works');
  const id = await conversationOf('lead');
  // The screen the host saved beside the manifest once the output settled: the turn it is in.
  const saved = join(home.env.PANEFLOW_HOME!, 'host/sessions', `${(await row('lead')).session}.screen`);
  await until(() => existsSync(saved) && readFileSync(saved, 'utf8').includes('write the tests'), 'the screen is saved');

  killNow(pidOf('host'));
  await until(async () => (await rows()).every((r) => r.lifecycle === 'lost'), 'the session is lost');
  expect(home.run(['start']).code).toBe(0);
  expect(home.run(['restart', 'lead', '--scope', 'all']).stdout).toBe(`lead: resumed conversation ${id}\n`);
  // What it showed (the turn it was in), the line that marks it, then the agent's own replay.
  const shown = await screen(home, 'lead', /above: what this pane showed before the host stopped[\s\S]*❯ write the tests/);
  const marker = shown.indexOf('── above: what this pane showed before the host stopped (');
  expect(shown.slice(0, marker)).toMatch(/> write the tests\nthinking about: write the tests/);
  expect(shown.slice(marker)).toContain(`❯ write the tests\nconversation ${id}`);
}, scaled(120_000));

test('a resume that prints a failure marker is reported as failed and nothing starts in its place; --fresh starts the launch', async () => {
  upTeam([{ name: 'lead', command: 'claude' }]);
  await ready();
  expect(home.run(['send', 'lead', 'fix the login', '--submit', '--scope', 'all']).code).toBe(0);
  const id = await conversationOf('lead');
  const transcript = await until(async () => (await row('lead')).transcript_path, 'a transcript');
  typeLine('lead', 'exit');
  await until(async () => (await row('lead')).lifecycle === 'exited', 'the agent exited');
  rmSync(transcript); // the conversation is gone, as after a cleanup of ~/.claude

  const failed = home.run(['restart', 'lead', '--scope', 'all']);
  expect(failed.stdout).toBe(
    `lead: resume failed: it printed "No conversation found with session ID"; the pane keeps its screen — \`paneflow restart 1 --fresh\` starts it anew\n`,
  );
  expect(failed.code).toBe(1);
  // The marker decides it; the agent then exits on its own, and nothing else is started.
  await until(async () => (await row('lead')).lifecycle === 'exited', 'the failed resume ended');
  expect(await row('lead')).toMatchObject({ lifecycle: 'exited', generation: 2, restart: { mode: 'session', provider_session_id: id, outcome: 'failed' } });
  expect(home.run(['sessions', '--lost']).stdout).toMatch(/exited with code 1 \(resume failed: it printed "No conversation found with session ID"\)/);
  await screen(home, 'lead', new RegExp(`No conversation found with session ID: ${id}`));
  expect(home.run(['ps']).stdout).toMatch(/exited .*resume failed: it printed "No conversation found with session ID": paneflow restart 1 --fresh$/m);

  const fresh = home.run(['restart', 'lead', '--fresh', '--scope', 'all']);
  expect(fresh.stdout).toBe('lead: started again from its launch command (a fresh start was asked for)\n');
  expect(fresh.code).toBe(0);
  const newId = await until(async () => {
    const r = await row('lead');
    return r.generation === 3 && r.provider_session_id !== id && r.provider_session_id;
  }, 'a new conversation');
  expect(newId).not.toBe(id);
}, scaled(90_000));

test('an agent that ended after /clear resumes the conversation it was in, not the one it started with', async () => {
  upTeam([{ name: 'lead', command: 'claude' }]);
  await ready();
  expect(home.run(['send', 'lead', 'first task', '--submit', '--scope', 'all']).code).toBe(0);
  const first = await conversationOf('lead');
  await screen(home, 'lead', /done: first task/);
  typeLine('lead', '/clear');
  const second = await until(async () => {
    const id = (await row('lead')).provider_session_id;
    return id !== first && id;
  }, 'the id follows /clear');
  expect(home.run(['send', 'lead', 'second task', '--submit', '--scope', 'all']).code).toBe(0);
  await screen(home, 'lead', /done: second task/);
  typeLine('lead', 'exit');
  await until(async () => (await row('lead')).lifecycle === 'exited', 'the agent exited');
  expect(home.run(['sessions', '--lost']).stdout).toMatch(/exited with code 0/);

  const restarted = home.run(['restart', 'lead', '--scope', 'all', '--json']);
  expect(restarted.code).toBe(0);
  expect(restarted.json()).toMatchObject({ mode: 'session', restart: { provider_session_id: second, outcome: 'resumed' } });
  const text = await screen(home, 'lead', /❯ second task/);
  expect(text).not.toContain('❯ first task');
}, scaled(90_000));

test('after a simulated reboot (every process killed, the runtime dir emptied) start brings the workspace back lost, and restore resumes it', async () => {
  upTeam([
    { name: 'api', command: 'claude' },
    { name: 'web', command: 'claude' },
  ]);
  await ready();
  for (const name of ['api', 'web']) expect(home.run(['send', name, `build the ${name}`, '--submit', '--scope', 'all']).code).toBe(0);
  const ids = { api: await conversationOf('api'), web: await conversationOf('web') };
  const before = (await home.rpc('workspace.list', {})).workspaces;
  const agents = readdirSync(join(claudeDir(), 'sessions')).map((file) => Number.parseInt(file, 10));

  for (const pid of [pidOf('serve'), pidOf('host'), ...agents]) killNow(pid);
  await until(() => [...agents].every((pid) => !existsSync(`/proc/${pid}`)), 'every process is gone');
  rmSync(home.env.XDG_RUNTIME_DIR!, { recursive: true, force: true });

  expect(home.run(['start']).code).toBe(0);
  const after = (await home.rpc('workspace.list', {})).workspaces;
  expect(after.map((w) => ({ name: w.name, layout: w.layout }))).toEqual(before.map((w) => ({ name: w.name, layout: w.layout })));
  expect((await home.rpc('surface.list', { scope: 'all' })).surfaces.map((s) => s.name)).toEqual(['api', 'web']);
  const lost = home.run(['sessions', '--lost']).stdout;
  expect(lost.match(/lost: the machine restarted/g)).toHaveLength(2);

  const restore = home.run(['restore', '--workspace', 'team']);
  expect(restore.stdout).toBe(`api: resumed conversation ${ids.api}\nweb: resumed conversation ${ids.web}\n`);
  expect(restore.code).toBe(0);
  await screen(home, 'web', /❯ build the web/);
}, scaled(120_000));

test('restore_on_start resumes what a host crash lost, at most two agents starting at once', async () => {
  home.writeConfig({ restore_on_start: true });
  upTeam([
    { name: 'one', command: 'claude' },
    { name: 'two', command: 'claude' },
    { name: 'three', command: 'claude' },
  ]);
  await ready();
  const names = ['one', 'two', 'three'];
  for (const name of names) expect(home.run(['send', name, `task ${name}`, '--submit', '--scope', 'all']).code).toBe(0);
  for (const name of names) await conversationOf(name);

  killNow(pidOf('host'));
  const resumed = await until(async () => {
    const all = await rows();
    return all.every((r) => r.generation === 2 && r.restart?.outcome === 'resumed') && all;
  }, 'all three resumed by themselves', 60_000);
  // The third started only once one of the first two was back: serve logs each outcome as it comes.
  const settled = [...readFileSync(join(home.env.PANEFLOW_HOME!, 'serve/serve.log'), 'utf8').matchAll(/^(\S+) \[serve \d+\] surface \d+: restarted \(session\): resumed/gm)].map((m) => Date.parse(m[1]));
  expect(settled).toHaveLength(3);
  const third = resumed.find((r) => r.surface_id === 3)!;
  expect(third.restart!.at_ms).toBeGreaterThanOrEqual(Math.min(...settled));
}, scaled(120_000));
