import { HOST_CONTROL_FRAME_BYTES, RpcError } from '@paneflow/protocol';
import { makeHostHome, waitUntil, type TestHost } from './helpers';
import { scaled } from '@paneflow/testing';

// The host's limits of REFERENCE.md §1.2 that protect it from a client: the checkpoint cap
// (-32022) and the size of a control frame; the per-connection queue is @paneflow/rpc's (its tests).

let host: TestHost;
beforeAll(() => {
  host = makeHostHome();
  // A small cap, so that a few thousand lines pass it (the real one is 64 MiB).
  host.env.PANEFLOW_HOST_CHECKPOINT_MAX_BYTES = '8000';
  host.start();
});
afterAll(() => host.cleanup());

const BASH = ['bash', '--norc', '--noprofile'];

test('a checkpoint over the cap is -32022 with its size; a smaller one (less scrollback) is served', async () => {
  const client = await host.connect();
  const { session } = await client.create({ argv: BASH, cols: 80, rows: 24 });
  await client.request('session.input', { session, text: 'seq 1 3000\r', origin: 'automation' });
  await client.screenMatching(session, /^3000$/m);
  const error = (await client.request('session.attach', { session }).catch((e: unknown) => e)) as RpcError;
  expect(error).toBeInstanceOf(RpcError);
  expect([error.code, error.data]).toEqual([-32022, { reason: 'checkpoint_too_large', bytes: expect.any(Number), max: 8000 }]);
  expect((error.data as { bytes: number }).bytes).toBeGreaterThan(8000);
  expect(await client.request('session.attach', { session, scrollback: 0 })).toMatchObject({ generation: 1, cols: 80, rows: 24 });
});

test('a control frame over 64 KiB is refused and changes nothing, the connection goes on; input may be larger', async () => {
  const connection = await host.open();
  const before = (await connection.request('session.list', {})).sessions.length;
  const big = 'x'.repeat(HOST_CONTROL_FRAME_BYTES);
  const error = (await connection
    .request('session.create', { workspace_id: 'w', surface_id: 1, cwd: '/', argv: ['cat'], env: { BIG: big }, cols: 80, rows: 24 })
    .catch((e: unknown) => e)) as RpcError;
  expect([error.code, error.data]).toEqual([-32600, { reason: 'frame_too_large' }]);
  expect((await connection.request('session.list', {})).sessions).toHaveLength(before);

  const { session } = await connection.request('session.create', { workspace_id: 'w', surface_id: 1, cwd: '/', argv: ['cat'], env: {}, cols: 80, rows: 24 });
  // A data frame: 100 KiB of input in one request.
  expect(await connection.request('session.input', { session, text: 'y'.repeat(100 * 1024), origin: 'automation' })).toMatchObject({ written: 100 * 1024 });
});

test('a follower that asked for keepalives gets one when nothing else happened for 10 s', async () => {
  const client = await host.open('keepalive');
  const frames: Array<{ type: string }> = [];
  client.onFrame((frame) => frames.push(frame as { type: string }));
  await client.request('agent.follow', { keepalive: true });
  await waitUntil(() => frames.some((f) => f.type === 'keepalive'), 'a keepalive', 30_000);
  expect(frames[0].type).toBe('snapshot');
}, scaled(60_000));
