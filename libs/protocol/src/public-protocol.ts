import Type, { type Static } from 'typebox';
import { EVENT_TYPES, Presentation, type EventType } from './events';
import { HOOK_FIELD_LIMITS, HOOK_METHODS, type HookMethod } from './hooks';
import { ACTIVITY_LOG_ENTRIES, MAX_KEYSTROKE_CHARS, PID_MAX, TURNS_KEPT } from './limits';
import { LayoutNameSchema, LayoutTree } from './layout';
import { ManagedWorktree, ResolvedPane, SurfaceEntry, WorkspaceEntry, WorkspaceRef } from './model';
import { RestartAttempt, RestartMode } from './resume';
import { MachineFilter, MachineRow, MachineSpec, MachineName, RoutedTarget, TERMINAL_METHODS, type TerminalMethod } from './machines';
import { method, type MethodSpec } from './schema';
import { MAX_SELECTOR_CHARS, SELECTOR_STAGES, type SelectorStage } from './selectors';
import { ActivityEntry, CliState, InboxItem, SessionRow, StatusObject } from './status';
import { AutoAnswer, PaneQueue, QueuedPrompt, QueueId, RuleStatus } from './supervisor';
import { DigestAgent, TurnRecord } from './turns';
import { Env, nullable, ReadResult, Scope, SearchResult, SurfaceId, TimeMs, Uuid } from './wire';

/**
 * The public protocol on `paneflow.sock` (REFERENCE.md §2): one request per connection except
 * `events.subscribe`. Serve implements it; the CLI, the MCP bridge, the hook and the faces use it.
 */
export { PUBLIC_PROTOCOL_VERSION } from './versions';
const closed = { additionalProperties: false } as const;
const Empty = Type.Object({}, closed);
const Origin = Type.Union([Type.Literal('cli'), Type.Literal('mcp'), Type.Literal('flow')]);
/** A pane; with `machine`, a pane of that machine, asked of its serve (issue 32). */
const SurfaceTarget = { surface_id: SurfaceId, ...RoutedTarget };
/** A pane, or a session (whose pane may have closed); neither: every one. */
const TurnTarget = { surface_id: Type.Optional(SurfaceId), session: Type.Optional(Uuid), ...RoutedTarget };
/**
 * How closing treats what runs and what was made (an addition to REFERENCE.md §2.3): `unless_busy`
 * refuses (-32030, `close_needs_confirmation`) before anything closes when a pane would need a
 * person's yes (§1.4: an agent in turn, or a program other than the pane's own in front), and
 * (`host_unreachable`) any pane while the host does not answer, since nothing could be stopped;
 * `force_worktree` removes a managed worktree even with uncommitted changes or commits no other
 * branch or remote holds.
 */
const CloseOptions = { unless_busy: Type.Optional(Type.Boolean()), force_worktree: Type.Optional(Type.Boolean()) };
/** What closing did with one pane's managed worktree (§5.4); `reason` says why one was kept. */
export const WorktreeTeardown = Type.Object({ surface_id: SurfaceId, path: Type.String(), branch: Type.String(), removed: Type.Boolean(), reason: nullable(Type.String()) });
export type WorktreeTeardown = Static<typeof WorktreeTeardown>;
const Restarted = Type.Object({ surface_id: SurfaceId, session: Uuid, generation: Type.Integer(), mode: RestartMode, restart: RestartAttempt });

/**
 * What a hook keeps of its event (§7.1): the texts of HOOK_FIELD_LIMITS, each at most its limit
 * (counted here in characters; serve also counts the UTF-8 bytes), and the markers the hook adds.
 */
const hookText = (field: string) => Type.Optional(Type.String({ maxLength: HOOK_FIELD_LIMITS[field] }));
const HookPayload = Type.Object(
  {
    session_id: hookText('session_id'),
    cwd: hookText('cwd'),
    summary: hookText('summary'),
    transcript_path: hookText('transcript_path'),
    prompt: hookText('prompt'),
    tool_name: hookText('tool_name'),
    notification_type: hookText('notification_type'),
    message: hookText('message'),
    last_result: hookText('last_result'),
    agent_id: hookText('agent_id'),
    phase: Type.Optional(Type.Union([Type.Literal('pre'), Type.Literal('post'), Type.Literal('start'), Type.Literal('stop')])),
    source: Type.Optional(Type.Literal('interrupt')),
    exit_code: Type.Optional(nullable(Type.Integer({ minimum: -(2 ** 31), maximum: 2 ** 31 - 1 }))),
  },
  closed,
);

/** The metadata one hook event carries (§7.1); every field bounded, since anything local may send one. */
export const HookParams = Type.Object(
  {
    /** Not only `claude`/`codex`: serve answers `unknown_tool` for another name. */
    tool: Type.String({ maxLength: 64 }),
    session: Uuid,
    surface_id: Type.Optional(SurfaceId),
    workspace_id: Type.Optional(Uuid),
    pid: Type.Optional(nullable(Type.Integer({ minimum: 1, maximum: PID_MAX }))),
    emitted_at_ms: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
    payload: HookPayload,
  },
  closed,
);
/** The params of every `ai.*` method, as the hook builds them. */
export type HookParams = Static<typeof HookParams>;
const HookResult = Type.Object({ accepted: Type.Boolean(), reason: Type.Optional(Type.String()) });
const hookMethods = Object.fromEntries(HOOK_METHODS.map((name) => [name, method(HookParams, HookResult)])) as Record<HookMethod, MethodSpec<typeof HookParams, typeof HookResult>>;

/**
 * §4.4. A submit to a declaring agent is confirmed by serve: `started` says whether its state moved
 * into a turn within 3 s (null when the agent declares nothing), `start_reason` why.
 */
/** A queue write's caller: where its names resolve, and the workspace it speaks for (as `surface.send_text`'s). */
const QueueScope = { scope: Type.Optional(Scope), workspace_id: Type.Optional(Type.String()) };
const SendTextResult = Type.Object({
  surface_id: SurfaceId,
  sent: Type.Boolean(),
  submitted: Type.Boolean(),
  agent_target: Type.Boolean(),
  paste: Type.Boolean(),
  submit_mode: nullable(Type.Union([Type.Literal('deferred_paste_cr'), Type.Literal('inline_cr')])),
  terminal_bracketed_paste: Type.Boolean(),
  state_seq: Type.Optional(Type.Integer()),
  started: Type.Optional(nullable(Type.Boolean())),
  start_reason: Type.Optional(Type.Union([Type.Literal('state_changed'), Type.Literal('not_started'), Type.Literal('no_signal')])),
});

/**
 * A runtime's launcher preset (`[[suggested_presets]]` id): serve starts the command and env the
 * catalog gives it, so a preset needs no write gate (nothing the caller wrote is run).
 */
const PresetId = Type.String({ pattern: '^[a-z0-9_]+$' });

export const PublicMethods = {
  'system.ping': method(Empty, Type.Object({ pong: Type.Literal(true) })),
  'system.capabilities': method(
    Empty,
    Type.Object({ scripting: Type.Boolean(), orchestration: Type.Boolean(), ai_unrestricted: Type.Boolean(), methods: Type.Array(Type.String()) }),
  ),
  'system.identify': method(Empty, Type.Object({ name: Type.Literal('paneflow-serve'), version: Type.String(), protocol: Type.Integer() })),
  'system.counters': method(Empty, Type.Object({ counters: Type.Record(Type.String(), Type.Number()) })),
  'serve.status': method(
    Empty,
    Type.Object({
      pid: Type.Integer(),
      protocol: Type.Integer(),
      home: Type.String(),
      build_id: Type.String(),
      sessions: Type.Integer({ minimum: 0 }),
      capabilities: Type.Object({ scripting: Type.Boolean(), orchestration: Type.Boolean(), ai_unrestricted: Type.Boolean() }),
      /** What the faces need of the config; `presentation_changed` frames follow it. */
      presentation: Presentation,
      /**
       * `degraded` while serve cannot save what changes (the home cannot be written): each
       * problem in a sentence. An addition to REFERENCE.md §2.3.
       */
      health: Type.Object({ state: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]), problems: Type.Array(Type.String()) }),
    }),
  ),
  'serve.shutdown': method(Type.Object({ drain_ms: Type.Optional(Type.Integer({ minimum: 0 })) }, closed), Empty),
  'workspace.list': method(
    Empty,
    Type.Object({
      workspaces: Type.Array(
        WorkspaceEntry,
      ),
    }),
  ),
  'workspace.current': method(Empty, WorkspaceRef),
  'workspace.create': method(
    Type.Object({ name: Type.Optional(Type.String()), cwd: Type.Optional(Type.String()), layout: Type.Optional(LayoutNameSchema), preset: Type.Optional(PresetId) }, closed),
    Type.Object({ ...WorkspaceRef.properties, surface_id: SurfaceId }),
  ),
  'workspace.select': method(Type.Object({ index: Type.Integer({ minimum: 0 }) }, closed), Type.Object({ index: Type.Integer(), id: Uuid })),
  /**
   * By `index` (default: the active one) or by `workspace_id`, which names the same workspace
   * however others come and go while a person confirms (the faces and the CLI close by id).
   */
  'workspace.close': method(
    Type.Object({ index: Type.Optional(Type.Integer({ minimum: 0 })), workspace_id: Type.Optional(Uuid), ...CloseOptions }, closed),
    Type.Object({ closed: Type.Integer(), surfaces: Type.Array(SurfaceId), worktrees: Type.Array(WorktreeTeardown) }),
  ),
  'workspace.up': method(
    Type.Object({ name: Type.String(), layout: LayoutNameSchema, panes: Type.Array(ResolvedPane, { minItems: 1, maxItems: 32 }) }, closed),
    Type.Object({
      workspace: WorkspaceRef,
      surfaces: Type.Array(Type.Object({ name: nullable(Type.String()), surface_id: SurfaceId, session: Uuid })),
    }),
  ),
  'workspace.restore_layout': method(Type.Object({ layout: LayoutTree }, closed), Empty),
  /** With `scope: all`, other machines' panes too (`machine` says whose), unless `machine` narrows. */
  'surface.list': method(
    Type.Object({ scope: Type.Optional(Scope), workspace_id: Type.Optional(Type.String()), ...MachineFilter }, closed),
    Type.Object({ surfaces: Type.Array(SurfaceEntry) }),
  ),
  /**
   * The panes a selector names (REFERENCE.md §4.2), resolved here for every face (an addition to
   * §2.3). No match is -32020 (`no_match`); several at the deciding rule without `many` is -32602
   * (`ambiguous`, with their `surface_ids`). A `cwd:` path comes canonical: only the caller knows
   * its own cwd and home.
   */
  'surface.resolve': method(
    Type.Object(
      {
        selector: Type.String({ minLength: 1, maxLength: MAX_SELECTOR_CHARS }),
        scope: Type.Optional(Scope),
        workspace_id: Type.Optional(Type.String()),
        many: Type.Optional(Type.Boolean()),
        ...RoutedTarget,
      },
      closed,
    ),
    Type.Object({
      surfaces: Type.Array(SurfaceEntry),
      stage: Type.Unsafe<SelectorStage>(Type.Union(SELECTOR_STAGES.map((stage) => Type.Literal(stage)))),
    }),
  ),
  'surface.read': method(
    Type.Object(
      {
        ...SurfaceTarget,
        lines: Type.Optional(Type.Integer()),
        offset: Type.Optional(Type.Integer({ minimum: 0 })),
        fenced: Type.Optional(Type.Boolean()),
        scope: Type.Optional(Scope),
      },
      closed,
    ),
    ReadResult,
  ),
  'surface.search': method(
    Type.Object(
      { ...SurfaceTarget, pattern: Type.String({ minLength: 1 }), max_matches: Type.Optional(Type.Integer()), scope: Type.Optional(Scope) },
      closed,
    ),
    SearchResult,
  ),
  'surface.rename': method(
    Type.Object({ ...SurfaceTarget, name: nullable(Type.String()) }, closed),
    Type.Object({ surface_id: SurfaceId, name: nullable(Type.String()) }),
  ),
  'surface.focus': method(Type.Object(SurfaceTarget, closed), Type.Object({ surface_id: SurfaceId, workspace: Type.Integer() })),
  'surface.status': method(Type.Object(SurfaceTarget, closed), StatusObject),
  'surface.send_text': method(
    Type.Object(
      {
        ...SurfaceTarget,
        text: Type.String(),
        submit: Type.Optional(Type.Boolean()),
        paste: Type.Optional(Type.Boolean()),
        scope: Type.Optional(Scope),
        workspace_id: Type.Optional(Type.String()),
        origin: Type.Optional(Origin),
        /** Submit even to an agent that is thinking or waiting (the busy guard, §4.4). */
        force: Type.Optional(Type.Boolean()),
      },
      closed,
    ),
    SendTextResult,
  ),
  'surface.send_keystroke': method(
    Type.Object(
      {
        ...SurfaceTarget,
        keystroke: Type.String({ minLength: 1, maxLength: MAX_KEYSTROKE_CHARS }),
        scope: Type.Optional(Scope),
        workspace_id: Type.Optional(Type.String()),
        /** Press it even into an agent that waits for an answer (the busy guard, §4.4). */
        force: Type.Optional(Type.Boolean()),
      },
      closed,
    ),
    Type.Object({ sent: Type.Literal(true) }),
  ),
  /**
   * Starts an exited, failed or lost pane again (REFERENCE.md §1.2): its agent's conversation by
   * id, else its latest, else the recorded launch (`fresh`: the launch at once). Answers once the
   * resume is confirmed or failed, or after 15 s with `outcome: "pending"`.
   */
  'surface.restart': method(
    Type.Object({ ...SurfaceTarget, fresh: Type.Optional(Type.Boolean()) }, closed),
    Restarted,
  ),
  /** Every exited, failed or lost agent pane (of one workspace, or all), restarted two at a time. */
  'session.restore': method(Type.Object({ workspace_id: Type.Optional(Uuid) }, closed), Type.Object({ restored: Type.Array(Restarted) })),
  'surface.split': method(
    Type.Object(
      {
        direction: Type.Union([Type.Literal('h'), Type.Literal('horizontal'), Type.Literal('v'), Type.Literal('vertical')]),
        surface_id: Type.Optional(SurfaceId),
        cwd: Type.Optional(Type.String()),
        command: Type.Optional(Type.String({ minLength: 1 })),
        agent: Type.Optional(Type.String({ minLength: 1 })),
        prompt: Type.Optional(Type.String()),
        env: Type.Optional(Env),
        name: Type.Optional(Type.String({ minLength: 1 })),
        managed_worktree: Type.Optional(ManagedWorktree),
        preset: Type.Optional(PresetId),
      },
      closed,
    ),
    Type.Object({ surface_id: SurfaceId, session: Uuid }),
  ),
  /**
   * Waits until a pane's agent is ready for input (§5.2: it declared idle, or its output went
   * quiet for a second after it first printed something; at most 30 s after it started).
   */
  'surface.wait_ready': method(
    Type.Object({ ...SurfaceTarget, timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })) }, closed),
    Type.Object({ ready: Type.Boolean(), by: Type.Union([Type.Literal('declared_idle'), Type.Literal('quiet'), Type.Literal('deadline'), Type.Literal('timeout')]) }),
  ),
  /**
   * Closes a pane: its session stopped and removed, its managed worktree torn down (§5.4). A
   * workspace left without panes closes too.
   */
  'surface.close': method(
    Type.Object({ ...SurfaceTarget, ...CloseOptions }, closed),
    Type.Object({ closed: SurfaceId, workspace_closed: Type.Boolean(), worktrees: Type.Array(WorktreeTeardown) }),
  ),
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
  'session.list': method(Type.Object(MachineFilter, closed), Type.Object({ sessions: Type.Array(SessionRow), machines: Type.Optional(Type.Array(MachineRow)) })),
  /**
   * The machines this serve reaches over ssh (issue 32), kept in config.json's `machines`:
   * `machine.add` refuses a name in use (-32602 `machine_exists`), `machine.remove` an unknown one
   * (-32020 `unknown_machine`). Adding and removing need the orchestration gate, as `workspace.up`.
   */
  'machine.list': method(Empty, Type.Object({ machines: Type.Array(MachineRow) })),
  'machine.add': method(Type.Object({ name: MachineName, ...MachineSpec.properties }, closed), Type.Object({ machine: MachineRow })),
  'machine.remove': method(Type.Object({ name: MachineName }, closed), Type.Object({ removed: MachineName })),
  /**
   * A face working in another machine's workspace (`paneflow attach --machine`): `machine.call`
   * carries any public method (not a stream: `machine.subscribe` carries `events.subscribe`)
   * to that machine's serve, answered under its gates; `machine.terminal` carries a terminal's
   * host methods (`TERMINAL_METHODS`; `session.output` with `follow` streams) to its host, as the
   * far user's keyboard — so only a caller that holds this machine's host secret may, as only such
   * a caller may type into a pane here.
   */
  'machine.call': method(
    Type.Object({ machine: MachineName, method: Type.String({ pattern: '^[a-z_]+\\.[a-z_.]+$', maxLength: 64 }), params: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, closed),
    Type.Unknown(),
  ),
  'machine.subscribe': method(
    Type.Object({ machine: MachineName, params: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }, closed),
    Type.Object({ type: Type.Literal('subscribed'), surfaces: nullable(Type.Array(SurfaceId)), types: nullable(Type.Array(Type.String())) }),
  ),
  'machine.terminal': method(
    Type.Object(
      {
        machine: MachineName,
        host_secret: Type.String({ minLength: 1, maxLength: 256 }),
        method: Type.Unsafe<TerminalMethod>(Type.Union(TERMINAL_METHODS.map((name) => Type.Literal(name)))),
        params: Type.Record(Type.String(), Type.Unknown()),
      },
      closed,
    ),
    Type.Unknown(),
  ),
  /** With `machine`, sessions of that machine, acknowledged by its serve (issue 32). */
  'session.ack': method(Type.Object({ sessions: Type.Array(Uuid), ...RoutedTarget }, closed), Type.Object({ acked: Type.Array(Uuid) })),
  'events.subscribe': method(
    Type.Object(
      {
        surfaces: Type.Optional(Type.Array(SurfaceId)),
        types: Type.Optional(Type.Array(Type.Unsafe<EventType>(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))))),
        /** false: no heartbeats, for a face that must not wake while nothing happens. */
        heartbeat: Type.Optional(Type.Boolean()),
        /**
         * true: other machines' frames too (issue 32), each with its `machine`, and
         * `machine_changed` for their links; `only`: those alone, none of this machine's (a face
         * that follows this machine on another stream); a face that keys panes by id alone leaves it unset.
         */
        machines: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('only')])),
      },
      closed,
    ),
    Type.Object({ type: Type.Literal('subscribed'), surfaces: nullable(Type.Array(SurfaceId)), types: nullable(Type.Array(Type.String())) }),
  ),
  ...hookMethods,
};
export type PublicMethods = typeof PublicMethods;
