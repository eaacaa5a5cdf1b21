import { connectHost } from '@paneflow/instance/connect';
import { FOLLOW_QUEUE_FRAMES } from '@paneflow/protocol';
import { until } from '@paneflow/testing';
import { startInstance, type Instance } from './helpers';

// Serve's follow of the host (REFERENCE.md §1.3): a host that sends nothing for the read timeout
// (30 s; 3 s here, PANEFLOW_SERVE_FOLLOW_TIMEOUT_MS, read at start) is dropped and reconnected to.
// A quiet host is not silent: it sends a keepalive after 10 s without frames.
const FOLLOW_TIMEOUT_MS = 3000;

let pf: Instance;
beforeAll(async () => {
  process.env.PANEFLOW_SERVE_FOLLOW_TIMEOUT_MS = String(FOLLOW_TIMEOUT_MS);
  try {
    pf = await startInstance();
  } finally {
    delete process.env.PANEFLOW_SERVE_FOLLOW_TIMEOUT_MS;
  }
});
afterAll(() => {
  try {
    process.kill(pf.hostPid(), 'SIGCONT');
  } catch {
    // gone already
  }
  return pf.cleanup();
});

const follows = () => pf.serveLog().split('\n').filter((l) => l.includes('following host')).length;

test('a host that hangs past the read timeout is dropped and followed again once it answers', async () => {
  const { surface_id } = await pf.call('workspace.create', { cwd: pf.dir });
  expect(follows()).toBe(1);
  process.kill(pf.hostPid(), 'SIGSTOP');
  try {
    await until(() => pf.serveLog().includes(`the host sent nothing for ${FOLLOW_TIMEOUT_MS} ms; reconnecting`) || null, 'serve gives the follow up');
  } finally {
    process.kill(pf.hostPid(), 'SIGCONT');
  }
  await until(() => follows() === 2 || null, 'serve follows the host again');
  expect((await pf.call('surface.status', { surface_id })).lifecycle).toBe('live');
});

test('serve asks the host to hold at most its follow queue of frames for it, not the host’s default', async () => {
  const { connection } = await connectHost(pf.endpoints, 'serve-test');
  try {
    const { counters } = await connection.request('host.status', {});
    expect(counters.follower_max_frames).toBe(FOLLOW_QUEUE_FRAMES);
  } finally {
    connection.destroy();
  }
});
