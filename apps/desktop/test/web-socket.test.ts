// `paneflow web`'s WebSocket as a hand-written client sees it (no browser): a call it cannot pass
// on is refused as serve's own socket refuses it.
import { resolveEndpoints } from '@paneflow/instance';
import { makeHome, type Home } from '@paneflow/testing';
import { createConnection } from 'node:net';
import { WebSocket } from 'ws';

let home: Home;
let web: ReturnType<Home['start']>;
let url: URL;

beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1' });
  web = home.start(['web']);
  url = new URL(await web.line((line) => line.startsWith('http://'), 30_000));
}, 60_000);
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
  const refused = { error: { code: -32602, reason: 'invalid_params', message: expect.stringMatching(/^invalid params: /) } };
  expect(await page.call(1, `{"id":1,"channel":"request","args":["surface.read",{"surface_id":1,"x":${deep}}]}`)).toEqual({ id: 1, ...refused });
  // Not only serve's requests: a call for the host (typing into a session) too.
  expect(await page.call(2, `{"id":2,"channel":"input","args":["00000000-0000-4000-8000-000000000000",${deep}]}`)).toEqual({ id: 2, ...refused });
  expect(await page.call(3, '{"id":3,"channel":"request","args":["serve.status",{}]}')).toMatchObject({ id: 3, result: { protocol: expect.any(Number) } });
  page.socket.close();
});
