import Type, { type Static } from 'typebox';
import { MACHINE_NAME_PATTERN } from './machine-names';
import { nullable, TimeMs } from './wire';

export * from './machine-names';

/**
 * Many machines, one workspace (issue 32): each machine runs its own host and serve, unchanged;
 * this machine's serve reaches another through the user's own `ssh`, which runs `paneflow rpc
 * --stdio` there (the bridge below). Everything here is what crosses the link or names it.
 */

export const MachineName = Type.String({ pattern: MACHINE_NAME_PATTERN });

/**
 * How a machine is reached: an ssh destination (`host`, `user@host`, a `Host` of ~/.ssh/config;
 * never starting with `-`, which ssh would read as an option), `-o` options added to the
 * command line, and the remote's `paneflow` when it is not on the login's PATH.
 */
export const MachineSpec = Type.Object(
  {
    destination: Type.String({ minLength: 1, maxLength: 255, pattern: '^[^-\\s][^\\s]*$' }),
    ssh_options: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1024, pattern: '^[^-\\s]' }), { maxItems: 32 })),
    remote_command: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
  },
  { additionalProperties: false },
);
export type MachineSpec = Static<typeof MachineSpec>;

/**
 * A link's state: `connecting` (first attempt), `connected` (the remote serve answered and its
 * events follow), `reconnecting` (it was connected; retrying with backoff), `offline` (never got
 * through, or gave up for now: `reason` says why; retried with backoff all the same).
 */
export const MachineState = Type.Union([Type.Literal('connecting'), Type.Literal('connected'), Type.Literal('reconnecting'), Type.Literal('offline')]);
export type MachineState = Static<typeof MachineState>;

/** `machine.list`'s row, and `fleet.list`'s `machines`. */
export const MachineRow = Type.Object({
  name: MachineName,
  destination: Type.String(),
  state: MachineState,
  /** Why it is not connected, in one line (ssh's own words where it said any). */
  reason: nullable(Type.String()),
  /** Since when it is in this state. */
  since_ms: TimeMs,
  /** When its serve last answered or sent a frame: its rows are as of then. */
  last_seen_ms: nullable(TimeMs),
  /** Agents it has (as last seen). */
  agents: Type.Integer({ minimum: 0 }),
  /** The remote Paneflow, once it said hello. */
  remote: nullable(Type.Object({ version: Type.String(), protocol: Type.Integer() })),
});
export type MachineRow = Static<typeof MachineRow>;

/** The `machine` of a row: its machine's name, null for this one. */
export const MachineField = { machine: Type.Optional(nullable(MachineName)) };
/** A request for a pane of another machine: served there, under that machine's gates. */
export const RoutedTarget = { machine: Type.Optional(MachineName) };
/** A list narrowed to one machine (`null`: this one); absent, every machine. */
export const MachineFilter = { machine: Type.Optional(nullable(MachineName)) };

/** The bridge's words (`paneflow rpc --stdio`): in a module of their own, which the bridge loads without the schemas. */
export { BRIDGE_CANCEL, BRIDGE_END, BRIDGE_FRAME, BRIDGE_HELLO, BRIDGE_HOST, TERMINAL_METHODS, type BridgeHello, type TerminalMethod } from './bridge';

/** ssh options every link adds (the user's own config is read first and still applies). */
export const LINK_SSH_OPTIONS = ['BatchMode=yes', 'ServerAliveInterval=10', 'ServerAliveCountMax=3', 'ConnectTimeout=10'] as const;
/** How long the link waits for the bridge's hello (ssh's connect, the remote starting its Paneflow). */
export const LINK_HELLO_DEADLINE_MS = 30_000;
/** A request carried to another machine that has no answer in this long fails (`machine_timeout`). */
export const LINK_REQUEST_DEADLINE_MS = 15_000;
/** Retries after a link drops or fails: these waits, the last repeated. */
export const LINK_BACKOFF_MS = [500, 1000, 2000, 5000, 10_000, 30_000] as const;
/** How long a digest waits for each other machine's part (asked of them all at once). */
export const DIGEST_MACHINE_WAIT_MS = 3000;
/** A remote's frames that change its rows are gathered this long before it is read again. */
export const LINK_REFRESH_MS = 100;
