import fc from 'fast-check';
import Type from 'typebox';
import { statSync } from 'node:fs';
import type { Server, Socket } from 'node:net';
import { join } from 'node:path';
import { ErrorCode, method, RpcError } from '@paneflow/protocol';
import { call, RpcConnection, RpcServer, StreamReply, subscribe, type Handlers } from '../src';
import { rawClient, tempDir, waitFor } from './helpers';

const closed = { additionalProperties: false } as const;
const Methods = {
  echo: method(Type.Object({ text: Type.String(), times: Type.Optional(Type.Integer({ minimum: 1 })) }, closed), Type.Object({ text: Type.String() })),
  ping: method(Type.Object({}, closed), Type.Object({ pong: Type.Literal(true) })),
  hello: method(Type.Object({ name: Type.String() }, closed), Type.Object({ hi: Type.String() })),
  fail: method(Type.Object({ how: Type.String() }, closed), Type.Object({})),
  ticks: method(Type.Object({ count: Type.Integer() }, closed), Type.Object({ streaming: Type.Literal(true) })),
  record: method(Type.Object({ n: Type.Integer() }, closed), Type.Object({})),
  hold: method(Type.Object({}, closed), Type.Object({})),
};
type Methods = typeof Methods;

let dir: string;
let cleanup: () => void;
let seen: number[];
/** `hold`: requests that reached their handler, and handlers that returned (once their connection closed). */
let holding: number;
let released: number;

function handlers(): Handlers<Methods> {
  return {
    echo: ({ text, times }) => ({ text: text.repeat(times ?? 1) }),
    ping: () => ({ pong: true as const }),
    hello: ({ name }) => ({ hi: name }),
    fail: ({ how }) => {
      if (how === 'rpc') throw new RpcError(ErrorCode.NotFound, 'no such thing', { reason: 'not_found' });
      // A server that reports its failure inside the result.
      if (how === 'result') return { error: 'disk full' } as object;
      throw new Error('boom');
    },
    ticks: ({ count }, { connection }) =>
      new StreamReply({ streaming: true as const }, () => {
        for (let i = 0; i < count; i++) connection.send({ type: 'tick', i });
      }),
    record: async ({ n }) => {
      seen.push(n);
      await new Promise((resolve) => setTimeout(resolve, (5 - n) * 3));
      return {};
    },
    hold: async (_params, { connection }) => {
      holding++;
      await new Promise<void>((resolve) => connection.onClose(resolve));
      released++;
      return {};
    },
  };
}

async function start(options: Partial<ConstructorParameters<typeof RpcServer<Methods>>[0]> = {}) {
  const server = new RpcServer<Methods>({ methods: Methods, handlers: handlers(), mode: 'multi', ...options });
  const path = join(dir, `s${Math.random().toString(36).slice(2, 8)}.sock`);
  await server.listen(path);
  servers.push(server);
  return { server, path };
}

const servers: RpcServer<Methods>[] = [];
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
  seen = [];
  holding = 0;
  released = 0;
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  cleanup();
});

describe('requests', () => {
  test('a valid request gets its result', async () => {
    const { path } = await start();
    expect(await call<Methods, 'echo'>(path, 'echo', { text: 'ab', times: 2 })).toEqual({ text: 'abab' });
  });

  test('the socket file has mode 0600', async () => {
    const { path } = await start();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  test('an unknown method is -32601', async () => {
    const { path } = await start();
    await expect(call(path, 'nope' as never, {} as never)).rejects.toMatchObject({ code: -32601 });
  });

  test.each([
    [{ text: 5 }, 'text', /'text' must be string/],
    [{ text: 'a', extra: 1 }, 'extra', /unknown field 'extra'/],
    [{}, 'text', /missing field 'text'/],
    [{ text: 'a', times: 0 }, 'times', /'times' must be >= 1/],
  ])('invalid params %j are -32602 naming the field', async (params, field, message) => {
    const { path } = await start();
    const error = (await call(path, 'echo', params as never).catch((e: unknown) => e)) as RpcError;
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({ code: -32602, data: { reason: 'invalid_params', field } });
    expect(error.message).toMatch(message);
  });

  test('params that are not an object are an invalid request', async () => {
    const { path } = await start();
    const client = rawClient(path);
    client.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}\n');
    expect((await client.line(0)).error.code).toBe(-32600);
    client.destroy();
  });

  test('an RpcError keeps its code and data; any other error is -32603 and the server goes on; only the unexpected one is logged', async () => {
    const logged: string[] = [];
    const { path } = await start({ log: (message) => logged.push(message) });
    await expect(call(path, 'fail', { how: 'rpc' })).rejects.toMatchObject({ code: -32020, data: { reason: 'not_found' } });
    await expect(call(path, 'echo', { text: 1 } as never)).rejects.toMatchObject({ code: -32602 });
    // A caller's refusal is the caller's news, not the log's.
    expect(logged).toEqual([]);
    await expect(call(path, 'fail', { how: 'plain' })).rejects.toMatchObject({ code: -32603 });
    expect(logged).toEqual([expect.stringMatching(/^handler failed: Error: boom\n\s+at /)]);
    expect(await call(path, 'ping', {})).toEqual({ pong: true });
  });

  test('a result that carries an error string is a failure to the client (REFERENCE.md §2.2)', async () => {
    const { path } = await start();
    await expect(call(path, 'fail', { how: 'result' })).rejects.toMatchObject({ code: -32603, message: 'disk full', data: { reason: 'result_error' } });
  });

  test('requests on one connection reach their handlers in order, whatever order they finish in', async () => {
    const { path } = await start();
    const connection = await RpcConnection.connect<Methods>(path);
    await Promise.all([1, 2, 3, 4].map((n) => connection.request('record', { n })));
    expect(seen).toEqual([1, 2, 3, 4]);
    connection.close();
  });
});

describe('what a client must not send', () => {
  test('a line that is not JSON is -32700, and the connection goes on', async () => {
    const { path } = await start();
    const client = rawClient(path);
    client.write('{not json\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    expect(await client.line(0)).toMatchObject({ id: null, error: { code: -32700 } });
    expect(await client.line(1)).toMatchObject({ id: 7, result: { pong: true } });
    client.destroy();
  });

  test.each([
    ['an object', '{"n":1}'],
    ['an array', '[1]'],
    ['true', 'true'],
    ['false', 'false'],
  ])('%s as the id is -32600 with id null, and the handler never runs', async (_what, id) => {
    const { path } = await start();
    const client = rawClient(path);
    client.write(`{"jsonrpc":"2.0","id":${id},"method":"record","params":{"n":1}}\n{"jsonrpc":"2.0","id":"s","method":"ping"}\n`);
    expect(await client.line(0)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: id must be a string, a number or null' } });
    expect(await client.line(1)).toMatchObject({ id: 's', result: { pong: true } });
    expect(seen).toEqual([]);
    client.destroy();
  });

  test('a string id of 128 characters is echoed; a longer one is -32600 with id null, never written back', async () => {
    const { path } = await start();
    const client = rawClient(path);
    client.write(`{"jsonrpc":"2.0","id":"${'i'.repeat(128)}","method":"ping"}\n{"jsonrpc":"2.0","id":"${'i'.repeat(100_000)}","method":"record","params":{"n":1}}\n`);
    const answers = await Promise.all([client.line(0), client.line(1)]);
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: 'i'.repeat(128), result: { pong: true } });
    expect(answers).toContainEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: a string id may have at most 128 characters' } });
    expect(seen).toEqual([]);
    client.destroy();
  });

  test('a batch is -32600', async () => {
    const { path } = await start();
    const client = rawClient(path);
    client.write('[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n');
    expect(await client.line(0)).toMatchObject({ error: { code: -32600 } });
    client.destroy();
  });

  test('a line over the limit is refused with -32600 and the connection closed; others are served', async () => {
    const { path } = await start({ maxLineBytes: 1024 * 1024 });
    const client = rawClient(path);
    client.write('{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"' + 'x'.repeat(1024 * 1024 + 10) + '"}}\n');
    expect(await client.line(0)).toMatchObject({ id: null, error: { code: -32600 } });
    await client.closedSoon();
    expect(await call(path, 'ping', {})).toEqual({ pong: true });
  });

  test('a line of exactly the limit is accepted', async () => {
    const { path } = await start({ maxLineBytes: 1000 });
    const head = '{"jsonrpc":"2.0","id":1,"method":"echo","params":{"text":"';
    const tail = '"}}';
    const text = 'y'.repeat(1000 - head.length - tail.length);
    const client = rawClient(path);
    client.write(head + text + tail + '\n');
    expect(await client.line(0)).toMatchObject({ result: { text } });
    client.destroy();
  });

  test('random bytes never stop the server', async () => {
    const { server, path } = await start();
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 2000 }), async (bytes) => {
        const id = `after-${run++}`;
        const client = rawClient(path);
        try {
          await client.send(Buffer.concat([Buffer.from(bytes), Buffer.from(`\n{"jsonrpc":"2.0","id":"${id}","method":"ping"}\n`)]));
          // Answered on the same connection, so the server has read every random byte before it.
          expect(await client.lineWhere((frame) => frame.id === id)).toEqual({ jsonrpc: '2.0', id, result: { pong: true } });
        } finally {
          client.destroy();
        }
      }),
      { numRuns: 100 },
    );
    expect(run).toBeGreaterThanOrEqual(100);
    await waitFor(() => server.connectionCount === 0);
    expect(await call(path, 'ping', {})).toEqual({ pong: true });
  });

  test('a connection that never finishes its line is closed at the deadline', async () => {
    const { path } = await start({ lineDeadlineMs: 200 });
    const client = rawClient(path);
    client.write('{"jsonrpc":"2.0",');
    await client.closedSoon();
    expect(await call(path, 'ping', {})).toEqual({ pong: true });
  });

  test('a client that disconnects mid-request leaves the server serving', async () => {
    // One connection at a time: a place the gone client kept would refuse the next one.
    const { server, path } = await start({ maxConnections: 1 });
    const client = rawClient(path);
    await client.send('{"jsonrpc":"2.0","id":1,"method":"hold","params":{}}\n');
    await waitFor(() => holding === 1); // the request reached its handler
    client.destroy();
    await waitFor(() => released === 1); // the handler answered, to a connection that is gone
    await waitFor(() => server.connectionCount === 0);
    expect(await call(path, 'ping', {})).toEqual({ pong: true });
  });
});

describe('one request per connection', () => {
  test('the server answers the first request and closes; a second line is ignored', async () => {
    const { path } = await start({ mode: 'single' });
    const client = rawClient(path);
    client.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    expect(await client.line(0)).toMatchObject({ id: 1, result: { pong: true } });
    await client.closedSoon();
    expect(client.lineCount).toBe(1);
  });

  test('a streaming method keeps its connection open and pushes frames after its result', async () => {
    const { path } = await start({ mode: 'single' });
    const frames: unknown[] = [];
    const { result, connection } = await subscribe<Methods, 'ticks'>(path, 'ticks', { count: 3 }, (frame) => frames.push(frame));
    expect(result).toEqual({ streaming: true });
    await waitFor(() => frames.length === 3);
    expect(frames).toEqual([0, 1, 2].map((i) => ({ type: 'tick', i })));
    expect(connection.closed).toBe(false);
    connection.close();
  });

  /** A connection whose request is in its handler until the connection closes. */
  const holdingClient = async (path: string, client = rawClient(path)) => (await client.send('{"jsonrpc":"2.0","id":1,"method":"hold","params":{}}\n'), client);

  test('connections over the cap get -32000 and are closed, when every counted one has sent its request', async () => {
    const { server, path } = await start({ mode: 'single', maxConnections: 3 });
    const held = [await holdingClient(path), await holdingClient(path), await holdingClient(path)];
    await waitFor(() => holding === 3);
    const extra = rawClient(path);
    expect(await extra.line(0)).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'too many connections' } });
    await extra.closedSoon();
    held.forEach((c) => c.destroy());
    await waitFor(() => server.connectionCount === 0);
    expect(await call(path, 'ping', {})).toEqual({ pong: true });
  });

  test('the server closes a connection it refused, whatever its client does', async () => {
    const { server, path } = await start({ mode: 'single', maxConnections: 1 });
    // Every socket the server accepts, so that a failure here leaves none open to keep jest alive.
    const accepted: Socket[] = [];
    (server as unknown as { listener: { server: Server } }).listener.server.on('connection', (socket) => accepted.push(socket));
    const held = await holdingClient(path);
    await waitFor(() => holding === 1);
    // One that reads the refusal and keeps its side open, one that drops at once (as call() does).
    const stays = rawClient(path, { allowHalfOpen: true });
    try {
      expect(await stays.line(0)).toMatchObject({ id: null, error: { code: -32000 } });
      await expect(call(path, 'ping', {})).rejects.toMatchObject({ code: -32000, message: 'too many connections' });
      held.destroy();
      await waitFor(() => accepted.filter((socket) => !socket.destroyed).length === 0);
    } finally {
      stays.destroy();
      accepted.forEach((socket) => socket.destroy());
    }
  });
});

describe('per-connection limits (the host socket)', () => {
  test('past maxPending a request is refused with -32000 queue_full and never runs; answered ones free their place', async () => {
    const { path } = await start({ maxPending: 2 });
    const connection = await RpcConnection.connect<Methods>(path);
    const held = [connection.request('hold', {}), connection.request('hold', {})];
    held.forEach((h) => h.catch(() => undefined));
    await waitFor(() => holding === 2);
    await expect(connection.request('echo', { text: 'x' })).rejects.toMatchObject({ code: -32000, data: { reason: 'queue_full' } });
    connection.destroy();
    // Another connection has its own queue.
    expect(await call<Methods, 'echo'>(path, 'echo', { text: 'y' })).toEqual({ text: 'y' });
    const again = await RpcConnection.connect<Methods>(path);
    for (let i = 0; i < 5; i++) expect(await again.request('echo', { text: `${i}` })).toEqual({ text: `${i}` });
    again.destroy();
  });

  test('a line over maxControlBytes is refused (-32600 frame_too_large) unless its method carries data; the connection goes on', async () => {
    const { path } = await start({ maxControlBytes: 1000, dataMethods: ['hello'] });
    const connection = await RpcConnection.connect<Methods>(path);
    await expect(connection.request('echo', { text: 'x'.repeat(1000) })).rejects.toMatchObject({ code: -32600, data: { reason: 'frame_too_large' } });
    expect(await connection.request('echo', { text: 'short' })).toEqual({ text: 'short' });
    // Multi-byte characters count as bytes: 600 of them are 1200 bytes.
    await expect(connection.request('echo', { text: 'é'.repeat(600) })).rejects.toMatchObject({ code: -32600 });
    expect(await connection.request('hello', { name: 'n'.repeat(5000) })).toEqual({ hi: 'n'.repeat(5000) });
    connection.destroy();
  });
});

describe('streams', () => {
  const never = () => undefined;

  test('past maxStreams a stream is refused with -32000 and not started; one-shot requests get through; a closed stream frees its place', async () => {
    const { server, path } = await start({ mode: 'single', maxConnections: 4, maxStreams: 2 });
    const held = [await subscribe<Methods, 'ticks'>(path, 'ticks', { count: 0 }, never), await subscribe<Methods, 'ticks'>(path, 'ticks', { count: 0 }, never)];
    const frames: unknown[] = [];
    const refused = await subscribe<Methods, 'ticks'>(path, 'ticks', { count: 1 }, (frame) => frames.push(frame)).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32000, data: { reason: 'too_many_subscribers' } });
    expect((refused as RpcError).message).toMatch(/at most 2 connections may stream/);
    expect(await call(path, 'ping', {})).toEqual({ pong: true });
    expect(frames).toEqual([]);
    held[0].connection.close();
    await waitFor(() => server.connectionCount === 1);
    const again = await subscribe<Methods, 'ticks'>(path, 'ticks', { count: 1 }, (frame) => frames.push(frame));
    await waitFor(() => frames.length === 1);
    again.connection.close();
    held[1].connection.close();
  });
});

describe('a method that must come first', () => {
  test('nothing else is accepted until it succeeds', async () => {
    const { path } = await start({ first: 'hello' });
    const connection = await RpcConnection.connect<Methods>(path);
    await expect(connection.request('ping', {})).rejects.toMatchObject({ code: -32600, message: /hello must come first/ });
    await expect(connection.request('hello', { name: 3 } as never)).rejects.toMatchObject({ code: -32602 });
    await expect(connection.request('ping', {})).rejects.toMatchObject({ code: -32600 });
    expect(await connection.request('hello', { name: 'serve' })).toEqual({ hi: 'serve' });
    expect(await connection.request('ping', {})).toEqual({ pong: true });
    connection.close();
  });

  test('requests sent right behind it, in the same write, wait for its answer; behind a failed one they are refused', async () => {
    const { path } = await start({ first: 'hello' });
    const line = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n';
    const client = rawClient(path);
    client.write(line(1, 'hello', { name: 'serve' }) + line(2, 'ping', {}) + line(3, 'echo', { text: 'x' }));
    const answers = await Promise.all([0, 1, 2].map((n) => client.line(n)));
    expect(answers.sort((a, b) => a.id - b.id)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { hi: 'serve' } },
      { jsonrpc: '2.0', id: 2, result: { pong: true } },
      { jsonrpc: '2.0', id: 3, result: { text: 'x' } },
    ]);
    const refused = rawClient(path);
    refused.write(line(1, 'hello', { name: 3 }) + line(2, 'ping', {}));
    const [bad, ping] = (await Promise.all([0, 1].map((n) => refused.line(n)))).sort((a, b) => a.id - b.id);
    expect(bad.error.code).toBe(-32602);
    expect(ping.error).toMatchObject({ code: -32600, message: 'hello must come first on every connection' });
    client.destroy();
    refused.destroy();
  });
});

test('listen refuses a socket another server is listening on, and replaces a dead one', async () => {
  const { path } = await start();
  const second = new RpcServer<Methods>({ methods: Methods, handlers: handlers(), mode: 'multi' });
  await expect(second.listen(path)).rejects.toThrow(/already listens/);
  await servers.pop()!.close();
  const { writeFileSync } = await import('node:fs');
  writeFileSync(path, ''); // a leftover file, nothing listening
  await second.listen(path);
  servers.push(second);
  expect(await call(path, 'ping', {})).toEqual({ pong: true });
});

test('a client gets an UnreachableError when nothing listens', async () => {
  await expect(call(join(dir, 'none.sock'), 'ping' as never, {} as never)).rejects.toMatchObject({ name: 'UnreachableError' });
});
