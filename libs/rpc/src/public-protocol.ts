import Type, { type Static } from 'typebox';
import { method } from './schema';
import { DeclaredStatus, Env, Lifecycle, nullable, ReadResult, SearchResult, SurfaceId, TimeMs, Uuid } from './wire';

/**
 * The public protocol on `paneflow.sock` (REFERENCE.md §2): one request per connection except
 * `events.subscribe`. Serve implements it; the CLI, the MCP bridge, the hook and the desktop use it.
 */
export { PUBLIC_PROTOCOL_VERSION } from './versions';
const closed = { additionalProperties: false } as const;
const Empty = Type.Object({}, closed);
const Scope = Type.Union([Type.Literal('workspace'), Type.Literal('all')]);
const Origin = Type.Union([Type.Literal('cli'), Type.Literal('mcp'), Type.Literal('flow')]);
const Layout = Type.Union([Type.Literal('even_h'), Type.Literal('even_v'), Type.Literal('main_vertical'), Type.Literal('tiled')]);

export const ReducedStatus = Type.Union([Type.Literal('busy'), Type.Literal('idle'), Type.Literal('attention'), Type.Literal('errored')]);
export const CliState = Type.Union([
  Type.Literal('thinking'),
  Type.Literal('waiting_for_input'),
  Type.Literal('finished'),
  Type.Literal('errored'),
  Type.Literal('stalled'),
  Type.Literal('idle'),
  Type.Literal('unknown_running'),
]);
export const SignalReason = Type.Union([
  Type.Literal('no_agent'),
  Type.Literal('declared'),
  Type.Literal('capable'),
  Type.Literal('detecting'),
  Type.Literal('no_signal'),
]);

/** REFERENCE.md §3.7: `surface.status`, `status --json`, the entries of `fleet.list`. */
export const StatusObject = Type.Object({
  surface_id: SurfaceId,
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
  /** The agent's own session id (from its hooks), to resume it; an addition to REFERENCE.md §3.7. */
  provider_session_id: nullable(Type.String()),
  waiting_ms: nullable(TimeMs),
  idle_ms: nullable(TimeMs),
  output_generation: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type StatusObject = Static<typeof StatusObject>;

/** REFERENCE.md §3.8: `session.list` rows. */
export const SessionRow = Type.Object({
  session: Uuid,
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
  host_protocol: Type.Integer(),
  host_build_id: Type.String(),
  updated_at_ms: TimeMs,
  restart_recommended: Type.Optional(Type.Boolean()),
});

const WorkspaceRef = Type.Object({ index: Type.Integer({ minimum: 0 }), id: Uuid, name: Type.String() });
const SurfaceTarget = { surface_id: SurfaceId };
const ManagedWorktree = Type.Object(
  {
    path: Type.String(),
    repo_root: Type.String(),
    branch: Type.String(),
    teardown: Type.Union([Type.Literal('auto'), Type.Literal('keep')]),
    action: Type.Union([Type.Literal('create'), Type.Literal('reuse')]),
  },
  closed,
);
/** A pane of a resolved workspace spec (REFERENCE.md §5.1): paths absolute, env expanded. */
const ResolvedPane = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1 })),
    cwd: Type.String({ minLength: 1 }),
    command: Type.Optional(Type.String({ minLength: 1 })),
    agent: Type.Optional(Type.String({ minLength: 1 })),
    prompt: Type.Optional(Type.String()),
    focus: Type.Boolean(),
    env: Env,
    managed_worktree: Type.Optional(ManagedWorktree),
  },
  closed,
);
type LayoutNode = { split: 'h' | 'v'; ratio: number; children: LayoutNode[] } | { surface_id: number };
const LayoutTree = Type.Cyclic(
  {
    Node: Type.Union([
      Type.Object(
        {
          split: Type.Union([Type.Literal('h'), Type.Literal('v')]),
          ratio: Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }),
          children: Type.Array(Type.Ref('Node'), { minItems: 2 }),
        },
        closed,
      ),
      Type.Object({ surface_id: SurfaceId }, closed),
    ]),
  },
  'Node',
);
export type LayoutTree = LayoutNode;

const SurfaceListEntry = Type.Object({
  surface_id: SurfaceId,
  name: nullable(Type.String()),
  title: Type.String(),
  cwd: Type.String(),
  cmd: Type.String(),
  workspace: Type.Integer({ minimum: 0 }),
  workspace_id: Uuid,
  session: Uuid,
});

/** The metadata one hook event carries (REFERENCE.md §7.1). */
const HookParams = Type.Object(
  {
    tool: Type.String(),
    session: Type.String(),
    surface_id: Type.Optional(SurfaceId),
    workspace_id: Type.Optional(Type.String()),
    pid: Type.Optional(nullable(Type.Integer())),
    emitted_at_ms: TimeMs,
    payload: Type.Record(Type.String(), Type.Unknown()),
  },
  closed,
);
const HookResult = Type.Object({ accepted: Type.Boolean(), reason: Type.Optional(Type.String()) });

const SendTextResult = Type.Object({
  surface_id: SurfaceId,
  sent: Type.Boolean(),
  submitted: Type.Boolean(),
  agent_target: Type.Boolean(),
  paste: Type.Boolean(),
  submit_mode: nullable(Type.Union([Type.Literal('deferred_paste_cr'), Type.Literal('inline_cr')])),
  terminal_bracketed_paste: Type.Boolean(),
  state_seq: Type.Optional(Type.Integer()),
});

export const EVENT_TYPES = [
  'heartbeat',
  'dropped',
  'surface_changed',
  'status_changed',
  /** A pane's current OSC 7501 record changed, agent or not: the pane header shows it. */
  'declared_changed',
  'notification',
  'session_changed',
  'surface_created',
  'surface_closed',
  'workspace_changed',
  'focus_changed',
  'ai.session_start',
  'ai.session_end',
  'ai.prompt_submit',
  'ai.tool_use',
  'ai.notification',
  'ai.stop',
  'ai.subagent',
  'ai.exit',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

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
      /** What the desktop needs of the config: no animation when `reduce_motion`. */
      presentation: Type.Object({ reduce_motion: Type.Boolean() }),
    }),
  ),
  'serve.shutdown': method(Type.Object({ drain_ms: Type.Optional(Type.Integer({ minimum: 0 })) }, closed), Empty),
  'workspace.list': method(
    Empty,
    Type.Object({
      workspaces: Type.Array(
        Type.Object({
          index: Type.Integer({ minimum: 0 }),
          id: Uuid,
          name: Type.String(),
          active: Type.Boolean(),
          surfaces: Type.Array(SurfaceId),
          /** The split tree the desktop draws, and the pane in front. */
          layout: nullable(LayoutTree),
          focus: nullable(SurfaceId),
        }),
      ),
    }),
  ),
  'workspace.current': method(Empty, WorkspaceRef),
  'workspace.create': method(
    Type.Object({ name: Type.Optional(Type.String()), cwd: Type.Optional(Type.String()), layout: Type.Optional(Layout) }, closed),
    Type.Object({ ...WorkspaceRef.properties, surface_id: SurfaceId }),
  ),
  'workspace.select': method(Type.Object({ index: Type.Integer({ minimum: 0 }) }, closed), Type.Object({ index: Type.Integer(), id: Uuid })),
  'workspace.close': method(Type.Object({ index: Type.Optional(Type.Integer({ minimum: 0 })) }, closed), Type.Object({ closed: Type.Integer() })),
  'workspace.up': method(
    Type.Object({ name: Type.String(), layout: Layout, panes: Type.Array(ResolvedPane, { minItems: 1, maxItems: 32 }) }, closed),
    Type.Object({
      workspace: WorkspaceRef,
      surfaces: Type.Array(Type.Object({ name: nullable(Type.String()), surface_id: SurfaceId, session: Uuid })),
    }),
  ),
  'workspace.restore_layout': method(Type.Object({ layout: LayoutTree }, closed), Empty),
  'surface.list': method(
    Type.Object({ scope: Type.Optional(Scope), workspace_id: Type.Optional(Type.String()) }, closed),
    Type.Object({ surfaces: Type.Array(SurfaceListEntry) }),
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
      },
      closed,
    ),
    SendTextResult,
  ),
  'surface.send_keystroke': method(
    Type.Object(
      { ...SurfaceTarget, keystroke: Type.String({ minLength: 1 }), scope: Type.Optional(Scope), workspace_id: Type.Optional(Type.String()) },
      closed,
    ),
    Type.Object({ sent: Type.Literal(true) }),
  ),
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
      },
      closed,
    ),
    Type.Object({ surface_id: SurfaceId, session: Uuid }),
  ),
  'fleet.list': method(Empty, Type.Object({ agents: Type.Array(StatusObject) })),
  'session.list': method(Empty, Type.Object({ sessions: Type.Array(SessionRow) })),
  'session.ack': method(Type.Object({ sessions: Type.Array(Uuid) }, closed), Type.Object({ acked: Type.Array(Uuid) })),
  'events.subscribe': method(
    Type.Object(
      {
        surfaces: Type.Optional(Type.Array(SurfaceId)),
        types: Type.Optional(Type.Array(Type.Unsafe<EventType>(Type.Union(EVENT_TYPES.map((t) => Type.Literal(t)))))),
      },
      closed,
    ),
    Type.Object({ type: Type.Literal('subscribed'), surfaces: nullable(Type.Array(SurfaceId)), types: nullable(Type.Array(Type.String())) }),
  ),
  'ai.session_start': method(HookParams, HookResult),
  'ai.session_end': method(HookParams, HookResult),
  'ai.prompt_submit': method(HookParams, HookResult),
  'ai.tool_use': method(HookParams, HookResult),
  'ai.notification': method(HookParams, HookResult),
  'ai.stop': method(HookParams, HookResult),
  'ai.subagent': method(HookParams, HookResult),
  'ai.exit': method(HookParams, HookResult),
};
export type PublicMethods = typeof PublicMethods;
