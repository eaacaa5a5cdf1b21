import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { startInstance, type Instance } from './helpers';

let pf: Instance;
beforeAll(async () => {
  pf = await startInstance({ scripting: true, orchestration: true });
});
afterAll(() => pf.cleanup());

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

/** Sends raw bytes on a connection of its own; resolves with what came back once it closes. */
function raw(data: string | Buffer, destroyAfterMs?: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = createConnection(pf.endpoints.publicSocket);
    let received = '';
    socket.on('data', (d) => (received += d));
    socket.on('error', () => resolve(received));
    socket.on('close', () => resolve(received));
    socket.write(data);
    if (destroyAfterMs !== undefined) setTimeout(() => socket.destroy(), destroyAfterMs);
  });
}

test('200 connections at once: each is answered or told too many, and serve goes on', async () => {
  const answers = await Promise.all(Array.from({ length: 200 }, () => raw('{"jsonrpc":"2.0","id":1,"method":"system.ping"}\n')));
  const pongs = answers.filter((a) => a.includes('"pong":true')).length;
  const refused = answers.filter((a) => a.includes('too many connections')).length;
  expect(pongs + refused).toBe(200);
  expect(pongs).toBeGreaterThan(0);
  expect(await pf.call('system.ping', {})).toEqual({ pong: true });
});

test('random bytes, an over-long line and a client that leaves mid-request do not stop serve', async () => {
  expect(await raw(Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x0a]))).toMatch(/-32700/);
  expect(await raw('x'.repeat(1024 * 1024 + 1))).toMatch(/-32600/);
  expect(await raw('{"jsonrpc":"2.0","id":1,"method":"system.pi', 50)).toBe('');
  expect(await raw('[{"jsonrpc":"2.0","id":1,"method":"system.ping"}]\n')).toMatch(/-32600/);
  expect(await pf.call('system.ping', {})).toEqual({ pong: true });
});

test('a subscriber that never reads while 10,000 events flow costs bounded memory; the others keep receiving', async () => {
  const stalled = createConnection(pf.endpoints.publicSocket);
  await new Promise((resolve) => stalled.once('connect', resolve));
  stalled.write('{"jsonrpc":"2.0","id":1,"method":"events.subscribe","params":{}}\n');
  stalled.pause();
  const reader = await pf.subscribe({ types: ['workspace_changed'] });

  const a = await pf.call('workspace.create', { cwd: pf.dir });
  const b = await pf.call('workspace.create', { cwd: pf.dir });
  const workspaces = (await pf.call('workspace.list', {})).workspaces.length;
  const before = rssKb(pf.servePid);
  const selects = Math.ceil(10_000 / workspaces);
  for (let i = 0; i < selects; i += 4) {
    await Promise.all([0, 1, 2, 3].map((k) => pf.call('workspace.select', { index: (i + k) % 2 === 0 ? a.index : b.index })));
    if (i % 400 === 0) expect(await pf.call('system.ping', {})).toEqual({ pong: true });
  }
  await reader.next((f) => f.type === 'workspace_changed', Math.max(0, reader.mark - 1));
  const counters = (await pf.call('system.counters', {})).counters;
  expect(counters.dropped_frames).toBeGreaterThan(0);
  expect(reader.frames.filter((f) => f.type === 'workspace_changed').length).toBeGreaterThanOrEqual(9000);
  expect(rssKb(pf.servePid) - before).toBeLessThan(100 * 1024);
  stalled.destroy();
}, 120_000);
