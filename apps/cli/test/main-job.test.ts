import { makeHome, type Home } from '@paneflow/testing';

/** `paneflow` with no verb, as `npm start` runs it. */
describe('the main job', () => {
  let home: Home;
  beforeEach(() => (home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1' })));
  afterEach(() => home.cleanup());

  async function headless(env: Record<string, string>) {
    for (const [key, value] of Object.entries(env)) home.env[key] = value;
    if (!env.DISPLAY) delete home.env.DISPLAY;
    delete home.env.WAYLAND_DISPLAY;
    const run = home.start([]);
    try {
      // The live agent table, with the demo agent in it.
      await run.line((line) => /demo-agent/.test(line), 30_000);
      return run.stderr;
    } finally {
      run.child.kill('SIGINT');
      await run.exited;
    }
  }

  test('with no display it says so and runs headless: the instance, the demo workspace, the live agent table', async () => {
    const stderr = await headless({});
    expect(stderr).toContain('paneflow: no display (DISPLAY and WAYLAND_DISPLAY are unset); running headless');
    expect(home.run(['ls', '--scope', 'all']).json<{ surfaces: Array<{ name: string }> }>().surfaces.map((s) => s.name)).toEqual(expect.arrayContaining(['demo-agent']));
  });

  test('with a display but no Electron runtime it says that instead, and still runs headless', async () => {
    const stderr = await headless({ DISPLAY: ':99' });
    expect(stderr).toMatch(/paneflow: (no Electron runtime is installed|the desktop app is not built \(npx nx build desktop\)); running headless/);
  });
});
