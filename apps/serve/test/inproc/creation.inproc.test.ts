import { encode } from '@paneflow/osc7501';
import { tmpdir } from 'node:os';
import { startInProcess, type InProcess } from './harness';

// A pane serve creates: the host's frames for its session may come before serve has made its view
// (between the host's answer to session.inspect and serve taking it); they are held, then applied.

let serve: InProcess;
afterEach(async () => {
  await serve?.stop();
});

test("a new pane's frames that come while serve makes its view are applied to it, not dropped", async () => {
  serve = await startInProcess();
  serve.host.afterInspect = (session) => {
    serve.host.observe(session, 'claude-code');
    serve.host.print(session, encode({ state: 'working' }));
  };
  const { surface_id } = await serve.call('workspace.create', { cwd: tmpdir() });
  expect(await serve.call('surface.status', { surface_id })).toMatchObject({ runtime_id: 'claude-code', state: 'thinking', reason: 'declared' });
});
