import { writeFileSync } from 'node:fs';
import { killIfAlive, startInstance, type Instance } from './helpers';
import { scaled } from '@paneflow/testing';

describe('with no capability', () => {
  let pf: Instance;
  let surface: number;
  beforeAll(async () => {
    pf = await startInstance({ config: { ai_unrestricted: false, bogus_key: 1, submit_paste_delay_ms: 'soon' } });
    surface = (await pf.call('workspace.create', { cwd: pf.dir })).surface_id;
  });
  afterAll(() => pf.cleanup());

  test('reads are always allowed', async () => {
    expect((await pf.call('surface.read', { surface_id: surface })).text).toMatch(/^<untrusted_terminal_output/);
    expect(await pf.call('surface.search', { surface_id: surface, pattern: 'x' })).toHaveProperty('matches');
  });

  test('send_text is -32601 with the variable to set', async () => {
    await expect(pf.call('surface.send_text', { surface_id: surface, text: 'ls' })).rejects.toMatchObject({
      code: -32601,
      message: 'surface.send_text disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1',
    });
  });

  test('send_keystroke is -32601', async () => {
    await expect(pf.call('surface.send_keystroke', { surface_id: surface, keystroke: 'up' })).rejects.toMatchObject({ code: -32601 });
  });

  test('workspace.up and a split that runs something are -32601; a plain split is allowed', async () => {
    await expect(pf.call('workspace.up', { name: 'x', layout: 'even_h', panes: [{ cwd: pf.dir, focus: false, env: {} }] })).rejects.toMatchObject({
      code: -32601,
      message: 'workspace.up disabled: relaunch with PANEFLOW_IPC_ORCHESTRATION=1',
    });
    await expect(pf.call('surface.split', { direction: 'h', command: 'top' })).rejects.toMatchObject({ code: -32601 });
    expect(await pf.call('surface.split', { direction: 'h' })).toMatchObject({ surface_id: expect.any(Number) });
  });

  test('capabilities say so, and leave the closed methods out', async () => {
    const capabilities = await pf.call('system.capabilities', {});
    expect(capabilities).toMatchObject({ scripting: false, orchestration: false, ai_unrestricted: false });
    expect(capabilities.methods).not.toContain('surface.send_text');
  });

  test('a bad config does not stop serve; it says what it ignored', () => {
    expect(pf.serveLog()).toMatch(/ignored bogus_key: unknown key/);
    expect(pf.serveLog()).toMatch(/ignored submit_paste_delay_ms: expected a number/);
  });

  test('ai_unrestricted, set in the config while serve runs, opens send_text (and only it)', async () => {
    writeFileSync(pf.configFile, JSON.stringify({ ai_unrestricted: true }));
    const deadline = Date.now() + scaled(5000);
    for (;;) {
      try {
        expect(await pf.call('surface.send_text', { surface_id: surface, text: 'true' })).toMatchObject({ sent: true });
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await expect(pf.call('surface.send_keystroke', { surface_id: surface, keystroke: 'up' })).rejects.toMatchObject({ code: -32601 });
    writeFileSync(pf.configFile, JSON.stringify({ ai_unrestricted: false }));
  });
});

describe('with scripting but not orchestration', () => {
  let pf: Instance;
  beforeAll(async () => {
    pf = await startInstance({ scripting: true });
  });
  afterAll(() => pf.cleanup());

  test('a write outside the caller workspace, or with scope all, is -32001', async () => {
    const a = await pf.call('workspace.create', { cwd: pf.dir });
    const b = await pf.call('workspace.create', { cwd: pf.dir });
    expect(await pf.call('surface.send_text', { surface_id: b.surface_id, text: 'true' })).toMatchObject({ sent: true });
    await expect(pf.call('surface.send_text', { surface_id: a.surface_id, text: 'true' })).rejects.toMatchObject({ code: -32001 });
    await expect(pf.call('surface.send_text', { surface_id: a.surface_id, text: 'true', workspace_id: b.id })).rejects.toMatchObject({ code: -32001 });
    expect(await pf.call('surface.send_text', { surface_id: a.surface_id, text: 'true', workspace_id: a.id })).toMatchObject({ sent: true });
    await expect(pf.call('surface.send_text', { surface_id: b.surface_id, text: 'true', scope: 'all' })).rejects.toMatchObject({ code: -32001 });
    await expect(pf.call('surface.send_keystroke', { surface_id: a.surface_id, keystroke: 'up' })).rejects.toMatchObject({ code: -32001 });
  });

  test('scripting also opens workspace.up', async () => {
    expect(await pf.call('workspace.up', { name: 'x', layout: 'tiled', panes: [{ cwd: pf.dir, focus: false, env: {} }] })).toHaveProperty('surfaces');
  });

  test('with the host gone, what needs it is -32010 and serve goes on', async () => {
    const { surface_id } = await pf.call('workspace.create', { cwd: pf.dir });
    killIfAlive(pf.hostPid());
    const deadline = Date.now() + scaled(5000);
    let error: unknown;
    while (Date.now() < deadline) {
      // Typing needs the live session (a read of a lost pane answers from its saved screen).
      error = await pf.call('surface.send_text', { surface_id, text: 'x' }).then(() => null, (e) => e);
      if (error) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect([-32010, -32020]).toContain((error as { code: number }).code);
    expect(await pf.call('system.ping', {})).toEqual({ pong: true });
  });
});
