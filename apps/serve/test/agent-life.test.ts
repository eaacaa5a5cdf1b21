import { ACTIVITY_LOG_ENTRIES, RpcError, type Manifest } from '@paneflow/protocol';
import { scaled, until } from '@paneflow/testing';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HOST_BIN, killIfAlive, serveCli, startInstance, type Frame, type Instance } from './helpers';

// What happens around an agent's life that is not its turn state: its exit (§2.5), its subagents
// (§7.2), the activity log of its outcomes (§3.4), an older host's sessions (§1.3), and the
// config's visibility keys (§10).

const statusFor = (surface: number) => (f: Frame) => f.type === 'status_changed' && f.surface_id === surface;
/**
 * An agent the pane's shell outlives. The host looks at the foreground when something happens;
 * the shell prints once it has reaped the agent, as an interactive shell's prompt does.
 */
const AGENT_THEN_SHELL = 'claude; echo agent gone; exec sleep 600';
const hookFrame = (session: string, pid: number | null, payload: Record<string, unknown>) => ({ tool: 'claude', session, pid, emitted_at_ms: Date.now(), payload });

async function agentPane(pf: Instance, name: string, command: string) {
  const events = await pf.subscribe();
  const up = await pf.call('workspace.up', { name, layout: 'even_h', panes: [{ name, cwd: pf.dir, command, focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await events.next((f) => statusFor(surface)(f) && f.reason === 'declared');
  const status = await pf.call('surface.status', { surface_id: surface });
  return { events, surface, session: status.session, pid: status.pid! };
}

describe('an agent that lives, works and exits', () => {
  let pf: Instance;
  beforeAll(async () => {
    pf = await startInstance({ scripting: true, orchestration: true });
  });
  afterAll(() => pf.cleanup());

  test("the host's report of an agent's exit is an ai.exit frame with the session's exit code", async () => {
    const { events, surface, pid } = await agentPane(pf, 'exits', 'claude');
    const mark = events.mark;
    await pf.call('surface.send_text', { surface_id: surface, text: 'exit', submit: true });
    const exit = await events.next((f) => f.type === 'ai.exit' && f.surface_id === surface, mark);
    expect(exit).toMatchObject({ tool: 'claude', payload: { pid, exit_code: 0, reported_by: 'host' } });
    // One per exit: the lifecycle frame that follows announces nothing more.
    await events.next((f) => f.type === 'session_changed' && f.surface_id === surface && (f.row as { lifecycle: string }).lifecycle === 'exited', mark);
    expect(events.frames.filter((f) => f.type === 'ai.exit' && f.surface_id === surface)).toHaveLength(1);
  });

  test('an agent that leaves a running shell behind exits too (exit code unknown); its subagents end with it', async () => {
    const { events, surface, session, pid } = await agentPane(pf, 'leaves', AGENT_THEN_SHELL);
    for (const id of ['explore-1', 'plan-2']) expect(await pf.call('ai.subagent', hookFrame(session, pid, { agent_id: id, phase: 'start' }))).toEqual({ accepted: true });
    const { generation } = (await pf.call('session.list', {})).sessions.find((s) => s.session === session)!;
    const markers = join(pf.env.PANEFLOW_HOME!, 'host/session-data', session, String(generation));
    expect(JSON.parse(readFileSync(join(markers, 'plan-2.json'), 'utf8'))).toMatchObject({ agent_id: 'plan-2', pid });
    expect((await pf.call('surface.status', { surface_id: surface })).subagents).toEqual(['explore-1', 'plan-2']);

    const mark = events.mark;
    await pf.call('surface.send_text', { surface_id: surface, text: 'exit', submit: true });
    const exit = await events.next((f) => f.type === 'ai.exit' && f.surface_id === surface, mark);
    expect(exit).toMatchObject({ tool: 'claude', payload: { pid, exit_code: null, reported_by: 'host' } });
    const status = await pf.call('surface.status', { surface_id: surface });
    expect(status).toMatchObject({ lifecycle: 'live', subagents: [] });
    expect(existsSync(markers)).toBe(false);
  });

  test("an agent whose own hook said Exit gets no second ai.exit from the host", async () => {
    const { events, surface, session, pid } = await agentPane(pf, 'hooked-exit', AGENT_THEN_SHELL);
    const mark = events.mark;
    expect(await pf.call('ai.exit', hookFrame(session, pid, { exit_code: 0 }))).toEqual({ accepted: true });
    await pf.call('surface.send_text', { surface_id: surface, text: 'exit', submit: true });
    // The agent is gone once the host names no agent in front any more.
    await events.next((f) => f.type === 'session_changed' && f.surface_id === surface && (f.row as { foreground_runtime_id: string | null }).foreground_runtime_id === null, mark);
    await until(async () => (await pf.call('surface.status', { surface_id: surface })).tool === null || null, 'agent gone');
    expect(events.frames.filter((f) => f.type === 'ai.exit' && f.surface_id === surface).map((f) => f.payload)).toEqual([{ exit_code: 0 }]);
  });

  test('subagent ids that cannot name a file are refused and change nothing; a stop removes the marker; serve reads markers back after a restart', async () => {
    const { surface, session, pid } = await agentPane(pf, 'subagents', 'claude');
    const before = (await pf.call('session.list', {})).sessions.find((s) => s.session === session)!;
    for (const agent_id of ['', '../escape', 'a b', 'a/b', 'x'.repeat(161)]) {
      const error = (await pf.call('ai.subagent', hookFrame(session, pid, { agent_id, phase: 'start' })).catch((e: unknown) => e)) as RpcError;
      expect([agent_id, error.code, error.data]).toEqual([agent_id, -32602, expect.objectContaining({ field: 'payload/agent_id' })]);
    }
    const after = (await pf.call('session.list', {})).sessions.find((s) => s.session === session)!;
    expect(after.hook_revision).toBe(before.hook_revision);
    expect(existsSync(join(pf.env.PANEFLOW_HOME!, 'host/session-data', session))).toBe(false);

    await pf.call('ai.subagent', hookFrame(session, pid, { agent_id: 'a1', phase: 'start' }));
    await pf.call('ai.subagent', hookFrame(session, pid, { agent_id: 'a2', phase: 'start' }));
    await pf.call('ai.subagent', hookFrame(session, pid, { agent_id: 'a1', phase: 'stop' }));
    const markers = join(pf.env.PANEFLOW_HOME!, 'host/session-data', session, String(after.generation));
    expect(existsSync(join(markers, 'a1.json'))).toBe(false);
    expect((await pf.call('surface.status', { surface_id: surface })).subagents).toEqual(['a2']);

    // A new serve knows what runs from the markers alone.
    killIfAlive(pf.servePid);
    const restarted = serveCli(pf.env, 'start');
    expect(restarted.code).toBe(0);
    pf.servePid = JSON.parse(restarted.stdout).pid;
    expect((await pf.call('surface.status', { surface_id: surface })).subagents).toEqual(['a2']);
  });

  test('every outcome change goes to the activity log, which keeps the latest 256', async () => {
    const { surface } = await agentPane(pf, 'activity', 'claude');
    const events = await pf.subscribe({ surfaces: [surface], types: ['status_changed'] });
    await pf.call('surface.send_text', { surface_id: surface, text: 'one turn', submit: true });
    await events.next((f) => f.state === 'finished');
    await pf.call('surface.send_text', { surface_id: surface, text: 'error', submit: true });
    await events.next((f) => f.status === 'errored');
    const { entries } = await pf.call('fleet.activity', { surface_id: surface });
    expect(entries.map((e) => [e.previous, e.outcome])).toEqual([
      [null, 'completed'],
      ['completed', 'failed:the fixture failed on purpose'],
    ]);
    expect(entries[1]).toMatchObject({ surface_id: surface, runtime_id: 'claude-code', state_seq: expect.any(Number) });
    expect((await pf.call('fleet.activity', { surface_id: surface, limit: 1 })).entries).toEqual([entries[1]]);

    // An agent that turns by itself every few ms fills the log past its bound.
    const rapid = await pf.call('workspace.up', { name: 'rapid', layout: 'even_h', panes: [{ cwd: pf.dir, command: 'claude --auto 5 --work-ms 1', focus: false, env: {} }] });
    try {
      await until(async () => {
        const all = (await pf.call('fleet.activity', {})).entries;
        return all.filter((e) => e.surface_id === rapid.surfaces[0].surface_id).length >= ACTIVITY_LOG_ENTRIES || null;
      }, 'the log filled by one agent', 120_000);
    } finally {
      await pf.call('surface.close', { surface_id: rapid.surfaces[0].surface_id });
    }
    const all = (await pf.call('fleet.activity', {})).entries;
    expect(all).toHaveLength(ACTIVITY_LOG_ENTRIES);
    // The first pane's entries were the oldest: they are gone.
    expect(all.filter((e) => e.surface_id === surface)).toEqual([]);
    const error = (await pf.call('fleet.activity', { limit: ACTIVITY_LOG_ENTRIES + 1 }).catch((e: unknown) => e)) as RpcError;
    expect(error.code).toBe(-32602);
  }, scaled(180_000));
});

describe('a session an older host started', () => {
  let pf: Instance;
  beforeAll(async () => {
    pf = await startInstance({ scripting: true, orchestration: true });
  });
  afterAll(() => pf.cleanup());

  test('carries restart_recommended until it runs again under this host', async () => {
    const old = await pf.call('workspace.create', { cwd: pf.dir, name: 'old' });
    const fresh = await pf.call('workspace.create', { cwd: pf.dir, name: 'fresh' });
    const rows = async () => (await pf.call('session.list', {})).sessions;
    const oldSession = (await rows()).find((r) => r.surface_id === old.surface_id)!.session;
    expect((await rows()).every((r) => r.restart_recommended === undefined)).toBe(true);

    // The instance goes down; its manifest is one an older host (protocol 0) wrote.
    expect(serveCli(pf.env, 'stop', '--drain-ms', '100').code).toBe(0);
    expect(spawnSync(process.execPath, [HOST_BIN, 'stop', '--force'], { env: pf.env, timeout: 30_000 }).status).toBe(0);
    const file = join(pf.env.PANEFLOW_HOME!, 'host/sessions', `${oldSession}.json`);
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    writeFileSync(file, JSON.stringify({ ...manifest, host_protocol_version: 0 }));
    const started = serveCli(pf.env, 'start');
    expect(started.code).toBe(0);
    pf.servePid = JSON.parse(started.stdout).pid;

    const after = await rows();
    expect(after.find((r) => r.surface_id === old.surface_id)).toMatchObject({ host_protocol: 0, restart_recommended: true });
    expect(after.find((r) => r.surface_id === fresh.surface_id)!.restart_recommended).toBeUndefined();
    await pf.call('surface.restart', { surface_id: old.surface_id });
    await until(async () => ((await rows()).find((r) => r.surface_id === old.surface_id)!.restart_recommended === undefined) || null, 'the flag gone after the restart');
  });
});

describe('an agent the config hides', () => {
  let pf: Instance;
  beforeAll(async () => {
    pf = await startInstance({ scripting: true, orchestration: true, config: { show_agent_claude_code: false } });
  });
  afterAll(() => pf.cleanup());

  test('stays out of fleet.list and raises no notice; showing it again reaches the faces at once', async () => {
    const events = await pf.subscribe();
    const up = await pf.call('workspace.up', { name: 'hidden', layout: 'even_h', panes: [{ name: 'hidden', cwd: pf.dir, command: 'claude --block', focus: true, env: {} }] });
    const surface = up.surfaces[0].surface_id;
    await events.next((f) => statusFor(surface)(f) && f.reason === 'declared');
    expect(await pf.call('surface.status', { surface_id: surface })).toMatchObject({ tool: 'claude', hidden: true });
    expect((await pf.call('fleet.list', {})).agents).toEqual([]);

    const mark = events.mark;
    await pf.call('surface.send_text', { surface_id: surface, text: 'deploy', submit: true });
    await events.next((f) => statusFor(surface)(f) && f.state === 'waiting_for_input', mark);
    await until(async () => (await pf.call('system.counters', {})).counters.notifications_hidden >= 1 || null, 'the notice withheld');
    expect(events.frames.filter((f) => f.type === 'notification')).toEqual([]);

    // Shown again: the faces hear it without asking, ps lists it, its next notice goes out.
    const shown = events.mark;
    writeFileSync(pf.configFile, JSON.stringify({ show_agent_claude_code: true }));
    await events.next((f) => statusFor(surface)(f) && (f.surface_status as { hidden: boolean }).hidden === false, shown);
    expect((await pf.call('fleet.list', {})).agents.map((a) => a.surface_id)).toEqual([surface]);
    await pf.call('surface.send_keystroke', { surface_id: surface, keystroke: '1', force: true });
    await events.next((f) => f.type === 'notification' && f.kind === 'finished' && f.surface_id === surface, shown);
  });
});
