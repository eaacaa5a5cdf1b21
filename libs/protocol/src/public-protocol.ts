import Type, { type Static } from 'typebox';
import { EVENT_TYPES, Presentation, type EventType } from './events';
import { HOOK_FIELD_LIMITS, HOOK_METHODS, type HookMethod } from './hooks';
import { MAX_KEYSTROKE_CHARS, PID_MAX } from './limits';
import { LayoutNameSchema, LayoutTree } from './layout';
import { ManagedWorktree, ResolvedPane, SurfaceEntry, WorkspaceEntry, WorkspaceRef } from './model';
import { RestartAttempt, RestartMode } from './resume';
import { MachineFilter, MachineRow, MachineSpec, MachineName, RoutedTarget, TERMINAL_METHODS, type TerminalMethod } from './machines';
import { closed, Empty, SendTextResult, SurfaceTarget } from './public-shapes';
import { method, type MethodSpec } from './schema';
import { MAX_SELECTOR_CHARS, SELECTOR_STAGES, type SelectorStage } from './selectors';
import { SessionRow, StatusObject } from './status';
import { SupervisorMethods } from './supervisor-methods';
import { Env, nullable, ReadResult, Scope, SearchResult, SurfaceId, Uuid } from './wire';

/**
 * The public protocol on `paneflow.sock` (REFERENCE.md §2): one request per connection except
 * `events.subscribe`. Serve implements it; the CLI, the MCP bridge, the hook and the faces use it.
 */
export { PUBLIC_PROTOCOL_VERSION } from './versions';
const Origin = Type.Union([Type.Literal('cli'), Type.Literal('mcp'), Type.Literal('flow')]);
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
  ...SupervisorMethods,
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
