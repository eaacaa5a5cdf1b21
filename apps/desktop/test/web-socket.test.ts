// `paneflow web`'s WebSocket as a hand-written client sees it (no browser), JSON-RPC 2.0: a call it cannot pass
// on is refused as serve's own socket refuses it.
import { resolveEndpoints } from '@paneflow/instance';
import { makeHome, scaled, type Home } from '@paneflow/testing';
import { createConnection } from 'node:net';
import { WebSocket } from 'ws';

let home: Home;
let web: ReturnType<Home['start']>;
let url: URL;

beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1' });
  web = home.start(['web']);
  url = new URL(await web.line((line) => line.startsWith('http://'), 30_000));
}, scaled(60_000));
afterAll(async () => {
  if (web && web.child.exitCode === null) {
    web.child.kill('SIGTERM');
    await web.exited;
  }
  home?.cleanup();
});

/** One line to serve's public socket, its answer parsed. */
function unixRequest(line: string): Promise<{ error?: { code: number; data?: { reason?: string } } }> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(resolveEndpoints(home.env).publicSocket);
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('close', () => resolve(JSON.parse(answer)));
    socket.on('error', reject);
    socket.write(line + '\n');
  });
}

/** The page's socket, with its token; `call` sends a message written by hand and waits for the answer with its id. */
async function pageSocket() {
  const socket = new WebSocket(`ws://${url.host}/ws`, { headers: { origin: `http://${url.host}`, cookie: `paneflow-web-${url.port}=${url.searchParams.get('token')}` } });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return {
    socket,
    call: (id: number, text: string) =>
      new Promise<Record<string, unknown>>((resolve) => {
        const listener = (data: Buffer) => {
          const message = JSON.parse(data.toString()) as Record<string, unknown>;
          if (message.id !== id) return;
          socket.off('message', listener);
          resolve(message);
        };
        socket.on('message', listener);
        socket.send(text);
      }),
  };
}

test('a call nested deeper than JSON can be written again is refused with -32602 as on the unix socket, and the page socket goes on', async () => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  const unix = await unixRequest(`{"jsonrpc":"2.0","id":1,"method":"surface.read","params":{"surface_id":1,"x":${deep}}}`);
  expect(unix.error).toMatchObject({ code: -32602, data: { reason: 'invalid_params' } });

  const page = await pageSocket();
  const refused = { jsonrpc: '2.0', error: { code: -32602, message: expect.stringMatching(/^invalid params: /), data: { reason: 'invalid_params' } } };
  expect(await page.call(1, `{"jsonrpc":"2.0","id":1,"method":"request","params":["surface.read",{"surface_id":1,"x":${deep}}]}`)).toEqual({ id: 1, ...refused });
  // Not only serve's requests: a call for the host (typing into a session) too.
  expect(await page.call(2, `{"jsonrpc":"2.0","id":2,"method":"input","params":["00000000-0000-4000-8000-000000000000",${deep}]}`)).toEqual({ id: 2, ...refused });
  expect(await page.call(3, '{"jsonrpc":"2.0","id":3,"method":"request","params":["serve.status",{}]}')).toMatchObject({ jsonrpc: '2.0', id: 3, result: { protocol: expect.any(Number) } });
  page.socket.close();
});

test('it speaks JSON-RPC 2.0 as the other sockets do: an unknown call, params that are no argument list, not JSON, not a request object (null, a batch) without stopping; serve’s refusal keeps its code and reason', async () => {
  const page = await pageSocket();
  expect(await page.call(4, '{"jsonrpc":"2.0","id":4,"method":"format_disk","params":[]}')).toMatchObject({ id: 4, error: { code: -32601 } });
  expect(await page.call(5, '{"jsonrpc":"2.0","id":5,"method":"request","params":{"method":"serve.status"}}')).toMatchObject({ id: 5, error: { code: -32602, data: { reason: 'invalid_params' } } });
  expect(await page.call(6, '{"jsonrpc":"2.0","id":6,"method":"request","params":["surface.read",{"surface_id":424242}]}')).toMatchObject({ id: 6, error: { code: -32020 } });
  const notJson = new Promise<Record<string, unknown>>((resolve) => page.socket.once('message', (data: Buffer) => resolve(JSON.parse(data.toString()))));
  page.socket.send('{"jsonrpc":');
  expect(await notJson).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'not JSON' } });
  for (const text of ['null', '[null]', '5']) {
    const answered = new Promise<Record<string, unknown>>((resolve) => page.socket.once('message', (data: Buffer) => resolve(JSON.parse(data.toString()))));
    page.socket.send(text);
    expect(await answered).toMatchObject({ id: null, error: { code: -32600 } });
  }
  expect(await page.call(7, '{"jsonrpc":"2.0","id":7,"method":"request","params":["serve.status",{}]}')).toMatchObject({ id: 7, result: { protocol: expect.any(Number) } });
  page.socket.close();
});
