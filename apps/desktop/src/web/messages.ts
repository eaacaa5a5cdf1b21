// What crosses the web face's WebSocket: JSON-RPC 2.0, as on Paneflow's other sockets. The page's
// calls of api.ts are requests (method: the call, params: its arguments); the pushes of
// dispatch.ts are notifications (method: the push). Terminal output stays the base64 text the host
// sends and the renderer's mirrors take (MirrorSink.data), so no frame is decoded only to be
// encoded again.

/** Where the page opens its socket. */
export const SOCKET_PATH = '/ws';
