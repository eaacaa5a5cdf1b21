import { ErrorCode } from '@paneflow/protocol';
import { HostClient, startHost, type TestHost } from './helpers';

let host: TestHost;
let client: HostClient;
beforeAll(async () => {
  host = await startHost();
  client = await host.connect();
});
afterAll(() => host.cleanup());

const BASH = ['bash', '--norc', '--noprofile'];
const cpu = async (session: string) => (await client.request('session.cpu', { session })).cpu_ms;
/** A node child that uses `ms` of CPU (its own count, whatever else runs), then prints `word`. */
const spin = (ms: number, word: string) => `node -e 'while (process.cpuUsage().user < ${ms * 1000}); console.log("${word}")'\r`;

describe('session.cpu: the CPU time of a session’s process tree', () => {
  test('a descendant that burns CPU counts while it runs, and after it is reaped (its parent’s cutime)', async () => {
    const { session } = await client.create({ argv: BASH });
    await client.screenMatching(session, /[$#] $/m);
    const before = await cpu(session);
    await client.request('session.input', { session, text: spin(60_000, 'never'), origin: 'automation' });
    // Running, not yet reaped: its own utime is the tree's.
    let running = before;
    for (const deadline = Date.now() + 20_000; running < before + 300 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      running = await cpu(session);
    }
    expect(running).toBeGreaterThanOrEqual(before + 300);
    await client.request('session.key', { session, keystroke: 'ctrl-c', origin: 'automation' });
    await client.request('session.input', { session, text: spin(300, 'spun'), origin: 'automation' });
    await client.screenMatching(session, /^spun$/m);
    // Reaped by bash: its time moved into bash's cutime, so the total did not fall back.
    expect(await cpu(session)).toBeGreaterThanOrEqual(running + 300);
  });

  test('a tree that only sleeps uses none', async () => {
    // Nothing starts after `ready`: `wait` is the shell's own.
    const { session } = await client.create({ argv: ['sh', '-c', 'sleep 30 & sleep 0.3; echo ready; wait'] });
    await client.screenMatching(session, /^ready$/m);
    const first = await client.request('session.cpu', { session });
    expect(first.processes).toBe(2);
    // The same reading after the host has read and answered other requests in between.
    await client.request('session.read', { session, lines: 5 });
    expect(await cpu(session)).toBe(first.cpu_ms);
  });

  test('an exited session has no processes, and an unknown one is not found', async () => {
    const { session } = await client.create({ argv: ['sh', '-c', 'exit 0'] });
    await client.frame((f) => f.type === 'lifecycle' && f.session === session && f.lifecycle === 'exited');
    expect(await client.request('session.cpu', { session })).toEqual({ cpu_ms: 0, processes: 0 });
    await expect(client.request('session.cpu', { session: '00000000-0000-4000-8000-00000000dead' })).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });
});
