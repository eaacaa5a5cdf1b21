// In the web face, `window.paneflow` is the preload's API (api.ts) carried over a WebSocket to
// `paneflow web` (server.ts), which runs the calls through dispatch.ts as Electron's main process
// does. Loaded before the renderer, which runs unchanged. A dropped socket is opened again: what
// the page followed ends (the renderer subscribes again, as after a serve restart) and every
// terminal attaches again, starting from the host's checkpoint.
import { paneKey } from '@paneflow/view';
import { createApi, type Notice } from '../api';
import { JSONRPCClient, type JSONRPCErrorException, type JSONRPCRequest, type JSONRPCResponse } from 'json-rpc-2.0';
import { SOCKET_PATH } from './messages';

type Listener = (...args: unknown[]) => void;
/** Subscription ids are the server's, made unique across sockets: each socket's count from its own base. */
const EPOCH = 2 ** 20;

const listeners = new Map<string, Listener[]>();
const deliver = (channel: string, ...args: unknown[]) => {
  for (const listener of listeners.get(channel) ?? []) listener(...args);
};
/** Calls made while the socket is down, sent once it is open again (as JSON-RPC requests). */
const waiting: string[] = [];
const attached = new Set<string>();
const subscriptions = new Set<number>();
let socket: WebSocket | null = null;
let open = false;
let epoch = 0;
let retryMs = 250;

const setState = (state: 'connecting' | 'open' | 'closed') => {
  if (document.body) document.body.dataset.socket = state;
};

/** The page's side of the JSON-RPC socket: requests sent now, or once the socket is open again. */
const client = new JSONRPCClient((request) => {
  const text = JSON.stringify(request);
  if (open) socket!.send(text);
  else waiting.push(text);
});

/** A call's answer; a refusal as an Error with serve's `code` and `reason`, as over Electron's IPC. */
async function call(channel: string, args: unknown[]): Promise<unknown> {
  try {
    return await client.request(channel, args);
  } catch (error) {
    const { code, data } = error as JSONRPCErrorException;
    const reason = (data as { reason?: unknown } | undefined)?.reason;
    throw Object.assign(new Error((error as Error).message), { code: code ?? null, reason: typeof reason === 'string' ? reason : null });
  }
}

/** The server's subscription id as the page knows it, and back. */
const pageId = (serverId: number) => epoch * EPOCH + serverId;

/** A notification is a push of dispatch.ts; anything else answers a call. */
function onMessage(message: JSONRPCRequest | JSONRPCResponse): void {
  if (!('method' in message)) return client.receive(message);
  const args = Array.isArray(message.params) ? [...message.params] : [];
  if (message.method === 'frame' || message.method === 'end') args[0] = pageId(args[0] as number);
  if (message.method === 'end') subscriptions.delete(args[0] as number);
  deliver(message.method, ...args);
}

function connect(): void {
  setState('connecting');
  const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${SOCKET_PATH}`);
  socket = ws;
  ws.onopen = () => {
    epoch++;
    open = true;
    retryMs = 250;
    setState('open');
    // Terminals the page shows attach again: the host sends the screen as it is now.
    for (const session of attached) void client.request('attach', [session]).then(undefined, () => undefined);
    for (const text of waiting.splice(0)) ws.send(text);
  };
  ws.onmessage = (event) => onMessage(JSON.parse(event.data as string) as JSONRPCRequest | JSONRPCResponse);
  ws.onclose = () => {
    if (socket !== ws) return;
    const wasOpen = open;
    open = false;
    socket = null;
    setState('closed');
    if (wasOpen) {
      // Everything asked of this socket was sent on it (none waits while it is open): no answer comes.
      client.rejectAllPendingRequests('the connection to paneflow web was lost');
      // What the server followed for this page ended with the socket.
      for (const id of [...subscriptions]) {
        subscriptions.delete(id);
        deliver('end', id);
      }
      for (const session of attached) deliver('mirror', session, 'state', 'lost');
    }
    setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, 4000);
  };
}

/** A system notification while the page is not in front of you (hidden, or another window focused); a click brings the pane forward. */
function notify(notice: Notice): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  if (document.visibilityState === 'visible' && document.hasFocus()) return;
  const shown = new Notification(notice.title, { body: notice.body, tag: `paneflow-${paneKey(notice.machine, notice.surface_id)}` });
  shown.onclick = () => {
    window.focus();
    shown.close();
    deliver('focus', notice.surface_id, notice.machine ?? null);
  };
}

// A browser asks for the permission only after a gesture: the first tap or key in the page.
const askOnce = () => {
  removeEventListener('pointerdown', askOnce, true);
  removeEventListener('keydown', askOnce, true);
  if (typeof Notification !== 'undefined' && Notification.permission === 'default') void Notification.requestPermission();
};
addEventListener('pointerdown', askOnce, true);
addEventListener('keydown', askOnce, true);

(window as unknown as { paneflow: unknown }).paneflow = createApi(
  async (channel, ...args) => {
    switch (channel) {
      case 'notify':
        return notify(args[0] as Notice);
      case 'attach':
        attached.add(args[0] as string);
        break;
      case 'detach':
        attached.delete(args[0] as string);
        break;
      case 'input':
        // Keys are never queued: typed into a terminal you cannot see answer, they would land later, unseen.
        if (!open) throw new Error('not connected to paneflow web');
        break;
      case 'unsubscribe': {
        const id = args[0] as number;
        subscriptions.delete(id);
        // A subscription of an earlier socket ended with it.
        if (Math.floor(id / EPOCH) !== epoch) return;
        return call(channel, [id % EPOCH]);
      }
      case 'subscribe': {
        const id = pageId((await call(channel, args)) as number);
        subscriptions.add(id);
        return id;
      }
    }
    return call(channel, args);
  },
  (channel, listener) => void listeners.set(channel, [...(listeners.get(channel) ?? []), listener]),
);
addEventListener('DOMContentLoaded', () => setState(open ? 'open' : 'connecting'));
connect();
