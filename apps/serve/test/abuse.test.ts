import { MAX_SUBSCRIBERS, type RpcError } from '@paneflow/protocol';
import { scaled, until } from '@paneflow/testing';
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { startInstance, type EventStream, type Instance } from './helpers';

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
  // Serve counts a connection until it has seen it close, a moment after the client has.
  const pong = await until(() => pf.call('system.ping', {}).catch((error: RpcError) => (/too many connections/.test(error.message) ? null : Promise.reject(error))), 'serve answers once the 200 are closed');
  expect(pong).toEqual({ pong: true });
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
}, scaled(120_000));

test('an object, array or boolean id is -32600 with id null', async () => {
  for (const id of ['{"a":1}', '[1]', 'true', 'false']) {
    const answer = JSON.parse(await raw(`{"jsonrpc":"2.0","id":${id},"method":"system.ping"}\n`));
    expect(answer).toMatchObject({ id: null, error: { code: -32600 } });
  }
  expect(JSON.parse(await raw('{"jsonrpc":"2.0","id":"x","method":"system.ping"}\n'))).toEqual({ jsonrpc: '2.0', id: 'x', result: { pong: true } });
});

test('a hook frame with an unbounded workspace_id, a pid out of range or an over-long text is -32602 and changes nothing', async () => {
  const created = await pf.call('workspace.create', { cwd: pf.dir });
  const { session } = (await pf.call('surface.list', { scope: 'all' })).surfaces.find((s) => s.surface_id === created.surface_id)!;
  const hookState = async () => {
    const { hook_revision } = (await pf.call('session.list', {})).sessions.find((r) => r.session === session)!;
    const { last_result } = await pf.call('surface.status', { surface_id: created.surface_id });
    return { hook_revision, last_result };
  };
  const before = await hookState();
  const frame = { tool: 'claude' as const, session, pid: 4242, emitted_at_ms: Date.now(), payload: { last_result: 'kept' } };
  const bad: Array<[string, Record<string, unknown>, string]> = [
    ['a 900 KiB workspace_id', { workspace_id: 'w'.repeat(900 * 1024) }, 'workspace_id'],
    ['a workspace_id with control characters', { workspace_id: '\u001b]52;c;aGk=\u0007' }, 'workspace_id'],
    ['pid -1', { pid: -1 }, 'pid'],
    ['pid 1e308', { pid: 1e308 }, 'pid'],
    ['pid -1e308', { pid: -1e308 }, 'pid'],
    ['emitted_at_ms 1e308', { emitted_at_ms: 1e308 }, 'emitted_at_ms'],
    // 1366 characters, 4098 bytes: within the limit in characters, over it in bytes.
    ['a last_result of 4098 bytes', { payload: { last_result: '€'.repeat(1366) } }, 'payload/last_result'],
    ['an unknown payload field', { payload: { blob: 'x'.repeat(100_000) } }, 'payload/blob'],
  ];
  for (const [what, change, field] of bad) {
    const error = (await pf.call('ai.stop', { ...frame, ...change } as never).catch((e: unknown) => e)) as RpcError;
    expect([what, error.code, error.data?.field]).toEqual([what, -32602, field]);
  }
  expect(await hookState()).toEqual(before);
  expect(await pf.call('ai.stop', { ...frame, workspace_id: created.id })).toEqual({ accepted: true });
  expect(await hookState()).toEqual({ hook_revision: before.hook_revision + 1, last_result: 'kept' });
  await pf.call('workspace.close', { index: created.index });
});

test(`subscribers hold at most ${MAX_SUBSCRIBERS} of the 64 connections: the next is told -32000, and one-shot requests and hooks still get through`, async () => {
  const counters = async () => (await pf.call('system.counters', {})).counters;
  const already = (await counters()).subscribers;
  const held: EventStream[] = [];
  try {
    for (let i = already; i < MAX_SUBSCRIBERS; i++) held.push(await pf.subscribe({ heartbeat: false }));
    const refused = (await pf.subscribe({ heartbeat: false }).catch((e: unknown) => e)) as RpcError;
    expect(refused).toMatchObject({ code: -32000, data: { reason: 'too_many_subscribers' } });
    expect(refused.message).toMatch(/too many subscribers/);
    // What ls, a hook and the MCP bridge send: one-shot requests, as many at once as the other connections allow.
    const oneShots = await Promise.all([
      ...Array.from({ length: 12 }, () => pf.call('surface.list', { scope: 'all' })),
      pf.call('fleet.list', {}),
      pf.call('ai.stop', { tool: 'claude', session: '00000000-0000-4000-8000-000000000000', emitted_at_ms: Date.now(), payload: {} }),
    ]);
    expect(oneShots.at(-1)).toEqual({ accepted: false, reason: 'unknown_session' });
    // A subscriber that leaves frees its place (serve counts it gone once it has seen the close).
    held.pop()!.connection.destroy();
    while ((await counters()).subscribers >= MAX_SUBSCRIBERS) await new Promise((resolve) => setImmediate(resolve));
    held.push(await pf.subscribe({ heartbeat: false }));
  } finally {
    for (const stream of held) stream.connection.destroy();
  }
});
