import { isSameProcess } from '@paneflow/proc';
import { HOST_PROTOCOL_VERSION, statusChangedFrame, type CliState, type EventFrameOf, type ReducedStatus, type SessionRow, type StatusObject, type Supervision } from '@paneflow/protocol';
import { ActivityLog } from './activity';
import { nextReasonChangeMs, reduce as reduceEntry, type Notice } from '@paneflow/reducer';
import type { ServeContext } from './context';
import type { PaneRecord } from './model';
import { Subagents } from './subagents';
import { TurnLedger } from './turns/ledger';
import { paneTitle, promptTitle, providerSessionId, stateOf, statusObject, type View } from './views';

/** At most one notification of a kind per pane in this window (OSC7501.md §11.4). */
const NOTIFICATION_INTERVAL_MS = 1000;

type StatusChange = EventFrameOf<'status_changed'>;

/** A pane's status as it was before a reduction, for the parts that act on a change. */
export interface Before {
  status: ReducedStatus;
  state: CliState;
  stateSeq: number;
}

/** A part that acts after each reduction (the supervisor's), once the status is out. */
export type Follower = (view: View, pane: PaneRecord | undefined, before: Before, now: number) => void;

/** A part's share of a status object's `supervision`. */
export type SupervisionPart = (view: View, now: number) => Partial<Supervision>;

const NO_SUPERVISION: Supervision = { queued: 0, queue_held: null, stalled: null, limit: null, auto_answer: null };

/**
 * Reduction (REFERENCE.md §3): every change to a view goes through `reduce`, which moves the
 * entry, publishes `status_changed` when something a client shows changed, raises notices once,
 * saves what must survive a restart, and wakes the clock when time alone will change the reason.
 */
export class Reduction {
  private readonly lastNotice = new Map<string, number>();
  /** Callbacks waiting for a session's next status changes (a submit's confirmation). */
  private readonly watchers = new Map<string, Set<(change: StatusChange) => void>>();
  /** Status objects' `revision`: from the clock, so a restarted serve's are newer than its predecessor's. */
  private revision: number;
  /** §3.4's bounded log of outcome changes. */
  readonly activity = new ActivityLog();
  /** The subagents each agent runs now (§7.2), shown in its status object. */
  readonly subagents: Subagents;
  /** A record per turn: every reduction may begin, advance or end one. */
  readonly turns: TurnLedger;
  private readonly followers: Follower[] = [];
  private readonly supervisionParts: SupervisionPart[] = [];

  constructor(private readonly ctx: ServeContext) {
    this.revision = ctx.clock.now() * 1000;
    this.subagents = new Subagents(ctx.endpoints.home, ctx.log);
    this.turns = new TurnLedger(ctx);
  }

  reduce(view: View): void {
    const now = this.ctx.clock.now();
    const before = { ...view.entry, state: stateOf(view) };
    const { entry, notices } = reduceEntry(view.entry, {
      record: view.declared,
      running: view.lifecycle === 'live',
      agent: view.agent,
      lastSignalAtMs: view.lastSignalAtMs,
      hook: { notificationMessage: view.hook.notification_message, lastResult: view.hook.last_result },
      nowMs: now,
    });
    view.entry = entry;
    if (entry.status === 'attention' && before.status !== 'attention') view.attentionSinceMs = now;
    if (entry.status !== 'attention') view.attentionSinceMs = null;
    const pane = this.ctx.model.paneBySession(view.session);
    const changed =
      entry.stateSeq !== before.stateSeq ||
      entry.status !== before.status ||
      entry.reason !== before.reason ||
      entry.outcome !== before.outcome ||
      entry.unread !== before.unread ||
      stateOf(view) !== before.state;
    if (entry.outcome !== before.outcome && pane) {
      const runtimeId = view.agent?.runtimeId ?? view.lastRuntimeId;
      this.activity.append({ at_ms: now, surface_id: pane.surface_id, session: view.session, runtime_id: runtimeId, state_seq: entry.stateSeq, previous: before.outcome, outcome: entry.outcome });
    }
    if (changed) {
      this.ctx.counters.status_changes++;
      if (pane) this.publishStatus(view, pane);
      this.save(view);
    }
    for (const notice of notices) this.notify(view, pane, notice);
    // After the status is out: the ledger's work (git, files) must not hold up a face's frame.
    this.turns.observe(view, pane, now);
    for (const follower of this.followers) follower(view, pane, { status: before.status, state: before.state, stateSeq: before.stateSeq }, now);
    this.scheduleClock(view, now);
  }

  /** `follower` acts after every reduction from now on. */
  follow(follower: Follower): void {
    this.followers.push(follower);
  }

  /** `part` adds its fields to every status object's `supervision`. */
  addSupervision(part: SupervisionPart): void {
    this.supervisionParts.push(part);
  }

  /** The pane's status object now (REFERENCE.md §3.7), with the revision of this moment. */
  statusOf(view: View, pane: PaneRecord): StatusObject {
    const status = statusObject(view, pane, this.ctx.model.workspaceIndex(pane.workspace_id), this.ctx.catalog, this.ctx.clock.now());
    const now = this.ctx.clock.now();
    const supervision = Object.assign({ ...NO_SUPERVISION }, ...this.supervisionParts.map((part) => part(view, now))) as Supervision;
    return { ...status, hidden: this.hidden(status.runtime_id), subagents: this.subagents.running(view.session, view.generation), supervision, revision: this.revision };
  }

  /**
   * Whether the config hides this agent (its runtime's `visibility_config_key` set to false, §10):
   * decided here once, so `fleet.list`, notices and every face's sidebar agree.
   */
  hidden(runtimeId: string | null): boolean {
    const key = runtimeId ? this.ctx.catalog.bySlug.get(runtimeId)?.display.visibility_config_key : undefined;
    return key !== undefined && this.ctx.config.current.visibility[key] === false;
  }

  /** Every pane's status again (the config showed or hid agents): faces redraw their sidebars. */
  announceAll(): void {
    for (const view of this.ctx.views.values()) this.announce(view);
  }

  /** The status object changed outside the reducer (the session's lifecycle, its restart): faces hear it. */
  announce(view: View): void {
    const pane = this.ctx.model.paneBySession(view.session);
    if (pane) this.publishStatus(view, pane);
  }

  /** One `status_changed` frame, carrying the whole status object. */
  private publishStatus(view: View, pane: PaneRecord) {
    this.revision++;
    const status = this.statusOf(view, pane);
    const frame: Omit<StatusChange, 'at_ms'> = statusChangedFrame(status);
    this.ctx.publish(frame);
    for (const watcher of this.watchers.get(view.session) ?? []) watcher({ ...frame, at_ms: this.ctx.clock.now() });
  }

  /** Calls `watcher` with each status change of the session until the returned function is called. */
  watch(session: string, watcher: (change: StatusChange) => void): () => void {
    let set = this.watchers.get(session);
    if (!set) this.watchers.set(session, (set = new Set()));
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (set.size === 0) this.watchers.delete(session);
    };
  }

  /** The user has seen the pane: its Done is read. */
  ack(view: View): void {
    this.turns.looked();
    if (!view.entry.unread) return;
    view.entry = { ...view.entry, unread: false };
    const pane = this.ctx.model.paneBySession(view.session);
    if (pane) this.publishStatus(view, pane);
    this.save(view);
  }

  private save(view: View) {
    const saved = this.ctx.model.entries.get(view.session);
    const { status, stateSeq, outcome, unread } = view.entry;
    if (saved && saved.status === status && saved.state_seq === stateSeq && saved.outcome === outcome && saved.unread === unread) return;
    this.ctx.model.entries.set(view.session, { status, state_seq: stateSeq, outcome, unread });
    this.ctx.model.changed();
  }

  /** The reason (detecting → no_signal) changes with time alone (the stall has its own clock, stalls.ts). */
  private scheduleClock(view: View, now: number) {
    this.ctx.clock.clearTimeout(view.clockTimer);
    view.clockTimer = null;
    const times: number[] = [];
    const reasonAt = nextReasonChangeMs(view.entry, view.agent);
    if (reasonAt !== null) times.push(reasonAt);
    if (times.length === 0) return;
    view.clockTimer = this.ctx.clock.setTimeout(() => {
      view.clockTimer = null;
      if (this.ctx.views.get(view.session) === view) this.reduce(view);
    }, Math.max(0, Math.min(...times) - now) + 1);
  }

  /**
   * A supervisor's notice (a stall, a usage limit, a held queue, a rule's answer…), under the same
   * hidden and rate-limit rules as the reducer's: none for a hidden agent, one a kind per pane per
   * second; also for a pane whose agent `runtimeId` has left it (a continue that found it gone).
   */
  notice(view: View, notice: Notice, runtimeId = view.agent?.runtimeId ?? null): void {
    this.notify(view, this.ctx.model.paneBySession(view.session), notice, runtimeId);
  }

  private notify(view: View, pane: PaneRecord | undefined, notice: Notice, runtimeId = view.agent?.runtimeId ?? null) {
    if (!pane || !runtimeId) return;
    if (this.hidden(runtimeId)) {
      this.ctx.counters.notifications_hidden++;
      return;
    }
    const key = `${view.session}:${notice.kind}`;
    const now = this.ctx.clock.now();
    if (now - (this.lastNotice.get(key) ?? 0) < NOTIFICATION_INTERVAL_MS) {
      this.ctx.counters.notifications_rate_limited++;
      return;
    }
    this.lastNotice.set(key, now);
    this.ctx.counters.notifications++;
    const title = pane.name ?? promptTitle(view.hook.prompt) ?? this.ctx.catalog.bySlug.get(runtimeId)?.label ?? 'Agent';
    this.ctx.publish({ type: 'notification', surface_id: pane.surface_id, session: view.session, kind: notice.kind, title, body: notice.body });
  }

  /** A session row (REFERENCE.md §3.8). */
  row(view: View, pane: PaneRecord): SessionRow {
    const identity = view.process;
    const health =
      view.lifecycle === 'live' || view.lifecycle === 'starting'
        ? 'live'
        : view.lifecycle === 'lost' && identity && isSameProcess(identity.pid, identity.started_at)
          ? 'non_resumable'
          : 'stopped';
    return {
      session: view.session,
      surface_id: pane.surface_id,
      generation: view.generation,
      workspace: this.ctx.model.workspaceIndex(pane.workspace_id),
      workspace_id: pane.workspace_id,
      title: paneTitle(view, pane),
      cwd: view.cwd,
      lifecycle: view.lifecycle,
      live: view.lifecycle === 'live',
      health,
      status: view.entry.status,
      state_seq: view.entry.stateSeq,
      activity_source: view.agent && view.declared ? 'declared' : 'none',
      outcome: view.entry.outcome,
      runtime_id: view.lastRuntimeId,
      foreground_runtime_id: view.lifecycle === 'live' ? (view.observation?.id ?? null) : null,
      declared_status: view.declared,
      capable: view.capableAtMs !== null,
      unread: view.entry.unread,
      hook_revision: view.hook.revision,
      provider_session_id: providerSessionId(view),
      transcript_path: view.resume?.transcript_path ?? view.hook.transcript_path,
      exit_code: view.exitCode,
      lost_reason: view.lifecycle === 'lost' ? (view.lost?.reason ?? null) : null,
      restart: view.restart,
      host_protocol: view.hostProtocol,
      host_build_id: view.hostBuildId,
      updated_at_ms: view.updatedAtMs,
      // Started by an older host: its launch and records may lack what this serve relies on (§1.3).
      ...(view.hostProtocol < HOST_PROTOCOL_VERSION ? { restart_recommended: true } : {}),
    };
  }

  publishSessionChanged(view: View): void {
    const pane = this.ctx.model.paneBySession(view.session);
    if (pane) this.ctx.publish({ type: 'session_changed', surface_id: pane.surface_id, session: view.session, row: this.row(view, pane) });
  }
}
