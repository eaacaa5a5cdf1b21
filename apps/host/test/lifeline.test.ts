import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hostCli, processesOfHome, running, startHost, waitUntil, type TestHost } from './helpers';
import { scaled } from '@paneflow/testing';

// A host that is stopping, stopped by a signal, or hung: what its clients and `stop` do then.
let host: TestHost | null = null;
afterEach(async () => {
  await host?.cleanup();
  host = null;
});

const hostLog = (h: TestHost) => readFileSync(join(h.env.PANEFLOW_HOME!, 'host/host.log'), 'utf8');

test('once the host has begun to stop, session.ensure and session.create are refused, and nothing new starts', async () => {
  host = await startHost();
  const client = await host.connect();
  // Deaf to TERM and to the hangup: the host's stop waits its budget out before it kills it.
  const { session, pid } = await client.create({ argv: ['sh', '-c', "trap '' TERM HUP; echo ready; while :; do sleep 1; done"] });
  await client.screenMatching(session, /ready/);
  process.kill(host.pid, 'SIGTERM');
  await waitUntil(() => hostLog(host!).includes('SIGTERM: stopping every session'), 'the host begins to stop');
  const fresh = randomUUID();
  const spec = { workspace_id: randomUUID(), surface_id: 2, cwd: tmpdir(), env: {}, cols: 80, rows: 24, argv: ['sleep', '600'] };
  await expect(client.request('session.ensure', { ...spec, session: fresh })).rejects.toMatchObject({ code: -32010, data: { reason: 'host_shutting_down' } });
  await expect(client.request('session.create', spec)).rejects.toMatchObject({ code: -32010, data: { reason: 'host_shutting_down' } });
  await waitUntil(() => !running(host!.pid), 'the host exits');
  expect(running(pid)).toBe(false);
  expect(existsSync(join(host.env.PANEFLOW_HOME!, 'host/sessions', `${fresh}.json`))).toBe(false);
}, scaled(60_000));

test('stop --force stops a host that does not answer on its socket (stopped by SIGSTOP), and its sessions', async () => {
  host = await startHost();
  const client = await host.connect();
  const { session, pid } = await client.create({ argv: ['sh', '-c', 'echo ready; sleep 600'] });
  await client.screenMatching(session, /ready/);
  client.close();
  process.kill(host.pid, 'SIGSTOP');
  const refused = hostCli(host.env, 'stop');
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain(`the host (pid ${host.pid}) does not answer on its socket; --force stops it`);
  const stopped = hostCli(host.env, 'stop', '--force');
  expect(stopped.stderr).toBe('');
  expect(JSON.parse(stopped.stdout)).toEqual({ stopped: true, pid: host.pid, signalled: true });
  expect(stopped.code).toBe(0);
  expect([running(host.pid), running(pid)]).toEqual([false, false]);
}, scaled(60_000));

test('start beside a host that runs but does not answer waits for it, and never starts a second', async () => {
  host = await startHost();
  process.kill(host.pid, 'SIGSTOP');
  try {
    const started = hostCli(host.env, 'start');
    expect(started.code).toBe(1);
    expect(started.stderr).toContain(`paneflow-host (pid ${host.pid}) runs but does not answer on ${host.endpoints.hostSocket}`);
    expect(processesOfHome(host.env.PANEFLOW_HOME!)).toEqual([host.pid]);
    expect(hostLog(host)).not.toMatch(/another host/);
  } finally {
    process.kill(host.pid, 'SIGCONT');
  }
}, scaled(60_000));
