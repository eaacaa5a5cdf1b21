// In the web face, `window.paneflow` is the preload's API (api.ts) carried over a WebSocket to
// `paneflow web` (server.ts), which runs the calls through dispatch.ts as Electron's main process
// does. Loaded before the renderer, which runs unchanged. A dropped socket is opened again: what
// the page followed ends (the renderer subscribes again, as after a serve restart) and every
// terminal attaches again, starting from the host's checkpoint.
import { createApi, type Notice } from '../api';
import { type ClientMessage, type ServerMessage, SOCKET_PATH } from './messages';

type Listener = (...args: unknown[]) => void;
/** Subscription ids are the server's, made unique across sockets: each socket's count from its own base. */
const EPOCH = 2 ** 20;

const listeners = new Map<string, Listener[]>();
const deliver = (channel: string, ...args: unknown[]) => {
  for (const listener of listeners.get(channel) ?? []) listener(...args);
};
const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
/** Calls made while the socket is down, sent once it is open again. */
const waiting: ClientMessage[] = [];
const attached = new Set<string>();
const subscriptions = new Set<number>();
let socket: WebSocket | null = null;
let open = false;
let epoch = 0;
let nextId = 1;
let retryMs = 250;

const setState = (state: 'connecting' | 'open' | 'closed') => {
  if (document.body) document.body.dataset.socket = state;
};

function send(message: ClientMessage): void {
  if (open) socket!.send(JSON.stringify(message));
  else waiting.push(message);
}

function call(channel: string, args: unknown[]): Promise<unknown> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    send({ id, channel, args });
  });
}

/** The server's subscription id as the page knows it, and back. */
const pageId = (serverId: number) => epoch * EPOCH + serverId;

function onMessage(message: ServerMessage): void {
  if ('push' in message) {
    const args = [...message.args];
    if (message.push === 'frame' || message.push === 'end') args[0] = pageId(args[0] as number);
    if (message.push === 'end') subscriptions.delete(args[0] as number);
    return deliver(message.push, ...args);
  }
  const entry = pending.get(message.id);
  pending.delete(message.id);
  if (!entry) return;
  if ('result' in message) return entry.resolve(message.result);
  entry.reject(Object.assign(new Error(message.error.message), { code: message.error.code, reason: message.error.reason }));
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
    for (const session of attached) ws.send(JSON.stringify({ id: nextId++, channel: 'attach', args: [session] }));
    for (const message of waiting.splice(0)) ws.send(JSON.stringify(message));
  };
  ws.onmessage = (event) => onMessage(JSON.parse(event.data as string) as ServerMessage);
  ws.onclose = () => {
    if (socket !== ws) return;
    const wasOpen = open;
    open = false;
    socket = null;
    setState('closed');
    if (wasOpen) {
      for (const [id, entry] of pending) {
        if (waiting.some((m) => m.id === id)) continue;
        pending.delete(id);
        entry.reject(new Error('the connection to paneflow web was lost'));
      }
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
  const shown = new Notification(notice.title, { body: notice.body, tag: `paneflow-${notice.surface_id}` });
  shown.onclick = () => {
    window.focus();
    shown.close();
    deliver('focus', notice.surface_id);
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
