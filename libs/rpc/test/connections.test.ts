import Type from 'typebox';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { method } from '@paneflow/protocol';
import { call, isListening, RpcConnection, RpcServer, type Handlers } from '../src';
import { rawClient, tempDir, waitFor } from './helpers';

// What a client does to a server's place in the world: connections that say nothing, lines too
// long, a socket file taken away. The server keeps room for others and stays reachable.
const Methods = {
  ping: method(Type.Object({}, { additionalProperties: false }), Type.Object({ pong: Type.Literal(true) })),
};
type Methods = typeof Methods;
const handlers: Handlers<Methods> = { ping: () => ({ pong: true as const }) };

let dir: string;
let cleanup: () => void;
const servers: RpcServer<Methods>[] = [];
const clients: Array<{ destroy(): void }> = [];
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(async () => {
  for (const client of clients.splice(0)) client.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close()));
  cleanup();
});

function server(options: Partial<ConstructorParameters<typeof RpcServer<Methods>>[0]> = {}) {
  const made = new RpcServer<Methods>({ methods: Methods, handlers, mode: 'single', ...options });
  servers.push(made);
  return made;
}

/** A connection that says nothing, once the server counts it. */
async function silentClient(of: RpcServer<Methods>, path: string) {
  const before = of.connectionCount;
  const client = rawClient(path);
  clients.push(client);
  await waitFor(() => of.connectionCount > before);
  return client;
}

describe('connections that say nothing', () => {
  test('at the cap, the oldest connection that sent nothing gives its place to a newcomer, which is served', async () => {
    const path = join(dir, 's.sock');
    const s = server({ maxConnections: 3 });
    await s.listen(path);
    const silent = [await silentClient(s, path), await silentClient(s, path), await silentClient(s, path)];
    expect(await call<Methods, 'ping'>(path, 'ping', {})).toEqual({ pong: true });
    expect(await silent[0].line(0)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'too many connections, and this one sent no request' } });
    await silent[0].closedSoon();
    expect([silent[1].closed, silent[2].closed]).toEqual([false, false]);
  });

  test('a connection that has not sent a complete line by the first-line deadline is closed', async () => {
    const path = join(dir, 's.sock');
    const s = server({ firstLineDeadlineMs: 300, lineDeadlineMs: 60_000 });
    await s.listen(path);
    const quiet = await silentClient(s, path);
    const partial = await silentClient(s, path);
    await partial.send('{"jsonrpc":"2.0",');
    await Promise.all([quiet.closedSoon(), partial.closedSoon()]);
    await waitFor(() => s.connectionCount === 0);
    expect(await call<Methods, 'ping'>(path, 'ping', {})).toEqual({ pong: true });
  });
});

test('after a line over the limit the connection is counted no more, and closed though its client keeps it open', async () => {
  const path = join(dir, 's.sock');
  const s = server({ maxConnections: 1, maxLineBytes: 1024 });
  await s.listen(path);
  const accepted: Socket[] = [];
  (s as unknown as { listener: { server: Server } }).listener.server.on('connection', (socket) => accepted.push(socket));
  const client = rawClient(path, { allowHalfOpen: true });
  clients.push(client);
  await client.send('x'.repeat(2000));
  expect(await client.line(0)).toMatchObject({ id: null, error: { code: -32600 } });
  await waitFor(() => s.connectionCount === 0);
  expect(await call<Methods, 'ping'>(path, 'ping', {})).toEqual({ pong: true });
  await waitFor(() => accepted.length === 2 && accepted.every((socket) => socket.destroyed));
  expect(client.closed).toBe(false); // the server closed it, not its client
});

test('every well-formed request is counted once (onRequest); a line that is not one is not', async () => {
  const path = join(dir, 's.sock');
  const counted: string[] = [];
  await server({ mode: 'multi', onRequest: (name) => counted.push(name) }).listen(path);
  const client = rawClient(path);
  clients.push(client);
  await client.send('not json\n{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"nope"}\n');
  await client.lineWhere((frame) => frame.id === 2);
  expect(counted).toEqual(['ping', 'nope']);
});

describe('a socket file taken away', () => {
  const answers = async (path: string) => (await isListening(path)) && (await call<Methods, 'ping'>(path, 'ping', {})).pong;

  test('removed or replaced, it is made again (mode 0600); a connection made before goes on', async () => {
    const path = join(dir, 's.sock');
    await server({ mode: 'multi' }).listen(path, {});
    const before = await RpcConnection.connect<Methods>(path);
    clients.push(before);
    rmSync(path);
    await waitFor(() => statSync(path, { throwIfNoEntry: false })?.isSocket() === true);
    expect(await answers(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    rmSync(path);
    writeFileSync(path, 'not a socket');
    await waitFor(() => statSync(path).isSocket());
    expect(await answers(path)).toBe(true);
    expect(await before.request('ping', {})).toEqual({ pong: true });
  });

  test('with its directory, both are made again (`prepare`)', async () => {
    const socketDir = join(dir, 'run');
    mkdirSync(socketDir, { mode: 0o700 });
    const path = join(socketDir, 's.sock');
    await server().listen(path, { prepare: () => mkdirSync(socketDir, { recursive: true, mode: 0o700 }) });
    for (let round = 0; round < 2; round++) {
      rmSync(socketDir, { recursive: true });
      await waitFor(() => statSync(path, { throwIfNoEntry: false })?.isSocket() === true);
      expect(await answers(path)).toBe(true);
    }
  });

});
