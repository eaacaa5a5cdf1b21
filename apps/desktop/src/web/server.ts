// `paneflow web`: the desktop's renderer served over HTTP, and the API it uses (api.ts) carried
// over one WebSocket per page to dispatch.ts, the same code Electron's main process runs. Only a
// request that carries the token (in the URL once, then in a cookie) from a page of this origin
// gets anything: every other request and upgrade is refused with 403.
import { InstanceClient } from '@paneflow/client';
import type { WebFace } from '@paneflow/instance/programs';
import type { Endpoints } from '@paneflow/instance/endpoints';
import { ErrorCode, RpcError } from '@paneflow/protocol/errors';
import { createJSONRPCErrorResponse, JSONRPC, JSONRPCServer, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { extname, join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { CALLS } from '../api';
import { dispatcher } from '../dispatch';
import { SOCKET_PATH } from './messages';

/** The renderer's files, beside this bundle: apps/desktop/dist/renderer, or desktop/renderer in the package. */
export const ASSETS = join(__dirname, 'renderer');
const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.map': 'application/json' };
/** What a page may ask for: the web page, its script, the renderer and their stylesheets and maps. */
const FILES = /^\/(web\.html|web\.js|renderer\.js|styles\.css|phone\.css|xterm\.css|(?:web|renderer)\.js\.map)$/;
/** Calls a page may make (api.ts); `notify` and `focus` stay in the page (browser notifications). */
const CHANNELS = new Set<string>(CALLS.filter((call) => call !== 'notify'));
/** Output a page does not read fast enough: past this, its socket is closed and the page reconnects from checkpoints. */
const MAX_BUFFERED = 16 * 1024 * 1024;
const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
};

/** What `startWeb` takes and gives: `@paneflow/instance`'s `WebFace`, the contract with the CLI that loads this bundle. */
export type WebOptions = Parameters<WebFace['startWeb']>[0];
export type WebServer = Awaited<ReturnType<WebFace['startWeb']>>;

/** `host` as a URL's host part: an IPv6 address in brackets. */
const urlHost = (host: string) => (isIP(host) === 6 ? `[${host}]` : host);

/**
 * The Host header names this server by address (or `localhost`), never by a DNS name: a page of
 * another site that rebinds its name to this address still sends its own name. Any port: with
 * `ssh -L 9000:127.0.0.1:<port>` the browser's is not ours.
 */
function hostAllowed(host: string | undefined): boolean {
  if (!host) return false;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::\d{1,5})?$/.exec(host);
  if (!match) return false;
  const name = match[1].replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return name === 'localhost' || isIP(name) !== 0;
}

/** A browser names the page that asks in Origin (always for a WebSocket): it must be this server's own. */
function originAllowed(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  return origin === undefined || origin.toLowerCase() === `http://${request.headers.host ?? ''}`.toLowerCase();
}

function cookieValue(request: IncomingMessage, name: string): string | null {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export async function startWeb(options: WebOptions): Promise<WebServer> {
  const assets = options.assets ?? ASSETS;
  if (!existsSync(join(assets, 'web.html'))) throw new Error(`the web face is not built: no ${join(assets, 'web.html')} (npx nx build desktop)`);
  const token = randomBytes(32).toString('base64url');
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = digest(token);
  // Digests of equal length, compared in constant time: a wrong token says nothing of the right one.
  const tokenMatches = (candidate: string | null) => candidate !== null && timingSafeEqual(digest(candidate), expected);
  let cookie = '';

  /** Whether a request may go on: its Host and Origin are ours, and it carries the token. */
  const admit = (request: IncomingMessage, url: URL): 'token_in_url' | 'cookie' | null => {
    if (!hostAllowed(request.headers.host) || !originAllowed(request)) return null;
    const given = url.searchParams.get('token');
    if (given !== null) return tokenMatches(given) ? 'token_in_url' : null;
    return tokenMatches(cookieValue(request, cookie)) ? 'cookie' : null;
  };

  const onRequest = (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const admitted = admit(request, url);
    if (!admitted) return void response.writeHead(403, { ...HEADERS, 'content-type': 'text/plain' }).end('forbidden: open the URL `paneflow web` printed, token included\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { ...HEADERS, allow: 'GET, HEAD' }).end();
    if (admitted === 'token_in_url') {
      // The token moves into a cookie and out of the address bar (history, screenshots, a shared screen).
      url.searchParams.delete('token');
      return void response
        .writeHead(303, { ...HEADERS, location: `${url.pathname}${url.search}`, 'set-cookie': `${cookie}=${token}; Path=/; HttpOnly; SameSite=Strict` })
        .end();
    }
    const path = url.pathname === '/' ? '/web.html' : url.pathname;
    const file = FILES.test(path) ? join(assets, path.slice(1)) : null;
    if (!file || !existsSync(file)) return void response.writeHead(404, HEADERS).end();
    response.writeHead(200, { ...HEADERS, 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': statSync(file).size });
    if (request.method === 'HEAD') return void response.end();
    createReadStream(file).pipe(response);
  };

  const http = createServer(onRequest);
  const sockets = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  http.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== SOCKET_PATH || !admit(request, url)) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => connect(ws, options.endpoints));
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port, options.bind, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as { port: number }).port;
  // Cookies are not kept apart by port: each server's has its own name.
  cookie = `paneflow-web-${port}`;
  const shown = options.bind === '0.0.0.0' ? '127.0.0.1' : options.bind === '::' ? '::1' : options.bind;
  return {
    url: `http://${urlHost(shown)}:${port}/?token=${token}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const ws of sockets.clients) ws.terminate();
        sockets.close();
        http.close(() => resolve());
        http.closeAllConnections();
      }),
  };
}

/** One page: its own bridge to the instance, ended with its socket; its calls served by json-rpc-2.0. */
function connect(ws: WebSocket, endpoints: Endpoints): void {
  const bridge = new InstanceClient(endpoints, 'web');
  // The cap is for output the page does not read: an answer (a history of megabytes) is only as
  // big as what the page asked for, so its bytes still on their way do not count.
  let answering = 0;
  const send = (message: JSONRPCResponse | JSONRPCRequest) => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount - answering > MAX_BUFFERED) return ws.terminate();
    const text = JSON.stringify(message);
    if (!('result' in message || 'error' in message)) return ws.send(text);
    const bytes = Buffer.byteLength(text);
    answering += bytes;
    ws.send(text, () => (answering -= bytes));
  };
  const calls = dispatcher(bridge, (method, ...params) => send({ jsonrpc: JSONRPC, method, params }), () => undefined);
  const rpc = new JSONRPCServer({ errorListener: () => undefined });
  for (const channel of CHANNELS) {
    rpc.addMethod(channel, async (params) => {
      if (!Array.isArray(params)) throw new RpcError(ErrorCode.InvalidParams, `invalid params: ${channel} takes its arguments as an array`, { reason: 'invalid_params' });
      return (await calls.call(channel, params)) ?? null;
    });
  }
  // Serve's refusal crosses whole (code, message, data); any other error is an internal one.
  rpc.mapErrorToJSONRPCErrorResponse = (id, error: Error) => {
    const { code, message, data } = error instanceof RpcError ? error.toObject() : { code: ErrorCode.InternalError, message: error.message, data: undefined };
    return createJSONRPCErrorResponse(id, code, message, data);
  };
  ws.on('message', (data, binary) => {
    let message: JSONRPCRequest;
    try {
      message = JSON.parse(binary ? '' : data.toString()) as JSONRPCRequest;
    } catch {
      return send(createJSONRPCErrorResponse(null, ErrorCode.ParseError, 'not JSON'));
    }
    // One request object a message, as on the unix sockets: no batch, no null.
    if (typeof message !== 'object' || message === null || Array.isArray(message)) return send(createJSONRPCErrorResponse(null, ErrorCode.InvalidRequest, 'not a request'));
    // JSON.parse takes any nesting, JSON.stringify not: what could never be passed on is refused as
    // serve refuses bad params (-32602), not as the RangeError its encoding would throw.
    try {
      JSON.stringify(message.params);
    } catch (error) {
      return send(createJSONRPCErrorResponse(message.id ?? null, ErrorCode.InvalidParams, `invalid params: ${(error as Error).message}`, { reason: 'invalid_params' }));
    }
    rpc.receive(message).then(
      (response) => response && send(response),
      (error: Error) => send(createJSONRPCErrorResponse(message.id ?? null, ErrorCode.InvalidRequest, `not a request: ${error.message}`)),
    );
  });
  ws.on('close', () => bridge.close());
  ws.on('error', () => ws.terminate());
}
