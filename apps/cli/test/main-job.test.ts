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
    expect(stderr).not.toContain('paneflow startup:');
    expect(home.run(['ls', '--scope', 'all']).json<{ surfaces: Array<{ name: string }> }>().surfaces.map((s) => s.name)).toEqual(expect.arrayContaining(['demo-agent']));
  });

  test('PANEFLOW_STARTUP_TRACE=1 prints each start-up phase with its time, in order', async () => {
    const stderr = await headless({ PANEFLOW_STARTUP_TRACE: '1' });
    const phases = [...stderr.matchAll(/^paneflow startup: (.+) at (\d+\.\d) ms \(\+(\d+\.\d) ms\)$/gm)].map((m) => [m[1], Number(m[2])] as const);
    expect(phases.map(([phase]) => phase)).toEqual(['desktop or headless decided', 'instance ready', 'demo workspace ready']);
    for (let i = 1; i < phases.length; i++) expect(phases[i][1]).toBeGreaterThanOrEqual(phases[i - 1][1]);
  });

  test('with a display but no Electron runtime it says that instead, and still runs headless', async () => {
    const stderr = await headless({ DISPLAY: ':99' });
    expect(stderr).toMatch(/paneflow: (no Electron runtime is installed|the desktop app is not built \(npx nx build desktop\)); running headless/);
  });
});
