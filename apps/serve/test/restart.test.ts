import { killIfAlive, serveCli, startInstance, type Frame, type Instance } from './helpers';

let pf: Instance;
beforeAll(async () => {
  pf = await startInstance({ scripting: true, orchestration: true });
});
afterAll(() => pf.cleanup());

async function waitUntilGone(pid: number) {
  for (let i = 0; i < 500; i++) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('kill -9 serve mid-turn: every row comes back with the same status and state_seq, and no notice is sent twice', async () => {
  const events = await pf.subscribe();
  const up = await pf.call('workspace.up', { name: 'restart', layout: 'even_h', panes: [{ name: 'lead', cwd: pf.dir, command: 'claude --block', focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await events.next((f) => f.type === 'status_changed' && f.surface_id === surface && f.reason === 'declared');
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

  // Nothing is replayed: the first frame the new serve sends a subscriber is a heartbeat, and one
  // that asked for no heartbeats has heard nothing at all by then.
  const silent = await pf.subscribe({ heartbeat: false });
  const fresh = await pf.subscribe();
  const first = await fresh.next((f: Frame) => f.type !== 'subscribed', 0, 8000);
  expect(first.type).toBe('heartbeat');
  expect(silent.frames.filter((f) => f.type !== 'subscribed')).toEqual([]);

  // A transition after the restart notifies as usual.
  const mark = fresh.mark;
  await pf.call('surface.send_keystroke', { surface_id: surface, keystroke: '1' });
  const finished = await fresh.next((f) => f.type === 'notification' && f.surface_id === surface, mark).catch(async (error) => {
    const { text } = await pf.call('surface.read', { surface_id: surface, fenced: false });
    throw new Error(`${error.message}\nscreen:\n${text}\nserve.log:\n${pf.serveLog()}`);
  });
  expect(finished).toMatchObject({ kind: 'finished', title: 'lead' });
  expect(await silent.next((f) => f.type === 'notification' && f.surface_id === surface)).toMatchObject({ kind: 'finished' });
  const done = (await pf.call('fleet.list', {})).agents.find((a) => a.surface_id === surface)!;
  expect(done.state_seq).toBe(before.state_seq + 2); // attention → busy → idle
}, 60_000);

test('a second serve on the same home refuses to start', () => {
  const second = serveCli(pf.env, 'run');
  expect(second.code).toBe(1);
  expect(second.stderr).toMatch(/another serve \(pid \d+\) owns/);
});
