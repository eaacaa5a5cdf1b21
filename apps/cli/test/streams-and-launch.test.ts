// Event streams and launches: `watch --events-only` (§4.7),
// `sessions --follow` across a serve restart (§4.7), a runtime's `strip_inherited` (§1.2, §6),
// and a flow's `on_failure = "continue"` at run time (§5.7).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome, scaled, until, type Home } from '@paneflow/testing';

type Line = { type: string; at_ms: number } & Record<string, unknown>;

let home: Home;
beforeAll(() => {
  // Variables the user's own Claude Code session would leave in the environment Paneflow starts from.
  home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1', PANEFLOW_IPC_SCRIPTING: '1', CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli' });
  expect(home.run(['start']).code).toBe(0);
});
afterAll(() => home?.cleanup());

const pane = (name: string, command: string) => ({ name, cwd: home.dir, command, focus: false, env: {} });
const subscribers = async () => (await home.rpc('system.counters', {})).counters.subscribers;

test('watch --events-only prints neither the subscription nor heartbeats, only the events', async () => {
  const before = await subscribers();
  const quiet = home.start(['watch', '--events-only', '--type', 'workspace_changed']);
  await until(async () => (await subscribers()) > before, 'the events-only watch subscribed');
  // Subscribed after it: by the time this one has had a heartbeat, the first one has had its own.
  const plain = home.start(['watch', '--type', 'workspace_changed']);
  try {
    expect(JSON.parse(await plain.line(() => true))).toMatchObject({ type: 'subscribed' });
    await plain.line((l) => JSON.parse(l).type === 'heartbeat');
    // An event after the heartbeat: each stream is in order, so the first watch has printed all it will before it.
    const created = await home.rpc('workspace.create', { name: 'events-only', cwd: home.dir });
    const seen = (l: string) => JSON.parse(l).type === 'workspace_changed' && JSON.parse(l).id === created.id;
    await plain.line(seen);
    await quiet.line(seen);
    const types = quiet.lines.map((l) => (JSON.parse(l) as Line).type);
    expect(types.filter((t) => t !== 'workspace_changed')).toEqual([]);
    quiet.child.kill('SIGINT');
    expect(await quiet.exited).toBe(0);
  } finally {
    quiet.child.kill();
    plain.child.kill();
  }
}, scaled(60_000));

test('sessions --follow prints a line per status or session change, and goes on through a serve restart', async () => {
  await home.rpc('workspace.up', { name: 'follow', layout: 'even_h', panes: [pane('auto', 'claude --auto 400 --work-ms 50')] });
  const follow = home.start(['sessions', '--follow']);
  try {
    await follow.line((l) => JSON.parse(l).type === 'status_changed');
    expect(home.run(['serve', 'stop']).code).toBe(0);
    expect(home.run(['serve', 'start']).code).toBe(0);
    const restarted = Date.now();
    // The agent keeps taking turns: the follower reconnects (every second) and hears the new serve.
    await follow.line((l) => JSON.parse(l).at_ms > restarted && JSON.parse(l).type === 'status_changed', 30_000);
    expect(follow.child.exitCode).toBeNull();
    const types = new Set(follow.lines.map((l) => (JSON.parse(l) as Line).type));
    expect([...types].filter((t) => t !== 'status_changed' && t !== 'session_changed')).toEqual([]);
  } finally {
    follow.child.kill();
  }
}, scaled(90_000));

test("an agent pane starts without its runtime's strip_inherited variables; a shell keeps them", async () => {
  const up = await home.rpc('workspace.up', {
    name: 'strip',
    layout: 'even_h',
    panes: [
      { name: 'stripped', cwd: home.dir, agent: 'claude-code', focus: false, env: {} },
      pane('kept', 'exec sleep 600'),
    ],
  });
  const [agent, shell] = up.surfaces.map((s) => s.surface_id);
  const { pid } = await until(async () => {
    const status = await home.rpc('surface.status', { surface_id: agent });
    return status.runtime_id === 'claude-code' && status.pid !== null ? status : null;
  }, 'the agent identified');
  const { session } = (await home.rpc('session.list', {})).sessions.find((s) => s.surface_id === shell)!;
  // The host writes a session's manifest a moment after its start (coalesced, apps/host README), by rename: whole once there.
  const manifestPath = join(home.env.PANEFLOW_HOME!, 'host/sessions', `${session}.json`);
  const manifest = await until(() => (existsSync(manifestPath) ? (JSON.parse(readFileSync(manifestPath, 'utf8')) as { process: { pid: number } }) : null), 'the shell’s manifest');
  const environ = (p: number) => readFileSync(`/proc/${p}/environ`, 'utf8').split('\0');
  const named = (vars: string[]) => vars.filter((v) => /^(CLAUDECODE|CLAUDE_CODE_ENTRYPOINT)=/.test(v)).sort();
  expect(named(environ(pid!))).toEqual([]);
  expect(named(environ(manifest.process.pid))).toEqual(['CLAUDECODE=1', 'CLAUDE_CODE_ENTRYPOINT=cli']);
}, scaled(60_000));

test('on_failure = "continue": a failed step skips what needs it, and the rest still runs after the failure', async () => {
  const file = join(home.dir, 'continue.toml');
  writeFileSync(
    file,
    `name = "keep-going"
[defaults]
on_failure = "continue"
timeout_secs = 60
[[step]]
id = "bad"
pane = { name = "bad", command = "echo nothing-here; exec sleep 600" }
ready = { pattern = "^never-printed$", timeout_secs = 1 }
[[step]]
id = "after-bad"
needs = ["bad"]
pane = { name = "after-bad", command = "exec sleep 600" }
[[step]]
id = "slow"
pane = { name = "slow", command = "read line; echo go-$line; exec sleep 600" }
ready = { pattern = "^go-on$" }
[[step]]
id = "after-slow"
needs = ["slow"]
pane = { name = "after-slow", command = "echo second-ok; exec sleep 600" }
ready = { pattern = "^second-ok$" }
`,
  );
  const flow = home.start(['flow', 'run', file, '--json']);
  try {
    await until(() => /^flow: bad: timeout/m.test(flow.stderr), 'the bad step failed');
    // Only now may `slow` finish, so `after-slow` is scheduled after the failure.
    const slow = (await home.rpc('surface.list', { scope: 'all' })).surfaces.find((s) => s.name === 'slow')!;
    await home.rpc('surface.send_text', { surface_id: slow.surface_id, text: 'on', submit: true, scope: 'all' });
    expect(await flow.exited).toBe(4);
    const report = JSON.parse(flow.lines.join('\n')) as { ok: boolean; steps: Array<{ id: string; status: string }> };
    expect(report.ok).toBe(false);
    expect(Object.fromEntries(report.steps.map((s) => [s.id, s.status]))).toEqual({ bad: 'timeout', 'after-bad': 'skipped', slow: 'done', 'after-slow': 'done' });
    expect(flow.stderr.indexOf('flow: after-slow: started')).toBeGreaterThan(flow.stderr.indexOf('flow: bad: timeout'));
  } finally {
    flow.child.kill();
  }
}, scaled(90_000));
