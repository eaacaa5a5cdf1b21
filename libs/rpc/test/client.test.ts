// The client's side of the wire against a scripted server (a plain unix socket that answers as the
// test says): answers matched to their requests by id in any order, answers to nothing dropped, a
// request's own deadline, and every way a connection can end under waiting requests.
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { ErrorCode, RpcError } from '@paneflow/protocol';
import { RpcConnection, UnreachableError } from '../src';
import { tempDir } from './helpers';

type Request = { id: number; method: string; params: Record<string, unknown> };

let cleanup: () => void;
let server: Server;
let path: string;
/** The server's end of the one connection, and each request it has read. */
let peer: Promise<Socket>;
let requests: Request[];
let arrived: () => void;

beforeEach(async () => {
  let dir: string;
  ({ dir, cleanup } = tempDir());
  path = join(dir, 'scripted.sock');
  requests = [];
  peer = new Promise((resolve) => {
    server = createServer((socket) => {
      let buffer = '';
      socket.on('data', (chunk) => {
        buffer += chunk.toString();
        for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
          requests.push(JSON.parse(buffer.slice(0, nl)));
          buffer = buffer.slice(nl + 1);
          arrived?.();
        }
      });
      resolve(socket);
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
});

afterEach(async () => {
  (await Promise.race([peer, Promise.resolve(null)]))?.destroy();
  await new Promise((resolve) => server.close(resolve));
  cleanup();
});

/** Resolves once the server has read `count` requests. */
const requested = (count: number) =>
  new Promise<void>((resolve) => {
    arrived = () => requests.length >= count && resolve();
    arrived();
  });
const answer = async (line: object) => (await peer).write(JSON.stringify(line) + '\n');

test('answers find their requests by id, in whatever order they come; an answer to nothing asked is dropped', async () => {
  const connection = await RpcConnection.connect(path);
  const first = connection.send('echo', { text: 'a' });
  const second = connection.send('echo', { text: 'b' });
  await requested(2);
  expect(requests.map(({ method, params }) => [method, params])).toEqual([
    ['echo', { text: 'a' }],
    ['echo', { text: 'b' }],
  ]);
  expect(requests[0]).toMatchObject({ jsonrpc: '2.0' });
  await answer({ jsonrpc: '2.0', id: 9999, result: { text: 'stray' } });
  await answer({ jsonrpc: '2.0', id: requests[1].id, result: { text: 'b' } });
  await answer({ jsonrpc: '2.0', id: requests[0].id, error: { code: ErrorCode.NotFound, message: 'no a', data: { reason: 'not_found' } } });
  await expect(second).resolves.toEqual({ text: 'b' });
  const refused = await first.catch((error: unknown) => error);
  expect(refused).toBeInstanceOf(RpcError);
  expect(refused).toMatchObject({ code: ErrorCode.NotFound, message: 'no a', reason: 'not_found' });
  connection.destroy();
});

test('a request with no answer in time fails as a timeout; its late answer is dropped and the connection goes on', async () => {
  const connection = await RpcConnection.connect(path);
  const late = connection.send('slow', {}, { timeoutMs: 50 });
  await expect(late).rejects.toMatchObject({ code: ErrorCode.InternalError, reason: 'timeout', message: 'no answer to slow within 50 ms' });
  const next = connection.send('quick', {});
  await requested(2);
  await answer({ jsonrpc: '2.0', id: requests[0].id, result: { late: true } });
  await answer({ jsonrpc: '2.0', id: requests[1].id, result: { quick: true } });
  await expect(next).resolves.toEqual({ quick: true });
  connection.destroy();
});

test('a connection that closes fails every waiting request as unreachable, and refuses the next', async () => {
  const connection = await RpcConnection.connect(path);
  const waiting = [connection.send('a', {}), connection.send('b', {})];
  await requested(2);
  (await peer).destroy();
  for (const request of waiting) await expect(request).rejects.toBeInstanceOf(UnreachableError);
  await expect(connection.send('c', {})).rejects.toBeInstanceOf(UnreachableError);
});

test("the server's error for the connection as a whole (id null) fails every waiting request with it", async () => {
  const connection = await RpcConnection.connect(path);
  const waiting = connection.send('a', {});
  await requested(1);
  await answer({ jsonrpc: '2.0', id: null, error: { code: ErrorCode.Backpressure, message: 'too many connections' } });
  (await peer).end();
  await expect(waiting).rejects.toMatchObject({ code: ErrorCode.Backpressure, message: 'too many connections' });
  expect(connection.connectionError).toBeInstanceOf(RpcError);
  await expect(connection.send('b', {})).rejects.toMatchObject({ code: ErrorCode.Backpressure });
});

test('lines that are not answers are frames, in order', async () => {
  const connection = await RpcConnection.connect(path);
  const frames: unknown[] = [];
  connection.onFrame((frame) => frames.push(frame));
  const request = connection.send('stream', {});
  await requested(1);
  await answer({ jsonrpc: '2.0', id: requests[0].id, result: { streaming: true } });
  await answer({ type: 'tick', i: 0 });
  await answer({ type: 'tick', i: 1 });
  await expect(request).resolves.toEqual({ streaming: true });
  await new Promise<void>((resolve) => {
    const check = () => (frames.length === 2 ? resolve() : setImmediate(check));
    check();
  });
  expect(frames).toEqual([
    { type: 'tick', i: 0 },
    { type: 'tick', i: 1 },
  ]);
  connection.destroy();
});

test('two connections reading at once each get their own frames whole, however the reads split them (one read buffer serves every connection)', async () => {
  const peers: Socket[] = [];
  let twoConnected!: () => void;
  const connected = new Promise<void>((resolve) => (twoConnected = resolve));
  const twoServer = createServer((socket) => peers.push(socket) === 2 && twoConnected());
  const own = join(path, '..', 'two.sock');
  await new Promise<void>((resolve) => twoServer.listen(own, resolve));
  const connections = [await RpcConnection.connect(own), await RpcConnection.connect(own)];
  try {
    await connected;
    // Frames longer than one read, written in pieces that alternate between the two sockets.
    const frame = (who: number, i: number) => ({ type: 'output', who, i, data: `${who}:${i}:`.padEnd(150_000, String.fromCharCode(97 + who + i)) });
    const received: unknown[][] = [[], []];
    let arrivedAll!: () => void;
    const all = new Promise<void>((resolve) => (arrivedAll = resolve));
    connections.forEach((connection, who) =>
      connection.onFrame((f) => {
        received[who].push(f);
        if (received[0].length === 3 && received[1].length === 3) arrivedAll();
      }),
    );
    const lines = [0, 1].map((who) => [0, 1, 2].map((i) => JSON.stringify(frame(who, i)) + '\n').join(''));
    for (let at = 0; at < lines[0].length; at += 40_000) {
      for (const who of [0, 1]) await new Promise((written) => peers[who].write(lines[who].slice(at, at + 40_000), written));
    }
    await all;
    expect(received).toEqual([0, 1].map((who) => [0, 1, 2].map((i) => frame(who, i))));
  } finally {
    for (const peer of peers) peer.destroy();
    for (const connection of connections) connection.destroy();
    await new Promise((closed) => twoServer.close(closed));
  }
});
