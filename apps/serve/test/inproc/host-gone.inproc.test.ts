import { encode } from '@paneflow/osc7501';
import { CLOCK_START_MS } from './fake-clock';
import { startInProcess, type InProcess } from './harness';

// The host going away (apps/serve README "A host that dies") in process: its connection closes and
// no process holds the home's host lock (the temp home has none, as after a crash), so serve shows
// every live session lost at once. The process tests keep the real crash, the restart of a host
// and the sessions a new host marks lost (serve.test.ts, restart.test.ts).

let serve: InProcess;

afterEach(async () => {
  await serve?.stop();
});

test('the host going away shows every live session lost (host_crash) at once, names it in health, and a write is host_unavailable', async () => {
  serve = await startInProcess({ scripting: true, sessions: [{ agent: 'claude-code', name: 'agent' }, { name: 'shell' }] });
  const [agent, shell] = serve.sessions;
  const agentSurface = await serve.surfaceOf(agent);
  serve.host.print(agent, encode({ state: 'working' }));
  const events = await serve.subscribe();
  await serve.clock.advance(500);
  const goneAt = CLOCK_START_MS + 500;

  serve.host.die();
  const changed = await Promise.all([agent, shell].map((session) => events.next((f) => f.type === 'session_changed' && f.session === session)));
  for (const frame of changed) expect(frame).toMatchObject({ at_ms: goneAt, row: { lifecycle: 'lost', live: false, health: 'stopped', lost_reason: 'host_crash' } });
  // The agent's turn ends with its process: no longer busy, and still its agent's pane ("lost — resume").
  expect(await events.next((f) => f.type === 'status_changed' && f.surface_id === agentSurface)).toMatchObject({
    at_ms: goneAt,
    state: 'idle',
    status: 'idle',
    state_seq: 2,
    surface_status: { lifecycle: 'lost', runtime_id: 'claude-code', pid: null },
  });
  expect(serve.logged).toContain('the host is gone: 2 sessions shown lost until a host starts again');

  const { sessions } = await serve.call('session.list', {});
  expect(sessions.map((s) => [s.session, s.lifecycle, s.lost_reason])).toEqual([
    [agent, 'lost', 'host_crash'],
    [shell, 'lost', 'host_crash'],
  ]);
  expect((await serve.call('serve.status', {})).health).toEqual({
    state: 'degraded',
    problems: [`no host since ${new Date(goneAt).toISOString()}: its sessions are shown lost and no pane can start (serve.log says why)`],
  });
  await expect(serve.call('surface.send_text', { surface_id: agentSurface, text: 'hello' })).rejects.toMatchObject({ code: -32010, data: { reason: 'host_unavailable' } });
  expect(serve.host.written).toEqual([]);
});
