import { makeHome, refuseWrites, scaled, until, type Home } from '@paneflow/testing';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// A home the instance cannot trust or cannot write: files of the wrong shape, a directory that
// refuses writes. The instance starts, answers and stops all the same, and says what is wrong.
let home: Home;
let undo: (() => void) | null = null;
beforeEach(() => {
  home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1' });
});
afterEach(() => {
  undo?.();
  undo = null;
  home.cleanup();
});

const state = (...parts: string[]) => join(home.env.PANEFLOW_HOME!, ...parts);
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z');

function startInstance(): number[] {
  const started = home.run(['start']);
  expect(started).toMatchObject({ code: 0, stderr: '' });
  return [started.json<{ serve: { pid: number } }>().serve.pid, JSON.parse(readFileSync(state('host/instance.json'), 'utf8')).pid];
}

async function stopInstance(pids: number[]) {
  const stopped = home.run(['stop', '--force']);
  expect(stopped).toMatchObject({ code: 0, stderr: '' });
  await until(() => !pids.some(alive), 'host and serve gone');
}

test('files of the wrong shape in a stopped home: start, ps and stop --force work; each is moved aside and named once in the log', async () => {
  expect(home.run(['new', '--name', 'work', '--cwd', home.dir]).code).toBe(0);
  const [{ session }] = (await home.rpc('session.list', {})).sessions;
  await stopInstance([]);

  const manifest = readFileSync(state('host/sessions', `${session}.json`), 'utf8');
  const { records: _records, ...withoutRecords } = JSON.parse(manifest);
  const manifests: Record<string, string> = {
    '11111111-1111-4111-8111-111111111111.json': '{}',
    '22222222-2222-4222-8222-222222222222.json': '[]',
    '33333333-3333-4333-8333-333333333333.json': JSON.stringify({ ...withoutRecords, session: '33333333-3333-4333-8333-333333333333' }),
    '44444444-4444-4444-8444-444444444444.json': manifest.slice(0, 200),
  };
  for (const [name, text] of Object.entries(manifests)) writeFileSync(state('host/sessions', name), text);
  writeFileSync(state('serve/workspaces.json'), '{}');
  writeFileSync(state('host/instance.json'), '[]');

  const pids = startInstance();
  const ps = home.run(['ps']);
  expect(ps).toMatchObject({ code: 0, stderr: '' });
  // The pane comes back from the host's manifest, in the workspace it names.
  const { surfaces } = await home.rpc('surface.list', { scope: 'all' });
  expect(surfaces.map((s) => s.session)).toEqual([session]);
  await stopInstance(pids);
  for (const [name, text] of Object.entries(manifests)) expect(readFileSync(state('host/sessions', `${name}.unreadable`), 'utf8')).toBe(text);
  expect(readFileSync(state('serve/workspaces.json.unreadable'), 'utf8')).toBe('{}');

  await stopInstance(startInstance());
  const hostLog = readFileSync(state('host/host.log'), 'utf8');
  for (const name of Object.keys(manifests)) expect(occurrences(hostLog, `unreadable manifest ${name}:`)).toBe(1);
  expect(occurrences(readFileSync(state('serve/serve.log'), 'utf8'), 'workspaces.json is not a saved model:')).toBe(1);
}, scaled(60_000));

test('ps says on stderr that the home cannot be written while it cannot, and no more once it can', async () => {
  expect(home.run(['new', '--cwd', home.dir]).code).toBe(0);
  undo = refuseWrites(state('serve'));
  const refused = home.run(['split', 'h']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/workspaces\.json cannot be written/);

  const ps = home.run(['ps']);
  expect(ps.code).toBe(0);
  expect(ps.stdout).not.toMatch(/cannot be written/);
  expect(ps.stderr).toMatch(/^paneflow: degraded: the home cannot be written: \S*workspaces\.json not saved since /);

  undo();
  undo = null;
  await until(() => home.run(['ps']).stderr === '', 'ps quiet once the home can be written');
}, scaled(60_000));

test('the host dies while the home cannot be written: its agent shows lost at once, health names the missing host, and a pane it never saved stays, lost, and restarts', async () => {
  const pids = startInstance();
  const { surfaces } = await home.rpc('workspace.up', { name: 'api', layout: 'even_h', panes: [{ name: 'lead', cwd: home.dir, command: 'claude --work-ms 100', focus: false, env: {} }] });
  const lead = surfaces[0].surface_id;
  const status = () => home.run(['status', String(lead), '--json']).json<{ lifecycle: string; pid: number | null; reason: string }>();
  await until(() => status().reason === 'declared', 'the agent declares');

  // Nothing in the home can be made or replaced: manifests, locks, the model.
  const undos = ['host/sessions', 'host', 'serve'].map((dir) => refuseWrites(state(dir)));
  undo = () => undos.reverse().forEach((restore) => restore());
  const splitRun = home.run(['split', 'h', '--target', String(lead)]);
  expect(splitRun.stderr).toMatch(/cannot be written|not saved/);
  const splitRow = (await home.rpc('session.list', {})).sessions.find((s) => s.surface_id !== lead);
  expect(splitRow?.session).toMatch(/^[0-9a-f-]{36}$/);
  const { session: splitSession, surface_id: split } = splitRow!;

  process.kill(pids[1], 'SIGKILL');
  await until(() => status().lifecycle === 'lost' || null, 'the agent shown lost while no host can start');
  expect(status().pid).toBeNull();
  const { health } = await home.rpc('serve.status', {});
  expect(health.problems.join('\n')).toMatch(/^no host since \S+: its sessions are shown lost and no pane can start/m);

  undo();
  undo = null;
  await until(() => home.run(['ps']).stderr === '' || null, 'a host again once the home can be written');
  const serveLog = readFileSync(state('serve/serve.log'), 'utf8');
  expect(serveLog).toContain(`the host is gone: 2 sessions shown lost until a host starts again`);
  // The new host never heard of the split's session; serve keeps its pane, lost like the agent's.
  expect(serveLog).toContain(`surface ${split} is shown lost: the host has no session ${splitSession} (its host died before its manifest was written)`);
  expect(serveLog).not.toContain(`surface ${split} is closed`);
  expect(status().lifecycle).toBe('lost');
  const lostRows = home.run(['sessions', '--lost', '--json']).json<{ sessions: Array<{ session: string; lifecycle: string; lost_reason: string | null }> }>().sessions;
  expect(lostRows.find((row) => row.session === splitSession)).toMatchObject({ lifecycle: 'lost', lost_reason: 'host_crash' });
  expect(home.run(['ls', '--scope', 'all']).json<{ surfaces: Array<{ surface_id: number }> }>().surfaces.map((s) => s.surface_id)).toContain(split);

  // Nothing of its screen was saved either: a read says so, not that the session does not exist.
  const read = home.run(['read', String(split), '--scope', 'all']);
  expect(read.code).not.toBe(0);
  expect(read.stderr).toBe(`paneflow: surface ${split} has no saved screen: its host died before it could write to the home; a restart starts it anew\n`);

  // Restarted, the host makes it anew from the launch serve kept, and this time saves it.
  const restarted = home.run(['restart', String(split), '--json', '--scope', 'all']);
  expect(restarted).toMatchObject({ code: 0, stderr: '' });
  expect(restarted.json<{ session: string; mode: string; restart: { outcome: string } }>()).toMatchObject({ session: splitSession, mode: 'launch', restart: { outcome: 'launched' } });
  const manifest = await until(() => {
    const file = state('host/sessions', `${splitSession}.json`);
    const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { lifecycle: string; surface_id: number; cwd: string; process: { pid: number } | null }) : null;
    return saved?.lifecycle === 'live' && saved;
  }, 'the re-made session saved, live');
  expect(manifest).toMatchObject({ lifecycle: 'live', surface_id: split, cwd: splitRow!.cwd });
  expect(alive(manifest.process!.pid)).toBe(true);
  expect(home.run(['sessions', '--json']).json<{ sessions: Array<{ session: string; lifecycle: string }> }>().sessions.find((row) => row.session === splitSession)?.lifecycle).toBe('live');
  await stopInstance(pids.slice(0, 1));
}, scaled(90_000));
