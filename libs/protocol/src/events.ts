import Type, { type Static, type TSchema } from 'typebox';
import { HOOK_METHODS, type HookMethod } from './hooks';
import { MachineField, MachineRow } from './machines';
import { SurfaceEntry, WorkspaceEntry, type WorkspaceEntry as WorkspaceEntryType } from './model';
import { CliState, NoticeKind, ReducedStatus, SessionRow, SignalReason, StatusObject } from './status';
import { TurnRecord } from './turns';
import { DeclaredStatus, nullable, SurfaceId, TimeMs, Uuid } from './wire';

/**
 * The frames of `events.subscribe` (REFERENCE.md §2.5), one schema each. Every frame carries the
 * data that changed, so a client keeps its picture from the stream alone and re-reads only
 * after a `dropped` frame.
 */

const frame = <T extends string, P extends Record<string, TSchema>>(type: T, fields: P) =>
  Type.Object({ type: Type.Literal(type), at_ms: TimeMs, ...fields });
/** A pane's frame; another machine's (for a subscriber that asked for `machines`) names it. */
const pane = { surface_id: SurfaceId, session: Uuid, ...MachineField };

/** What the faces need of the config (§10): no animation when `reduce_motion`; attach's prefix key and notifications. */
export const Presentation = Type.Object({ reduce_motion: Type.Boolean(), attach: Type.Object({ prefix: Type.String(), notifications: Type.Boolean() }) });
export type Presentation = Static<typeof Presentation>;

/** An accepted hook frame, re-broadcast (§7.2); `surface_id` is absent for a session without a pane. */
const hookFrame = <M extends HookMethod>(method: M) =>
  frame(method, { surface_id: Type.Optional(SurfaceId), session: Uuid, tool: Type.String(), payload: Type.Record(Type.String(), Type.Unknown()) });
const hookFrames = Object.fromEntries(HOOK_METHODS.map((method) => [method, hookFrame(method)])) as { [M in HookMethod]: ReturnType<typeof hookFrame<M>> };

export const EventFrames = {
  heartbeat: frame('heartbeat', {}),
  dropped: frame('dropped', { count: Type.Integer({ minimum: 1 }) }),
  /** Pane output advanced; coalesced to one frame per pane per 50 ms, with the latest value. */
  surface_changed: frame('surface_changed', { ...pane, output_generation: Type.Integer({ minimum: 0 }) }),
  /** The reduced status, state, reason, outcome or unread changed; `surface_status` is the whole status object. */
  status_changed: frame('status_changed', {
    ...pane,
    state_seq: Type.Integer({ minimum: 0 }),
    status: ReducedStatus,
    state: CliState,
    reason: SignalReason,
    outcome: nullable(Type.String()),
    unread: Type.Boolean(),
    surface_status: StatusObject,
  }),
  /** A pane's current OSC 7501 record changed, agent or not: the pane header shows it. */
  declared_changed: frame('declared_changed', { ...pane, declared: nullable(DeclaredStatus) }),
  notification: frame('notification', { ...pane, kind: NoticeKind, title: Type.String(), body: nullable(Type.String()) }),
  session_changed: frame('session_changed', { ...pane, row: SessionRow }),
  /** A new pane, with its status object (an addition; a face reads `surface.status` for a frame without one). */
  surface_created: frame('surface_created', { ...pane, workspace: Type.Integer({ minimum: 0 }), surface: SurfaceEntry, surface_status: Type.Optional(StatusObject) }),
  /** A pane's name, title, command or directory changed. */
  surface_updated: frame('surface_updated', { ...pane, surface: SurfaceEntry }),
  surface_closed: frame('surface_closed', { ...pane, workspace: Type.Integer({ minimum: 0 }) }),
  /**
   * A workspace was created, renamed, selected, re-laid out or closed: its `workspace.list` entry
   * as it is now. A closed one says `closed` and gives the index it had; later ones move up by one.
   */
  workspace_changed: frame('workspace_changed', { ...WorkspaceEntry.properties, closed: Type.Optional(Type.Literal(true)) }),
  focus_changed: frame('focus_changed', { ...pane, workspace: Type.Integer({ minimum: 0 }) }),
  /** The config changed what the faces show (an addition): `serve.status`'s `presentation` as it is now, so `reduce_motion` applies live. */
  presentation_changed: frame('presentation_changed', { presentation: Presentation }),
  /** The turn ledger (additions): a turn began (its record so far), a turn ended (its whole record: change and tokens read). */
  turn_started: frame('turn_started', { ...pane, turn: TurnRecord }),
  /** A machine's link changed state, or its agents (issue 32; only to a subscriber that asked for `machines`). */
  machine_changed: frame('machine_changed', { machine: MachineRow }),
  turn_ended: frame('turn_ended', { ...pane, turn: TurnRecord }),
  ...hookFrames,
};

export type EventType = keyof typeof EventFrames;
export const EVENT_TYPES = Object.keys(EventFrames) as EventType[];

// The layout tree is recursive: its static type is written by hand (layout.ts).
type FrameOf<K extends EventType> = K extends 'workspace_changed'
  ? Omit<Static<(typeof EventFrames)[K]>, 'layout'> & { layout: WorkspaceEntryType['layout'] }
  : Static<(typeof EventFrames)[K]>;
/** One frame of the stream, told apart by `type`. */
export type EventFrame = { [K in EventType]: FrameOf<K> }[EventType];
export type EventFrameOf<K extends EventType> = Extract<EventFrame, { type: K }>;

/** The `status_changed` frame a status object makes: its pane, and the fields a subscriber reads without the whole object. */
export function statusChangedFrame(status: StatusObject): Omit<EventFrameOf<'status_changed'>, 'at_ms'> {
  const { surface_id, session, machine, state_seq, status: reduced, state, reason, outcome, unread } = status;
  return { type: 'status_changed', surface_id, session, ...(machine ? { machine } : {}), state_seq, status: reduced, state, reason, outcome, unread, surface_status: status };
}
