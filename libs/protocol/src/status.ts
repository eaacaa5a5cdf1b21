import Type, { type Static } from 'typebox';
import { MachineField } from './machines';
import { LossReason, RestartAttempt } from './resume';
import { Supervision } from './supervisor';
import { BlockedKind, DeclaredStatus, Lifecycle, nullable, SurfaceId, TimeMs, Uuid } from './wire';

/**
 * The status vocabulary (REFERENCE.md §3): what serve's reducer computes and every client shows.
 * The reducer, the CLI, the MCP bridge and the renderers all read these names from here.
 */

/** §3.2. `busy` and `attention` are in turn. */
export const ReducedStatus = Type.Union([Type.Literal('busy'), Type.Literal('idle'), Type.Literal('attention'), Type.Literal('errored')]);
export type ReducedStatus = Static<typeof ReducedStatus>;

/** §3.6, the `state` of the CLI and every status object. */
export const CliState = Type.Union([
  Type.Literal('thinking'),
  Type.Literal('waiting_for_input'),
  Type.Literal('finished'),
  Type.Literal('errored'),
  Type.Literal('stalled'),
  Type.Literal('idle'),
  Type.Literal('unknown_running'),
]);
export type CliState = Static<typeof CliState>;

/**
 * The turn: a reduced status of `busy` or `attention` (§3.2). A turn record begins when a pane's
 * status enters it and ends when it leaves (the ledger); a submit would answer an agent in its
 * turn (§4.4), and closing its pane asks first (§1.4).
 */
export const statusInTurn = (status: ReducedStatus): boolean => status === 'busy' || status === 'attention';
/** The same predicate on the CLI state: thinking (or stalled, which is busy shown otherwise) or waiting for input. */
export const inTurn = (state: CliState): boolean => state === 'thinking' || state === 'stalled' || state === 'waiting_for_input';

/** §3.3. */
export const SignalReason = Type.Union([
  Type.Literal('no_agent'),
  Type.Literal('declared'),
  Type.Literal('capable'),
  Type.Literal('detecting'),
  Type.Literal('no_signal'),
]);
export type SignalReason = Static<typeof SignalReason>;

/** §3.5. */
export const NoticeKind = Type.Union([
  Type.Literal('needs_input'),
  Type.Literal('finished'),
  Type.Literal('error'),
  // The supervisor's (libs/protocol/src/supervisor.ts): what it did or saw, each said once.
  Type.Literal('answered_by_rule'),
  Type.Literal('stalled'),
  Type.Literal('usage_limit'),
  Type.Literal('queue_held'),
  Type.Literal('continue_not_started'),
]);
export type NoticeKind = Static<typeof NoticeKind>;

/** §3.7: `surface.status`, `status --json`, the entries of `fleet.list`. */
export const StatusObject = Type.Object({
  surface_id: SurfaceId,
  ...MachineField,
  surface_name: nullable(Type.String()),
  workspace: Type.Integer({ minimum: 0 }),
  session: Uuid,
  tool: nullable(Type.String()),
  runtime_id: nullable(Type.String()),
  pid: nullable(Type.Integer()),
  state: CliState,
  status: ReducedStatus,
  reason: SignalReason,
  hooked: Type.Boolean(),
  declared: nullable(DeclaredStatus),
  state_seq: Type.Integer({ minimum: 0 }),
  outcome: nullable(Type.String()),
  unread: Type.Boolean(),
  active_tool_name: nullable(Type.String()),
  message: nullable(Type.String()),
  last_result: nullable(Type.String()),
  /** The agent's own session id (its hooks' or its session files'), to resume it; an addition to REFERENCE.md §3.7. */
  provider_session_id: nullable(Type.String()),
  /** Additions for the faces' "lost — resume": the session's lifecycle and the restart that began it. */
  lifecycle: Lifecycle,
  restart: nullable(RestartAttempt),
  /**
   * An addition: grows with every status serve publishes, and across serve restarts (it starts
   * from the clock); an answer carries the count of its moment. Of two objects for one pane, the
   * higher is the newer, whichever way each came (an answer can overtake events in flight).
   */
  revision: Type.Integer({ minimum: 0 }),
  waiting_ms: nullable(TimeMs),
  idle_ms: nullable(TimeMs),
  output_generation: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Additions. `hidden`: the agent's `visibility_config_key` is false in the config, so faces, `ps` and notices leave it out (serve decides). */
  hidden: Type.Optional(Type.Boolean()),
  /** The ids of the agent's subagents running now (its `SubagentStart` hooks without a `SubagentStop`), oldest first. */
  subagents: Type.Optional(Type.Array(Type.String())),
  /** The supervisor's queue, observations and latest automatic answer (libs/protocol/src/supervisor.ts). */
  supervision: Type.Optional(Supervision),
});
export type StatusObject = Static<typeof StatusObject>;

/** An addition to REFERENCE.md §3.4: one outcome change in serve's bounded activity log (`fleet.activity`). */
export const ActivityEntry = Type.Object({
  at_ms: TimeMs,
  surface_id: SurfaceId,
  session: Uuid,
  runtime_id: nullable(Type.String()),
  state_seq: Type.Integer({ minimum: 0 }),
  previous: nullable(Type.String()),
  outcome: nullable(Type.String()),
});
export type ActivityEntry = Static<typeof ActivityEntry>;

/**
 * How a waiting agent can be answered from outside its pane (`[answers]` of its runtime, for the
 * kind it declared): by name (`yes`, `always`, `no`), and with free text where `text` is true.
 */
export const AnswerChoices = Type.Object({ choices: Type.Array(Type.String()), text: Type.Boolean() });
export type AnswerChoices = Static<typeof AnswerChoices>;

/** An addition to REFERENCE.md: one agent waiting for its person, as `fleet.inbox` lists it. */
export const InboxItem = Type.Object({
  surface_id: SurfaceId,
  ...MachineField,
  surface_name: nullable(Type.String()),
  workspace: Type.Integer({ minimum: 0 }),
  workspace_id: Uuid,
  workspace_name: Type.String(),
  tool: nullable(Type.String()),
  runtime_id: nullable(Type.String()),
  /** What it waits for, as declared (OSC 7501 `kind`); null from a hook's notification alone. */
  kind: nullable(BlockedKind),
  message: nullable(Type.String()),
  /** When the wait began (ms since the epoch), and how long ago that was. */
  since_ms: TimeMs,
  waiting_ms: TimeMs,
  /** The wait's `state_seq`: an answer names it, so that it never reaches a later prompt. */
  state_seq: Type.Integer({ minimum: 0 }),
  answers: nullable(AnswerChoices),
});
export type InboxItem = Static<typeof InboxItem>;

/** §3.8: `session.list` rows. */
export const SessionRow = Type.Object({
  session: Uuid,
  ...MachineField,
  surface_id: SurfaceId,
  generation: Type.Integer(),
  workspace: Type.Integer({ minimum: 0 }),
  workspace_id: Uuid,
  title: Type.String(),
  cwd: Type.String(),
  lifecycle: Lifecycle,
  live: Type.Boolean(),
  health: Type.Union([Type.Literal('live'), Type.Literal('stopped'), Type.Literal('non_resumable')]),
  status: ReducedStatus,
  state_seq: Type.Integer({ minimum: 0 }),
  activity_source: Type.Union([Type.Literal('declared'), Type.Literal('none')]),
  outcome: nullable(Type.String()),
  runtime_id: nullable(Type.String()),
  foreground_runtime_id: nullable(Type.String()),
  declared_status: nullable(DeclaredStatus),
  capable: Type.Boolean(),
  unread: Type.Boolean(),
  hook_revision: Type.Integer({ minimum: 0 }),
  provider_session_id: nullable(Type.String()),
  transcript_path: nullable(Type.String()),
  /** Additions: how the session ended (exit code, or why it was lost) and the restart that began it. */
  exit_code: nullable(Type.Integer()),
  lost_reason: nullable(LossReason),
  restart: nullable(RestartAttempt),
  host_protocol: Type.Integer(),
  host_build_id: Type.String(),
  updated_at_ms: TimeMs,
  restart_recommended: Type.Optional(Type.Boolean()),
});
export type SessionRow = Static<typeof SessionRow>;
