import Type, { type Static } from 'typebox';
import { HOST_FOLLOW_MAX_FRAMES, OUTPUT_GATHER_MAX_MS } from './limits';
import { Loss, RestartAttempt, RestartMode, ResumeRecord } from './resume';
import { method } from './schema';
import {
  DeclaredStatus,
  Env,
  Lifecycle,
  nullable,
  Observation,
  ReadResult,
  SearchResult,
  SurfaceId,
  TimeMs,
  Uuid,
  WireRecord,
} from './wire';

/**
 * The host's private protocol (REFERENCE.md §1.2): newline-delimited JSON-RPC 2.0, many requests
 * per connection, `host.hello` first. Only Paneflow's own processes speak it.
 */
export { HOST_PROTOCOL_VERSION } from './versions';
const closed = { additionalProperties: false } as const;
const Session = Type.Object({ session: Uuid }, closed);
const Empty = Type.Object({}, closed);
const InputOrigin = Type.Union([Type.Literal('user'), Type.Literal('automation')]);

export const Launch = Type.Object({
  /** The program executed, and its arguments: `$SHELL -l`, `$SHELL -c <command>`, or an argv. */
  shell: Type.String(),
  args: Type.Array(Type.String()),
  /** The pane's own variables, over the host's environment. */
  env: Env,
  /** Variables of the host's environment left out. */
  env_remove: Type.Optional(Type.Array(Type.String())),
  cols: Type.Integer(),
  rows: Type.Integer(),
});

/**
 * What serve learned from a session's hook events (REFERENCE.md §7.2): metadata only, never state.
 * The host keeps it in the manifest so that it survives a serve restart.
 */
export const HookMetadata = Type.Object({
  revision: Type.Integer({ minimum: 0 }),
  /** The agent process whose hooks were accepted. */
  pid: nullable(Type.Integer()),
  last_hook: nullable(Type.Object({ method: Type.String(), emitted_at_ms: TimeMs })),
  provider_session_id: nullable(Type.String()),
  transcript_path: nullable(Type.String()),
  prompt: nullable(Type.String()),
  notification_message: nullable(Type.String()),
  last_result: nullable(Type.String()),
  active_tool_name: nullable(Type.String()),
});
export type HookMetadata = Static<typeof HookMetadata>;

export const Manifest = Type.Object({
  session: Uuid,
  generation: Type.Integer({ minimum: 1 }),
  /** The host instance that started this generation; another instance marks it lost. */
  instance: Uuid,
  workspace_id: Type.String(),
  surface_id: SurfaceId,
  name: nullable(Type.String()),
  cwd: Type.String(),
  launch: Launch,
  lifecycle: Lifecycle,
  exit_code: nullable(Type.Integer()),
  exit_signal: nullable(Type.Integer()),
  /** `started_at` is the kernel start time: with the pid it proves which process this is. */
  process: nullable(Type.Object({ pid: Type.Integer(), started_at: Type.Integer(), pgid: Type.Integer() })),
  title: Type.String(),
  records: Type.Array(WireRecord),
  declared_status: nullable(DeclaredStatus),
  /** When a program in the pane first queried OSC 7501 support or reported; null if none did. */
  program_status_capable_at_ms: nullable(TimeMs),
  /** The last query or report: a program is capable when this comes after its start. */
  last_status_signal_at_ms: nullable(TimeMs),
  /** The foreground agent now; for an exited session, the one in front when it exited. */
  runtime: Type.Object({ current_observation: nullable(Observation), last_runtime_id: nullable(Type.String()) }),
  output_generation: Type.Integer({ minimum: 0 }),
  screen_changed_at_ms: nullable(TimeMs),
  /** The last screen text when the process exited (≤ 512 KiB). */
  final_output: nullable(Type.String()),
  /** Absent in manifests written before hooks were kept. */
  hook: Type.Optional(nullable(HookMetadata)),
  /** The agent's conversation, to resume it; absent before resume records were kept. */
  resume: Type.Optional(nullable(ResumeRecord)),
  /** The restart that began this generation; null for a first start. */
  restart: Type.Optional(nullable(RestartAttempt)),
  /** Why the session is lost, when it is. */
  lost: Type.Optional(nullable(Loss)),
  /** The kernel's boot id when this generation started: another one at adoption means a reboot. */
  boot_id: Type.Optional(Type.String()),
  host_protocol_version: Type.Integer(),
  host_build_id: Type.String(),
  created_at_ms: TimeMs,
  updated_at_ms: TimeMs,
});
export type Manifest = Static<typeof Manifest>;

/**
 * A person's input (origin `user`) while the program declared it waits (`blocked`): the host's
 * client that carried it (`desktop`, `web`, `attach`), when, and its last TYPED_INPUT_CHARS
 * characters — none while it waits for credentials (`auth`). Kept until the program next
 * declares a wait: what answered a question (the turn ledger).
 */
export const TypedInput = Type.Object({ client: Type.String(), at_ms: TimeMs, text: nullable(Type.String()) });
export type TypedInput = Static<typeof TypedInput>;
export const TYPED_INPUT_CHARS = 256;

/** What a follower needs of one session to hold a complete picture of it. */
export const SessionState = Type.Object({
  session: Uuid,
  generation: Type.Integer(),
  /** When this generation started: hook events emitted before it belong to an earlier one. */
  generation_started_at_ms: TimeMs,
  lifecycle: Lifecycle,
  exit_code: nullable(Type.Integer()),
  pid: nullable(Type.Integer()),
  title: Type.String(),
  output_generation: Type.Integer(),
  records: Type.Array(WireRecord),
  declared_status: nullable(DeclaredStatus),
  program_status_capable_at_ms: nullable(TimeMs),
  last_status_signal_at_ms: nullable(TimeMs),
  observation: nullable(Observation),
  last_runtime_id: nullable(Type.String()),
  /** The foreground command line (argv joined by spaces) and its cwd, agent or not. */
  foreground_cmd: Type.String(),
  foreground_cwd: nullable(Type.String()),
  resume: nullable(ResumeRecord),
  restart: nullable(RestartAttempt),
  typed: Type.Optional(nullable(TypedInput)),
});
export type SessionState = Static<typeof SessionState>;

const HelloResult = Type.Object({ protocol: Type.Integer(), build_id: Type.String(), instance: Uuid, home: Type.String() });
const CreateParams = Type.Object(
  {
    session: Type.Optional(Uuid),
    workspace_id: Type.String(),
    surface_id: SurfaceId,
    name: Type.Optional(nullable(Type.String())),
    cwd: Type.String({ minLength: 1 }),
    /** Run through `$SHELL -c`; without it and without `argv`, a login shell. */
    command: Type.Optional(Type.String({ minLength: 1 })),
    /** Run directly, no shell in between. */
    argv: Type.Optional(Type.Array(Type.String(), { minItems: 1 })),
    env: Env,
    /** Variables of the host's environment not to pass on (a runtime's `strip_inherited`). */
    env_remove: Type.Optional(Type.Array(Type.String())),
    cols: Type.Integer({ minimum: 2, maximum: 1000 }),
    rows: Type.Integer({ minimum: 1, maximum: 1000 }),
    /** Rows kept above the screen (default 100,000), within 8 MiB compressed; past either the oldest go (apps/host README). */
    scrollback: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  },
  closed,
);
const CreateResult = Type.Object({ session: Uuid, generation: Type.Integer(), pid: Type.Integer() });

export const HostMethods = {
  'host.hello': method(
    Type.Object(
      {
        client: Type.String({ minLength: 1 }),
        protocol: Type.Integer(),
        /**
         * The content of `<home>/host/secret` (0600, new at each host start). Required: optional
         * here only so that a hello without it reaches the host's check, which refuses it (-32001)
         * and closes the connection.
         */
        secret: Type.Optional(Type.String()),
      },
      closed,
    ),
    HelloResult,
  ),
  'host.status': method(
    Empty,
    Type.Intersect([
      HelloResult,
      Type.Object({
        pid: Type.Integer(),
        sessions: Type.Object({ live: Type.Integer(), exited: Type.Integer(), failed: Type.Integer(), lost: Type.Integer() }),
        counters: Type.Record(Type.String(), Type.Number()),
      }),
    ]),
  ),
  /** Refused (-32023, `data.live`) while sessions are live, unless `force` stops them first. */
  'host.shutdown': method(Type.Object({ force: Type.Optional(Type.Boolean()) }, closed), Empty),
  'session.create': method(CreateParams, CreateResult),
  /** Returns the live session of that id, or creates it. */
  'session.ensure': method(
    Type.Object({ ...CreateParams.properties, session: Uuid }, closed),
    Type.Object({ ...CreateResult.properties, created: Type.Boolean() }),
  ),
  'session.list': method(Empty, Type.Object({ sessions: Type.Array(Manifest) })),
  'session.inspect': method(Session, Type.Intersect([Manifest, Type.Object({ frame_seq: Type.Integer() })])),
  /**
   * A mirror's start: the serialized screen and the output offset it corresponds to, taken
   * together. `scrollback` (default: all kept) caps the rows of scrollback it carries; of the deep
   * store's, only the newest whose replay fits in CHECKPOINT_REPLAY_BYTES. `scrollback_rows` is
   * how many it carries, `dropped_rows` as in `session.read`.
   */
  'session.attach': method(
    Type.Object({ session: Uuid, scrollback: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })) }, closed),
    Type.Object({
      checkpoint: Type.String(),
      output_offset: Type.Integer({ minimum: 0 }),
      instance: Uuid,
      generation: Type.Integer(),
      cols: Type.Integer(),
      rows: Type.Integer(),
      scrollback_rows: Type.Integer({ minimum: 0 }),
      dropped_rows: Type.Integer({ minimum: 0 }),
    }),
  ),
  /**
   * The raw output from `offset` (-32021 when it has left the 8 MiB tail). Without `follow`, what
   * there is now; with it, a stream of OutputFrame from `offset` on, keepalive every 2 s unless
   * `keepalive: false` (a face that must not wake while nothing happens; closing ends it all the same).
   * The stream gathers output `gather_ms` (16 by default) into one frame; the echo of a person's
   * input goes at once.
   */
  'session.output': method(
    Type.Object(
      {
        session: Uuid,
        offset: Type.Integer({ minimum: 0 }),
        follow: Type.Optional(Type.Boolean()),
        keepalive: Type.Optional(Type.Boolean()),
        gather_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: OUTPUT_GATHER_MAX_MS })),
      },
      closed,
    ),
    Type.Object({ chunks: Type.Array(Type.Object({ offset: Type.Integer(), data: Type.String() })), end_offset: Type.Integer(), following: Type.Boolean() }),
  ),
  /**
   * Writes to the session's PTY. `user` input (a real keyboard) also removes done and error
   * records; automation never does. With `paste` the host, which owns the terminal's modes, wraps
   * the text as a bracketed paste when the program enabled mode 2004 (`bracketed` says whether);
   * an automation paste it cannot bracket that holds CR or LF is refused (-32602 `raw_newline`),
   * since it would submit. `bracketed_paste_mode` is the program's mode as the terminal has parsed it.
   */
  'session.input': method(
    Type.Object({ session: Uuid, text: Type.String(), origin: InputOrigin, paste: Type.Optional(Type.Boolean()) }, closed),
    Type.Object({ written: Type.Integer(), bracketed: Type.Boolean(), bracketed_paste_mode: Type.Boolean() }),
  ),
  /**
   * One keystroke (`[ctrl-|alt-|shift-]*<name>`, REFERENCE.md §4.5), encoded by the host in the
   * program's cursor-key mode. Keys that would submit are refused (-32602 `refused_keystroke`).
   */
  'session.key': method(Type.Object({ session: Uuid, keystroke: Type.String({ minLength: 1 }), origin: InputOrigin }, closed), Type.Object({ written: Type.Integer() })),
  'session.resize': method(
    Type.Object({ session: Uuid, cols: Type.Integer({ minimum: 2, maximum: 1000 }), rows: Type.Integer({ minimum: 1, maximum: 1000 }) }, closed),
    Empty,
  ),
  /** Lines counted from the end: `offset` 0 ends at the last line. */
  'session.read': method(
    Type.Object(
      {
        session: Uuid,
        lines: Type.Optional(Type.Integer()),
        offset: Type.Optional(Type.Integer({ minimum: 0 })),
      },
      closed,
    ),
    ReadResult,
  ),
  /** Case-insensitive substring over every kept line; `line` is 1-based from the oldest. */
  'session.search': method(
    Type.Object({ session: Uuid, pattern: Type.String({ minLength: 1 }), max_matches: Type.Optional(Type.Integer()) }, closed),
    SearchResult,
  ),
  /**
   * The CPU time the session's process tree has used (the PTY child and its descendants, each
   * with its reaped children's), in milliseconds; `processes` 0 when nothing runs. A total can
   * fall when a member exits outside the tree: compare totals for a change (serve's stall facts).
   */
  'session.cpu': method(Session, Type.Object({ cpu_ms: Type.Integer({ minimum: 0 }), processes: Type.Integer({ minimum: 0 }) })),
  /** Ends the process tree (TERM, then KILL) within the 5 s stop budget. */
  'session.stop': method(Session, Empty),
  /**
   * Starts the session again as generation + 1 (only exited, failed or lost sessions): an agent
   * with a known conversation id runs its runtime's `session_argv`, else its `continue_argv`,
   * else the recorded launch — `fresh` asks for the recorded launch at once. No input is replayed.
   */
  'session.restart': method(
    Type.Object({ session: Uuid, fresh: Type.Optional(Type.Boolean()) }, closed),
    Type.Object({ ...CreateResult.properties, mode: RestartMode, restart: RestartAttempt }),
  ),
  /** Forgets a session that is not live, manifest included. */
  'session.remove': method(Session, Empty),
  /** Records, current record and state of one session or all. */
  'agent.snapshot': method(Type.Object({ session: Type.Optional(Uuid) }, closed), Type.Object({ sessions: Type.Array(SessionState) })),
  /** Keeps serve's hook metadata for the session's current generation; another generation's is refused. */
  'agent.event': method(
    Type.Object({ session: Uuid, generation: Type.Integer({ minimum: 1 }), hook: HookMetadata }, closed),
    Type.Object({ stored: Type.Boolean(), hook_revision: Type.Integer({ minimum: 0 }) }),
  ),
  /**
   * A stream: one `snapshot` frame, then a frame per change (HostFrame). `max_frames`: frames held
   * for a follower that lags before they are all replaced by one snapshot (default 4096; serve
   * asks 1024, §1.3). `keepalive`: a `keepalive` frame after 10 s without frames, so the follower
   * can tell a quiet host from a gone one.
   */
  'agent.follow': method(
    Type.Object({ max_frames: Type.Optional(Type.Integer({ minimum: 1, maximum: HOST_FOLLOW_MAX_FRAMES })), keepalive: Type.Optional(Type.Boolean()) }, closed),
    Type.Object({ following: Type.Literal(true) }),
  ),
};
export type HostMethods = typeof HostMethods;

/** Frames of a `session.output` stream; `data` is base64, `offset` where its first byte sits. */
export const OutputFrame = Type.Union([
  Type.Object({ type: Type.Literal('output_data'), session: Uuid, offset: Type.Integer(), data: Type.String() }),
  Type.Object({ type: Type.Literal('output_evicted'), session: Uuid, offset: Type.Integer() }),
  /** The session this stream followed is gone (restarted as a new generation, or removed). */
  Type.Object({ type: Type.Literal('output_end'), session: Uuid, offset: Type.Integer() }),
  /** The PTY was resized here: what follows was written for this size, so a mirror resizes first. */
  Type.Object({ type: Type.Literal('output_resized'), session: Uuid, offset: Type.Integer(), cols: Type.Integer(), rows: Type.Integer() }),
  Type.Object({ type: Type.Literal('keepalive'), session: Uuid, offset: Type.Integer() }),
]);
export type OutputFrame = Static<typeof OutputFrame>;

/**
 * Frames of `agent.follow`, each a bare JSON object on its own line. `seq` counts every frame the
 * host sends; `session.inspect` tells the count its answer reflects, so a client that holds frames
 * for a session it is about to inspect knows which of them are older than the answer.
 */
export const HostFrame = Type.Union([
  Type.Object({ type: Type.Literal('snapshot'), at_ms: TimeMs, seq: Type.Integer(), sessions: Type.Array(SessionState) }),
  Type.Object({
    type: Type.Literal('status'),
    at_ms: TimeMs, seq: Type.Integer(),
    session: Uuid,
    generation: Type.Integer(),
    records: Type.Array(WireRecord),
    declared_status: nullable(DeclaredStatus),
    program_status_capable_at_ms: nullable(TimeMs),
    last_status_signal_at_ms: nullable(TimeMs),
    typed: Type.Optional(nullable(TypedInput)),
  }),
  Type.Object({
    type: Type.Literal('observation'),
    at_ms: TimeMs, seq: Type.Integer(),
    session: Uuid,
    observation: nullable(Observation),
    last_runtime_id: nullable(Type.String()),
    foreground_cmd: Type.String(),
    foreground_cwd: nullable(Type.String()),
  }),
  Type.Object({
    type: Type.Literal('lifecycle'),
    at_ms: TimeMs, seq: Type.Integer(),
    session: Uuid,
    generation: Type.Integer(),
    lifecycle: Lifecycle,
    exit_code: nullable(Type.Integer()),
    pid: nullable(Type.Integer()),
  }),
  Type.Object({ type: Type.Literal('output'), at_ms: TimeMs, seq: Type.Integer(), session: Uuid, output_generation: Type.Integer() }),
  Type.Object({ type: Type.Literal('title'), at_ms: TimeMs, seq: Type.Integer(), session: Uuid, title: Type.String() }),
  /** The resume record or the restart's outcome changed. */
  Type.Object({ type: Type.Literal('resume'), at_ms: TimeMs, seq: Type.Integer(), session: Uuid, resume: nullable(ResumeRecord), restart: nullable(RestartAttempt) }),
  Type.Object({ type: Type.Literal('removed'), at_ms: TimeMs, seq: Type.Integer(), session: Uuid }),
  /** Only to a follower that asked: nothing else was sent for a while (the count of frames sent so far). */
  Type.Object({ type: Type.Literal('keepalive'), at_ms: TimeMs, seq: Type.Integer() }),
]);
export type HostFrame = Static<typeof HostFrame>;
/** A frame before the host numbers it. */
export type UnnumberedHostFrame = HostFrame extends infer F ? (F extends HostFrame ? Omit<F, 'seq'> : never) : never;

