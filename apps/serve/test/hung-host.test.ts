import { execFileSync } from 'node:child_process';
import { connectHost } from '@paneflow/instance';
import { RpcError, type HostFrame } from '@paneflow/protocol';
import { serveCli, startInstance, waitUntilGone, type Instance } from './helpers';
import { scaled, until } from '@paneflow/testing';

// Serve gives up on a silent host after 2 s here, not 10 s (PANEFLOW_SERVE_HOST_TIMEOUT_MS, read at start).
const HOST_TIMEOUT_MS = 2000;

let pf: Instance;
beforeAll(async () => {
  process.env.PANEFLOW_SERVE_HOST_TIMEOUT_MS = String(HOST_TIMEOUT_MS);
  try {
    pf = await startInstance();
  } finally {
    delete process.env.PANEFLOW_SERVE_HOST_TIMEOUT_MS;
  }
});
afterAll(() => pf.cleanup());

/** The host's own frames (`agent.follow` on a connection of the test's), waited on as they come. */
async function followHost(instance: Instance) {
  const { connection } = await connectHost(instance.endpoints, 'hung-host-test');
  const frames: HostFrame[] = [];
  const waiters: Array<() => void> = [];
  connection.onFrame((frame) => {
    frames.push(frame as HostFrame);
    for (const waiter of waiters.splice(0)) waiter();
  });
  await connection.request('agent.follow', {});
  return {
    connection,
    frames,
    async sessions(): Promise<string[]> {
      return (await connection.request('session.list', {})).sessions.map((s) => s.session).sort();
    },
    until(test: () => boolean, what: string, timeoutMs = scaled(20_000)): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the host never showed ${what}; its frames: ${JSON.stringify(frames.slice(-6))}`)), timeoutMs);
        const check = () => {
          if (!test()) return void waiters.push(check);
          clearTimeout(timer);
          resolve();
        };
        check();
      });
    },
  };
}

test('a hung host: splits and workspace.create fail with -32010 host_timeout, leave nothing once it resumes, and a retry makes exactly one', async () => {
  const first = await pf.call('workspace.create', { cwd: pf.dir });
  const host = await followHost(pf);
  const events = await pf.subscribe();
  const sessionsBefore = await host.sessions();
  const surfaceIds = async () => (await pf.call('surface.list', { scope: 'all' })).surfaces.map((s) => s.surface_id);
  const workspaceIds = async () => (await pf.call('workspace.list', {})).workspaces.map((w) => w.id);
  const surfacesBefore = await surfaceIds();
  const workspacesBefore = await workspaceIds();
  const mark = events.mark;

  const hostPid = pf.hostPid();
  process.kill(hostPid, 'SIGSTOP');
  try {
    const failures = await Promise.all([
      pf.call('surface.split', { direction: 'h', surface_id: first.surface_id }).catch((error: unknown) => error),
      pf.call('workspace.create', { cwd: pf.dir }).catch((error: unknown) => error),
      pf.call('surface.read', { surface_id: first.surface_id }).catch((error: unknown) => error),
    ]);
    for (const failure of failures) {
      expect(failure).toBeInstanceOf(RpcError);
      expect(failure).toMatchObject({ code: -32010, data: { reason: 'host_timeout' } });
      expect((failure as RpcError).message).toMatch(`within ${HOST_TIMEOUT_MS} ms`);
    }
    expect(await surfaceIds()).toEqual(surfacesBefore);
    expect(await workspaceIds()).toEqual(workspacesBefore);
  } finally {
    process.kill(hostPid, 'SIGCONT');
  }

  // The host now carries out the two creates it was sent while stopped. Serve reported them as
  // failed, so it must remove both sessions: the sign it has is the host's own `removed` frames.
  const known = new Set(sessionsBefore);
  const ghosts = () => [...new Set(host.frames.flatMap((f) => ('session' in f && !known.has(f.session) ? [f.session] : [])))];
  await host.until(() => ghosts().length === 2 && ghosts().every((s) => host.frames.some((f) => f.type === 'removed' && f.session === s)), 'both late sessions removed');
  expect(await host.sessions()).toEqual(sessionsBefore);
  expect(await surfaceIds()).toEqual(surfacesBefore);
  expect(await workspaceIds()).toEqual(workspacesBefore);

  const split = await pf.call('surface.split', { direction: 'h', surface_id: first.surface_id });
  const second = await pf.call('workspace.create', { cwd: pf.dir });
  await events.next((f) => f.type === 'surface_created' && f.surface_id === second.surface_id, mark);
  // Every pane serve announced since the hang: the retries' two, never a late session's.
  expect(events.frames.slice(mark).filter((f) => f.type === 'surface_created').map((f) => f.surface_id)).toEqual([split.surface_id, second.surface_id]);
  expect(await surfaceIds()).toEqual([...surfacesBefore, split.surface_id, second.surface_id]);
  expect(await workspaceIds()).toEqual([...workspacesBefore, second.id]);
  const secondSession = (await pf.call('surface.list', { scope: 'all' })).surfaces.find((s) => s.surface_id === second.surface_id)!.session;
  expect(await host.sessions()).toEqual([...sessionsBefore, split.session, secondSession].sort());
  host.connection.destroy();
}, scaled(90_000));

test('serve started while its host hangs opens its socket, says the host is missing, and follows the host once it resumes', async () => {
  const own = await startInstance();
  try {
    const { surface_id } = await own.call('workspace.create', { cwd: own.dir });
    const session = (await own.call('surface.list', { scope: 'all' })).surfaces.find((s) => s.surface_id === surface_id)!.session;
    process.kill(own.servePid, 'SIGKILL');
    await waitUntilGone(own.servePid);
    const hostPid = own.hostPid();
    process.kill(hostPid, 'SIGSTOP');
    try {
      const started = serveCli(own.env, 'start');
      expect({ code: started.code, stderr: started.stderr }).toEqual({ code: 0, stderr: '' });
      own.servePid = JSON.parse(started.stdout).pid;
      const { health } = await own.call('serve.status', {});
      expect(health.state).toBe('degraded');
      expect(health.problems.join('\n')).toMatch(/^no host since /m);
      // The saved model answers meanwhile; nothing is lost or closed.
      expect((await own.call('surface.list', { scope: 'all' })).surfaces.map((s) => s.surface_id)).toContain(surface_id);
    } finally {
      process.kill(hostPid, 'SIGCONT');
    }
    await until(async () => ((await own.call('serve.status', {})).health.state === 'ok' ? true : null), 'serve following the resumed host', scaled(30_000));
    const pane = (await own.call('surface.list', { scope: 'all' })).surfaces.find((s) => s.surface_id === surface_id)!;
    expect(pane.session).toBe(session);
    expect((await own.call('session.list', {})).sessions.find((row) => row.session === session)?.lifecycle).toBe('live');
  } finally {
    await own.cleanup();
  }
}, scaled(90_000));

/** Bytes waiting unread on the host's sockets (`ss`): a request serve sent that the stopped host has not read. */
function unreadByHost(hostPid: number): number {
  const lines = execFileSync('ss', ['-xpn'], { encoding: 'utf8' }).split('\n');
  return lines.filter((line) => line.includes(`pid=${hostPid},`)).reduce((sum, line) => sum + Number(line.trim().split(/\s+/)[2] ?? 0), 0);
}

test("a host that dies under a request: the client is told the host is unavailable, without the host socket's path", async () => {
  const own = await startInstance();
  try {
    const { surface_id } = await own.call('workspace.create', { cwd: own.dir });
    const hostPid = own.hostPid();
    process.kill(hostPid, 'SIGSTOP');
    const reading = own.call('surface.read', { surface_id }).catch((error: unknown) => error);
    await until(() => unreadByHost(hostPid) > 0 || null, 'the read sent to the stopped host');
    process.kill(hostPid, 'SIGKILL');
    const failure = await reading;
    expect(failure).toMatchObject({ code: -32010, data: { reason: 'host_unavailable' } });
    expect((failure as RpcError).message).not.toContain(own.endpoints.hostSocket);
    expect((failure as RpcError).message).not.toMatch(/host\.sock/);
    expect(own.serveLog()).toMatch(/host request session\.read failed: /);
  } finally {
    await own.cleanup();
  }
}, scaled(60_000));
