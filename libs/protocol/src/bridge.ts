// Kept apart from machines.ts (which holds schemas): the bridge, a process of its own on every
// link, loads this and nothing of typebox.

/**
 * The bridge (`paneflow rpc --stdio`): newline-delimited JSON-RPC 2.0 on stdin/stdout, any number
 * of requests at once, each a public method carried to the local serve on its own connection and
 * answered with its id. It says hello first (`BRIDGE_HELLO`, before any answer), so the far side
 * knows Paneflow is there. An `events.subscribe` answers as usual; its frames follow as
 * `BRIDGE_FRAME` notifications naming the request's id as `stream`, and `BRIDGE_END` says the
 * stream ended; `BRIDGE_CANCEL` (a request) ends one. The bridge exits when stdin ends.
 *
 * `BRIDGE_END`'s params are `{stream, reason?}`: no reason when serve closed the stream, a
 * sentence when the bridge gave it up (its output to the link too far behind). `BRIDGE_CANCEL`'s
 * are `{stream}`; it answers `{}`, or -32020 with reason `unknown_stream`, and no frame of that
 * stream follows its answer.
 */
export const BRIDGE_HELLO = 'rpc.hello';
/**
 * A request to the far host (`{method, params}`), for a face that shows a far pane's terminal
 * (`machine.terminal`): only `TERMINAL_METHODS`; `session.output` with `follow` streams its
 * frames as an events stream does. The bridge runs as the far user and says hello to its own
 * host with its own secret; what it types there comes as that user's keyboard (`origin: user`).
 */
export const BRIDGE_HOST = 'rpc.host';
/** What a face may ask of a far host: a terminal's checkpoint, its output, keyboard input and size. */
export const TERMINAL_METHODS = ['session.attach', 'session.output', 'session.input', 'session.resize'] as const;
export type TerminalMethod = (typeof TERMINAL_METHODS)[number];
export const BRIDGE_FRAME = 'rpc.frame';
export const BRIDGE_END = 'rpc.end';
export const BRIDGE_CANCEL = 'rpc.cancel';
export interface BridgeHello {
  name: 'paneflow-rpc';
  version: string;
  protocol: number;
}
