// A pane whose host died, in `paneflow attach` before anyone restarts it (issue 36, item 1): it
// shows what it last showed (the host's saved screen) under the banner that says it was lost and
// what Enter does, instead of an empty "attaching…"; Enter brings it back below that history.
import { CLI, makeHome, scaled, Tmux, until, type Home } from '@paneflow/testing';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(scaled(120_000));

let home: Home;
let tmux: Tmux;
beforeAll(() => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  expect(home.run(['start']).code).toBe(0);
  tmux = new Tmux();
});
afterAll(() => {
  tmux?.kill();
  home?.cleanup();
});

const pidOf = (verb: 'host' | 'serve') => home.run([verb, 'status']).json<{ pid: number }>().pid;

test('a lost pane shows its saved screen under the lost banner, and Enter starts it again', async () => {
  const up = await home.rpc('workspace.up', { name: 'crash', layout: 'even_h', panes: [{ name: 'worker', cwd: home.dir, command: 'claude --work-ms 100', focus: true, env: {} }] });
  const { session, surface_id } = up.surfaces[0];
  await until(async () => (await home.rpc('surface.status', { surface_id })).state === 'idle' || null, 'the agent idle');
  expect(home.run(['send', 'worker', 'what it showed last', '--submit', '--scope', 'all']).code).toBe(0);
  const saved = join(home.env.PANEFLOW_HOME!, 'host/sessions', `${session}.screen`);
  await until(() => existsSync(saved) && readFileSync(saved, 'utf8').includes('done: what it showed last'), 'the screen saved');
  process.kill(pidOf('host'), 'SIGKILL');
  await until(async () => (await home.rpc('surface.status', { surface_id })).lifecycle === 'lost' || null, 'the pane lost');
  expect(home.run(['start']).code).toBe(0);

  const window = tmux.window([process.execPath, CLI, 'attach', 'crash'], { env: home.env, dir: home.dir, cols: 100, rows: 24 });
  const shown = await until(() => {
    const screen = window.capture().join('\n');
    return screen.includes('done: what it showed last') && /lost — Enter (resumes|starts anew)/.test(screen) ? screen : null;
  }, 'the saved screen under the banner').catch((error: Error) => {
    throw new Error(`${error.message}; the screen:\n${window.capture().join('\n')}`, { cause: error });
  });
  expect(shown).not.toContain('attaching…');

  window.keys('Enter');
  await until(() => window.capture().join('\n').includes('above: what this pane showed before the host stopped') || null, 'the pane started again, its history above it');
  expect(window.capture().join('\n')).not.toMatch(/lost — Enter/);
});
