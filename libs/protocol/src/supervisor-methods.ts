import Type from 'typebox';
import { ACTIVITY_LOG_ENTRIES, TURNS_KEPT } from './limits';
import { MachineFilter, MachineRow, RoutedTarget } from './machines';
import { closed, Empty, SendTextResult, SurfaceTarget } from './public-shapes';
import { method } from './schema';
import { ActivityEntry, CliState, InboxItem, StatusObject } from './status';
import { AutoAnswer, PaneQueue, QueuedPrompt, QueueId, RuleStatus } from './supervisor';
import { DigestAgent, TurnRecord } from './turns';
import { nullable, Scope, SurfaceId, TimeMs, Uuid } from './wire';

// The public methods of the fleet and the supervisor (additions to REFERENCE.md §2): every agent
// of every machine, the inbox and its answers, the turn ledger and the digest, the queue and the
// answer rules. Part of `PublicMethods` (public-protocol.ts), in its order.

/** A pane, or a session (whose pane may have closed); neither: every one. */
const TurnTarget = { surface_id: Type.Optional(SurfaceId), session: Type.Optional(Uuid), ...RoutedTarget };
/** A queue write's caller: where its names resolve, and the workspace it speaks for (as `surface.send_text`'s). */
const QueueScope = { scope: Type.Optional(Scope), workspace_id: Type.Optional(Type.String()) };

export const SupervisorMethods = {
  /**
   * Every agent of every machine (`machine` on each: null for this one), other machines' as last
   * seen, and those machines' links (`machines`), so a face can say a row is stale and how old.
   */
  'fleet.list': method(Type.Object(MachineFilter, closed), Type.Object({ agents: Type.Array(StatusObject), machines: Type.Optional(Type.Array(MachineRow)) })),
  /** The latest outcome changes (§3.4's activity log, an addition), oldest first; of one pane with `surface_id`. */
  'fleet.activity': method(
    Type.Object({ surface_id: Type.Optional(SurfaceId), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: ACTIVITY_LOG_ENTRIES })) }, closed),
    Type.Object({ entries: Type.Array(ActivityEntry) }),
  ),
  /** Every agent waiting for its person, oldest wait first (an addition: the attention inbox). */
  'fleet.inbox': method(
    Type.Object(MachineFilter, closed),
    Type.Object({ items: Type.Array(InboxItem), answered: Type.Optional(Type.Array(AutoAnswer)), machines: Type.Optional(Type.Array(MachineRow)) }),
  ),
  /**
   * Answers a waiting agent the way its runtime's `[answers]` say, only while it still waits at
   * `state_seq`; confirmed like a submit: `left_waiting` says whether its state moved on within 3 s.
   */
  'surface.answer': method(
    Type.Object(
      {
        ...SurfaceTarget,
        answer: Type.String({ minLength: 1, maxLength: 4096 }),
        state_seq: Type.Integer({ minimum: 0 }),
        scope: Type.Optional(Scope),
        workspace_id: Type.Optional(Type.String()),
      },
      closed,
    ),
    Type.Object({ surface_id: SurfaceId, answered: Type.Literal(true), left_waiting: Type.Boolean(), state: CliState, state_seq: Type.Integer({ minimum: 0 }) }),
  ),
  /**
   * The turn ledger (additions to REFERENCE.md): turns of one pane (`surface_id`) or one session
   * (also after its pane closed), else of every pane, oldest first; `since_ms` keeps those still
   * running or ended since then, `limit` the newest that many.
   */
  'turn.list': method(
    Type.Object({ ...TurnTarget, since_ms: Type.Optional(TimeMs), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: TURNS_KEPT })) }, closed),
    Type.Object({ turns: Type.Array(TurnRecord) }),
  ),
  /**
   * git's diff of one turn (`turn`, default the latest) of a pane or session: its start snapshot
   * against its end (`against: "end"`), or, for a turn still running or interrupted, against the
   * working tree now (`"worktree"`); `stat` for git's --stat. Plain text, cut at TURN_DIFF_MAX_BYTES.
   */
  'turn.diff': method(
    Type.Object({ ...TurnTarget, turn: Type.Optional(Type.Integer({ minimum: 1 })), stat: Type.Optional(Type.Boolean()) }, closed),
    Type.Object({ turn: TurnRecord, diff: Type.String(), truncated: Type.Boolean(), against: Type.Union([Type.Literal('end'), Type.Literal('worktree')]) }),
  ),
  /** Removes every ended turn's record and git ref (of one pane or session, or all). */
  'turn.prune': method(Type.Object(TurnTarget, closed), Type.Object({ records: Type.Integer({ minimum: 0 }), refs: Type.Integer({ minimum: 0 }) })),
  /**
   * While you were away: per agent, its turns since `since_ms` (default: when the person last
   * looked — an ack, `fleet.looked` from a face — else the last 24 hours), what they changed and
   * cost, and what it waits for now. Other machines' agents too (issue 32), asked of each connected
   * one for the same window and waited for at most DIGEST_MACHINE_WAIT_MS: a machine that does not
   * answer in time is left out, and `machines` says which were not connected.
   */
  'fleet.digest': method(
    Type.Object({ since_ms: Type.Optional(TimeMs), ...MachineFilter }, closed),
    Type.Object({ since_ms: TimeMs, looked_at_ms: nullable(TimeMs), agents: Type.Array(DigestAgent), machines: Type.Optional(Type.Array(MachineRow)) }),
  ),
  /** A face says its person is looking now (the digest's default `since_ms`). */
  'fleet.looked': method(Empty, Type.Object({ looked_at_ms: TimeMs })),
  /**
   * The supervisor's queue (additions): `queue.add` keeps a prompt until the pane's agent ends its
   * declared turn (to one idle already it goes at once); each delivery is a submit through the
   * busy guard and its confirmation, like `surface.send_text`. Writes need the scripting gate.
   */
  'queue.add': method(
    Type.Object({ ...SurfaceTarget, text: Type.String({ minLength: 1 }), ...QueueScope }, closed),
    Type.Object({ item: QueuedPrompt, sent_now: Type.Boolean() }),
  ),
  'queue.list': method(Type.Object({ surface_id: Type.Optional(SurfaceId), ...RoutedTarget }, closed), Type.Object({ queues: Type.Array(PaneQueue) })),
  /** The writes below are checked against the caller's scope as `queue.add` is (the item's pane). */
  'queue.remove': method(Type.Object({ id: QueueId, ...QueueScope, ...RoutedTarget }, closed), Type.Object({ removed: QueuedPrompt })),
  /** Moves a queued prompt to `position` (1: next) within its pane's queue. */
  'queue.move': method(Type.Object({ id: QueueId, position: Type.Integer({ minimum: 1 }), ...QueueScope, ...RoutedTarget }, closed), PaneQueue),
  /** Sends a queued prompt now, whatever the turn (released from a hold); `force` as `surface.send_text`'s. */
  'queue.send_now': method(Type.Object({ id: QueueId, force: Type.Optional(Type.Boolean()), ...QueueScope, ...RoutedTarget }, closed), Type.Object({ id: QueueId, sent: SendTextResult })),
  /**
   * Answer rules (config.json `answer_rules`): which there are and whether they act (`enabled`:
   * `rules.set_enabled` turns them all off or on at once, kept across restarts; they act only
   * where the scripting gate is open, `gated` says when it is not), which one would answer a
   * declared permission `message`, and turning them off or on.
   */
  'rules.list': method(Empty, Type.Object({ enabled: Type.Boolean(), gated: Type.Boolean(), delay_ms: Type.Integer({ minimum: 0 }), rules: Type.Array(RuleStatus) })),
  'rules.test': method(
    Type.Object({ message: Type.String({ maxLength: 65536 }), runtime_id: Type.Optional(Type.String()) }, closed),
    Type.Object({ rule: nullable(Type.String()), answer: nullable(Type.String()), reason: Type.String() }),
  ),
  'rules.set_enabled': method(Type.Object({ enabled: Type.Boolean() }, closed), Type.Object({ enabled: Type.Boolean() })),
};
