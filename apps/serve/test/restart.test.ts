import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scaled, until } from '@paneflow/testing';
import { EventStream, killIfAlive, serveCli, startInstance, type Frame, type Instance, waitUntilGone } from './helpers';

let pf: Instance;
beforeAll(async () => {
  pf = await startInstance({ scripting: true, orchestration: true });
});
afterAll(() => pf.cleanup());

/**
 * A subscription that outlives serve: when serve goes it subscribes again as soon as a serve
 * answers, and keeps every frame of every connection in one list.
 */
async function lastingSubscription(instance: Instance) {
  const frames: Frame[] = [];
  let current: EventStream | null = null;
  let stopped = false;
  let connections = 0;
  const open = async (): Promise<void> => {
    while (!stopped) {
      try {
        current = await EventStream.open(instance.endpoints.publicSocket, {}, (frame) => frames.push(frame));
        connections++;
        current.connection.onClose(() => void open());
        return;
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  await open();
  return {
    frames,
    get connections() {
      return connections;
    },
    stop() {
      stopped = true;
      current?.connection.destroy();
    },
  };
}

test('kill -9 serve mid-turn: every row comes back with the same status and state_seq, and no notice is sent twice', async () => {
  const events = await pf.subscribe();
  const up = await pf.call('workspace.up', { name: 'restart', layout: 'even_h', panes: [{ name: 'lead', cwd: pf.dir, command: 'claude --block', focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await events.next((f) => f.type === 'status_changed' && f.surface_id === surface && f.reason === 'declared');
  const lasting = await lastingSubscription(pf);
  try {
    await pf.call('surface.send_text', { surface_id: surface, text: 'deploy it', submit: true });
    await events.next((f) => f.type === 'notification' && f.kind === 'needs_input' && f.surface_id === surface);
    const before = (await pf.call('fleet.list', {})).agents.find((a) => a.surface_id === surface)!;
    expect(before).toMatchObject({ status: 'attention', state: 'waiting_for_input' });

    killIfAlive(pf.servePid);
    await waitUntilGone(pf.servePid);
    const restarted = serveCli(pf.env, 'start');
    expect(restarted.code).toBe(0);
    pf.servePid = JSON.parse(restarted.stdout).pid;

    const after = (await pf.call('fleet.list', {})).agents.find((a) => a.surface_id === surface)!;
    expect(after).toMatchObject({ status: before.status, state_seq: before.state_seq, state: 'waiting_for_input', message: 'approve Bash: deploy it', surface_name: 'lead' });

    // A notice the new serve sent while rebuilding, before any client could connect, is in its
    // count: it has sent none.
    expect((await pf.call('system.counters', {})).counters).toMatchObject({ notifications: 0, notifications_rate_limited: 0 });
    // Nothing is replayed later either: the first frame the new serve sends a subscriber is a
    // heartbeat, and one that asked for no heartbeats has heard nothing at all by then.
    const silent = await pf.subscribe({ heartbeat: false });
    const fresh = await pf.subscribe();
    const first = await fresh.next((f: Frame) => f.type !== 'subscribed', 0, 8000);
    expect(first.type).toBe('heartbeat');
    expect(silent.frames.filter((f) => f.type !== 'subscribed')).toEqual([]);

    // A transition after the restart notifies as usual.
    const mark = fresh.mark;
    await pf.call('surface.send_keystroke', { surface_id: surface, keystroke: '1', force: true });
    const finished = await fresh.next((f) => f.type === 'notification' && f.surface_id === surface, mark).catch(async (error) => {
      const { text } = await pf.call('surface.read', { surface_id: surface, fenced: false });
      throw new Error(`${error.message}\nscreen:\n${text}\nserve.log:\n${pf.serveLog()}`);
    });
    expect(finished).toMatchObject({ kind: 'finished', title: 'lead' });
    expect(await silent.next((f) => f.type === 'notification' && f.surface_id === surface)).toMatchObject({ kind: 'finished' });
    const done = (await pf.call('fleet.list', {})).agents.find((a) => a.surface_id === surface)!;
    expect(done.state_seq).toBe(before.state_seq + 2); // attention → busy → idle

    // The subscription kept through the restart heard each notice once: the question before, the finish after.
    await until(() => lasting.frames.some((f) => f.type === 'notification' && f.kind === 'finished'), 'the lasting subscription hears the finish');
    expect(lasting.connections).toBe(2);
    expect(lasting.frames.filter((f) => f.type === 'notification' && f.surface_id === surface).map((f) => f.kind)).toEqual(['needs_input', 'finished']);
    expect((await pf.call('system.counters', {})).counters.notifications).toBe(1);
  } finally {
    lasting.stop();
  }
}, scaled(60_000));

test('a second serve on the same home refuses to start', () => {
  const second = serveCli(pf.env, 'run');
  expect(second.code).toBe(1);
  expect(second.stderr).toMatch(/another serve \(pid \d+\) owns/);
});

test('a session whose pane the saved model lost is adopted into the workspace its manifest names, under its name and surface id', async () => {
  const pane = (name: string) => ({ name, cwd: pf.dir, command: 'sleep 600', focus: false, env: {} });
  const up = await pf.call('workspace.up', { name: 'adoptive', layout: 'even_h', panes: [pane('keeper'), pane('orphan')] });
  const [keeper, orphan] = up.surfaces;
  const workspacesBefore = (await pf.call('workspace.list', {})).workspaces.length;

  killIfAlive(pf.servePid);
  await waitUntilGone(pf.servePid);
  // The model, still a valid one, without the orphan's pane: as if serve died before saving it.
  const path = join(pf.env.PANEFLOW_HOME!, 'serve/workspaces.json');
  const saved = JSON.parse(readFileSync(path, 'utf8'));
  saved.panes = saved.panes.filter((p: { surface_id: number }) => p.surface_id !== orphan.surface_id);
  Object.assign(saved.workspaces.find((w: { id: string }) => w.id === up.workspace.id), { layout: { surface_id: keeper.surface_id }, focus: keeper.surface_id });
  writeFileSync(path, JSON.stringify(saved));
  const restarted = serveCli(pf.env, 'start');
  expect(restarted.code).toBe(0);
  pf.servePid = JSON.parse(restarted.stdout).pid;

  expect(existsSync(`${path}.unreadable`)).toBe(false); // the model was read, not set aside
  const { surfaces } = await pf.call('surface.list', { scope: 'all' });
  expect(surfaces.find((s) => s.session === orphan.session)).toMatchObject({ surface_id: orphan.surface_id, name: 'orphan', workspace_id: up.workspace.id });
  const { workspaces } = await pf.call('workspace.list', {});
  expect(workspaces).toHaveLength(workspacesBefore);
  expect(workspaces.find((w) => w.id === up.workspace.id)).toMatchObject({ surfaces: [keeper.surface_id, orphan.surface_id] });
  // Adopted for good: the model on disk holds it again.
  await until(() => JSON.parse(readFileSync(path, 'utf8')).panes.some((p: { session: string }) => p.session === orphan.session), 'the adopted pane saved');
});
