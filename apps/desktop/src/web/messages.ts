// What crosses the web face's WebSocket, as JSON text: the page's calls of api.ts and their
// answers, and the pushes of dispatch.ts. Terminal output stays the base64 text the host sends and
// the renderer's mirrors take (MirrorSink.data), so no frame is decoded only to be encoded again.

/** Where the page opens its socket. */
export const SOCKET_PATH = '/ws';

/** A call of the page (api.ts `Invoke`). */
export interface ClientMessage {
  id: number;
  channel: string;
  args: unknown[];
}

/** An answer to a call, or a push (dispatch.ts `Push`). */
export type ServerMessage =
  | { id: number; result: unknown }
  | { id: number; error: { message: string; code: number | null; reason: string | null } }
  | { push: 'frame' | 'end' | 'mirror' | 'focus'; args: unknown[] };
