// The one narrow API the renderer gets (`window.paneflow`), built over a transport: Electron's
// ipcRenderer in the preload, a page binding in the browser test harness. Every channel is listed
// here and in dispatch.ts, and nowhere else.

import type { InstanceClient, MirrorSink } from '@paneflow/client';

/** The calls the renderer makes (each an IPC channel `paneflow:<call>`, or a web-face message). */
export const CALLS = ['request', 'subscribe', 'unsubscribe', 'attach', 'detach', 'history', 'input', 'resize', 'notify'] as const;
export type Call = (typeof CALLS)[number];

/** A session's screen with up to HISTORY_ROWS rows above it, read once (`InstanceClient.history`). */
export type History = Awaited<ReturnType<InstanceClient['history']>>;

export interface Notice {
  title: string;
  body: string;
  surface_id: number;
  /** Another machine's pane (issue 32): its id is that machine's, so a click must not bring this machine's forward. */
  machine?: string | null;
}

/** A request's outcome as data: what crosses the context bridge keeps serve's code and `data.reason`. */
export type Settled = { result: unknown } | { error: { code: number; message: string; reason: string | null } };

export interface PaneflowApi {
  request(method: string, params?: unknown): Promise<unknown>;
  /** `request`, but serve's refusal answers (with its code and reason) instead of throwing. */
  settle(method: string, params?: unknown): Promise<Settled>;
  /** Returns a function that ends the subscription. `onEnd` runs when serve goes away. */
  subscribe(params: unknown, onFrame: (frame: Record<string, unknown>) => void, onEnd: () => void): Promise<() => void>;
  attach(session: string, listener: MirrorSink): () => void;
  /** The host's deeper history of a session, for the view past the mirror's top. */
  history(session: string): Promise<History>;
  input(session: string, text: string): Promise<void>;
  resize(session: string, cols: number, rows: number): Promise<void>;
  notify(notice: Notice): void;
  /** The main process asks to bring a pane forward (a notification was clicked): `machine` is null for this machine's. */
  onFocusSurface(listener: (surfaceId: number, machine: string | null) => void): void;
}

/** Renderer → main calls that answer. */
export type Invoke = (channel: Call, ...args: unknown[]) => Promise<unknown>;
/** Main → renderer pushes: `frame` (id, frame), `end` (id), `mirror` (session, kind, payload), `focus` (surface id, machine or null). */
export type Listen = (channel: 'frame' | 'end' | 'mirror' | 'focus', listener: (...args: unknown[]) => void) => void;

export function createApi(invoke: Invoke, listen: Listen): PaneflowApi {
  const frames = new Map<number, { onFrame: (frame: Record<string, unknown>) => void; onEnd: () => void }>();
  const mirrors = new Map<string, MirrorSink>();
  // A frame can overtake the answer that names its subscription: held until the answer comes.
  const early = new Map<number, Record<string, unknown>[]>();
  const ended = new Set<number>();
  listen('frame', (id, frame) => {
    const entry = frames.get(id as number);
    if (entry) entry.onFrame(frame as Record<string, unknown>);
    else if (!ended.has(id as number)) early.set(id as number, [...(early.get(id as number) ?? []), frame as Record<string, unknown>]);
  });
  listen('end', (id) => {
    const entry = frames.get(id as number);
    frames.delete(id as number);
    early.delete(id as number);
    ended.add(id as number);
    entry?.onEnd();
  });
  listen('mirror', (session, kind, payload) => {
    const listener = mirrors.get(session as string);
    if (!listener) return;
    if (kind === 'reset') listener.reset(payload as Parameters<MirrorSink['reset']>[0]);
    else if (kind === 'data') listener.data(payload as string);
    else if (kind === 'resized') listener.resized(payload as Parameters<MirrorSink['resized']>[0]);
    else listener.state(payload as Parameters<MirrorSink['state']>[0]);
  });
  return {
    request: (method, params = {}) => invoke('request', method, params),
    settle: (method, params = {}) => invoke('request', method, params, true) as Promise<Settled>,
    async subscribe(params, onFrame, onEnd) {
      const id = (await invoke('subscribe', params)) as number;
      frames.set(id, { onFrame, onEnd });
      for (const frame of early.get(id) ?? []) onFrame(frame);
      early.delete(id);
      return () => {
        frames.delete(id);
        ended.add(id);
        void invoke('unsubscribe', id);
      };
    },
    attach(session, listener) {
      mirrors.set(session, listener);
      void invoke('attach', session);
      return () => {
        if (mirrors.get(session) !== listener) return;
        mirrors.delete(session);
        void invoke('detach', session);
      };
    },
    history: (session) => invoke('history', session) as Promise<History>,
    input: async (session, text) => void (await invoke('input', session, text)),
    resize: async (session, cols, rows) => void (await invoke('resize', session, cols, rows)),
    notify: (notice) => void invoke('notify', notice),
    onFocusSurface: (listener) => listen('focus', (id, machine) => listener(id as number, typeof machine === 'string' ? machine : null)),
  };
}
