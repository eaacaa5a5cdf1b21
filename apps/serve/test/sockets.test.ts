import { isListening } from '@paneflow/rpc';
import { until } from '@paneflow/testing';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { serveCli, startInstance, type Instance } from './helpers';

// A socket file is all a client has of a daemon: one removed (a cleaner of /tmp, a mistaken rm)
// must not strand the instance. Serve and the host make theirs again; a restarted serve finds the
// host it already had.
let pf: Instance;
beforeEach(async () => {
  pf = await startInstance();
});
afterEach(() => pf.cleanup());

/** Whether serve answers on `path` now; a probe for `until`, so a refusal is a no. */
const answers = (path: string) => async () => (await isListening(path)) && pf.call('system.ping', {}).then((r) => r.pong, () => false);

test('paneflow.sock removed, then the whole runtime dir: serve makes it again, and start adopts the serve that runs', async () => {
  rmSync(pf.endpoints.publicSocket);
  await until(answers(pf.endpoints.publicSocket), 'serve answers on a new paneflow.sock');
  // As a person's rm -rf does it: the daemons wait for the directory to be quiet before they make
  // their sockets again, so it is not refilled under the rm ("Directory not empty").
  rmSync(pf.endpoints.runtimeDir, { recursive: true });
  await until(answers(pf.endpoints.publicSocket), 'serve answers in a new runtime dir');
  const started = serveCli(pf.env, 'start');
  expect(started.code).toBe(0);
  expect(JSON.parse(started.stdout)).toMatchObject({ pid: pf.servePid, adopted: true });
  expect(pf.serveLog()).toMatch(/paneflow\.sock was removed or replaced; listening on it again/);
});

test('host.sock removed: the host makes it again, and a restarted serve follows that same host', async () => {
  const { surface_id } = await pf.call('workspace.create', { cwd: pf.dir });
  const hostPid = pf.hostPid();
  rmSync(pf.endpoints.hostSocket);
  await until(() => pf.hostSessions().then((sessions) => sessions.length === 1, () => false), 'the host answers on a new host.sock');
  expect(serveCli(pf.env, 'stop', '--drain-ms', '100').code).toBe(0);
  const started = serveCli(pf.env, 'start');
  expect(started.code).toBe(0);
  pf.servePid = JSON.parse(started.stdout).pid;
  expect(pf.hostPid()).toBe(hostPid);
  expect((await pf.call('surface.list', { scope: 'all' })).surfaces.map((s) => s.surface_id)).toEqual([surface_id]);
  expect(readFileSync(join(pf.env.PANEFLOW_HOME!, 'host/host.log'), 'utf8')).not.toMatch(/another host/);
});

test('system.counters counts every request serve is asked', async () => {
  const before = (await pf.call('system.counters', {})).counters.requests;
  for (let i = 0; i < 3; i++) await pf.call('system.ping', {});
  // The three pings and this read itself.
  expect((await pf.call('system.counters', {})).counters.requests).toBe(before + 4);
});
