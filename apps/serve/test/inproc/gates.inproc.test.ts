import { encode } from '@paneflow/osc7501';
import { startInProcess, type InProcess } from './harness';

// The write gates (REFERENCE.md §2.4) as serve's dispatch applies them, in process: each refusal's
// exact code, message and reason, and that nothing reached the host. The process tests
// (gates.test.ts) keep what the gates are across real processes: the environment serve starts with.

let serve: InProcess;

afterEach(async () => {
  await serve?.stop();
});

const SCRIPTING_CLOSED = { code: -32601, data: { reason: 'gate_closed', requires: 'PANEFLOW_IPC_SCRIPTING' } };

test('without scripting, send_text, send_keystroke and answer are refused as disabled and nothing is written', async () => {
  serve = await startInProcess({ sessions: [{ agent: 'claude-code' }] });
  const [session] = serve.sessions;
  const surface = await serve.surfaceOf(session);
  serve.host.print(session, encode({ state: 'blocked', kind: 'permission', msg: 'approve' }));

  await expect(serve.call('surface.send_text', { surface_id: surface, text: 'ls', submit: true })).rejects.toMatchObject({ ...SCRIPTING_CLOSED, message: 'surface.send_text disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1' });
  await expect(serve.call('surface.send_keystroke', { surface_id: surface, keystroke: 'up' })).rejects.toMatchObject({ ...SCRIPTING_CLOSED, message: 'surface.send_keystroke disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1' });
  const { state_seq } = (await serve.call('fleet.list', {})).agents[0];
  await expect(serve.call('surface.answer', { surface_id: surface, answer: 'yes', state_seq })).rejects.toMatchObject({ ...SCRIPTING_CLOSED, message: 'surface.answer disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1' });
  expect(serve.host.written).toEqual([]);
});

test('ai_unrestricted opens send_text to a shell, inline with its Enter, and never send_keystroke', async () => {
  serve = await startInProcess({ config: { ai_unrestricted: true }, sessions: [{}] });
  const [session] = serve.sessions;
  const surface = await serve.surfaceOf(session);
  expect(await serve.call('surface.send_text', { surface_id: surface, text: 'make test', submit: true })).toMatchObject({ sent: true, agent_target: false, paste: false, submit_mode: 'inline_cr' });
  await expect(serve.call('surface.send_keystroke', { surface_id: surface, keystroke: 'up' })).rejects.toMatchObject(SCRIPTING_CLOSED);
  expect(serve.host.written).toEqual([{ session, method: 'session.input', text: 'make test\r', paste: false }]);
});

test('without orchestration a write reaches only the caller’s workspace: another workspace’s pane and scope all are outside it', async () => {
  serve = await startInProcess({ scripting: true, sessions: [{}, {}] });
  const [own, other] = serve.sessions;
  const ownSurface = await serve.surfaceOf(own);
  const otherSurface = await serve.surfaceOf(other);
  const outside = { code: -32001, data: { reason: 'outside_scope' } };

  await expect(serve.call('surface.send_text', { surface_id: otherSurface, text: 'true' })).rejects.toMatchObject({
    ...outside,
    message: `surface ${otherSurface} is outside the caller's workspace; requires PANEFLOW_IPC_ORCHESTRATION=1`,
  });
  await expect(serve.call('surface.send_keystroke', { surface_id: otherSurface, keystroke: 'up' })).rejects.toMatchObject(outside);
  await expect(serve.call('surface.send_text', { surface_id: ownSurface, text: 'true', scope: 'all' })).rejects.toMatchObject({ ...outside, message: 'scope all requires PANEFLOW_IPC_ORCHESTRATION=1' });
  expect(serve.host.written).toEqual([]);

  // The caller that names the other workspace as its own speaks for it.
  const { surfaces } = await serve.call('surface.list', { scope: 'all' });
  const otherWorkspace = surfaces.find((s) => s.surface_id === otherSurface)!.workspace_id;
  await serve.call('surface.send_text', { surface_id: otherSurface, text: 'true', workspace_id: otherWorkspace });
  await serve.call('surface.send_text', { surface_id: ownSurface, text: 'true' });
  expect(serve.host.written.map((w) => w.session)).toEqual([other, own]);
});

test('with orchestration a write reaches any workspace’s pane', async () => {
  serve = await startInProcess({ scripting: true, orchestration: true, sessions: [{}, {}] });
  const [, other] = serve.sessions;
  await serve.call('surface.send_text', { surface_id: await serve.surfaceOf(other), text: 'true', scope: 'all' });
  expect(serve.host.written).toEqual([{ session: other, method: 'session.input', text: 'true', paste: false }]);
});
