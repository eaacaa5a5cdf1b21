import { resolveAgent } from '@paneflow/procscan';
import { readProcStat, isSameProcess } from '@paneflow/proc';
import { inTurn, RpcError, SESSION_STOP_WAIT_MS, type HostMethods, type ManagedWorktree, type ResultOf, type WorktreeTeardown } from '@paneflow/protocol';
import { randomUUID } from 'node:crypto';
import type { ServeContext } from './context';
import { invalid, refusedByState } from './errors';
import type { SessionMirror } from './mirror';
import type { PaneRecord, WorkspaceRecord } from './model';
import type { Readiness } from './prompts';
import type { Reduction } from './status';
import { viewFromManifest } from './views';
import type { Workspaces } from './workspaces';
import { tearDownWorktrees } from './worktrees';

const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;

/** The host gave no answer (it timed out, or the link dropped): what was asked may still happen. */
const unanswered = (error: unknown) => error instanceof RpcError && (error.reason === 'host_timeout' || error.reason === 'host_unavailable');

export interface PaneSpec {
  cwd: string;
  command?: string;
  agent?: string;
  env?: Record<string, string>;
  name?: string | null;
  prompt?: string;
  managed_worktree?: ManagedWorktree | null;
}

const labelOf = (pane: PaneRecord) => `surface ${pane.surface_id}${pane.name ? ` (${pane.name})` : ''}`;

/** Making and ending panes: a session in the host and a record in the model, together. */
export class Panes {
  constructor(
    private readonly ctx: ServeContext,
    private readonly mirror: SessionMirror,
    private readonly readiness: Readiness,
    private readonly workspaces: Workspaces,
    private readonly reduction: Reduction,
  ) {}

  async create(workspace: WorkspaceRecord, spec: PaneSpec): Promise<PaneRecord> {
    const { ctx } = this;
    const runtime = spec.agent ? resolveAgent(ctx.catalog, spec.agent) : null;
    if (spec.agent && !runtime) throw invalid(`unknown agent '${spec.agent}'`, 'unknown_agent', 'agent');
    const surfaceId = ctx.model.nextSurfaceId++;
    const command = spec.command ?? runtime?.tool;
    // The id is chosen here so that the host's first frames for it, which may come before the
    // answer to session.create, wait for its view instead of being taken for a stranger's.
    const session = randomUUID();
    this.mirror.expect(session);
    try {
      let made = false;
      let manifest: ResultOf<HostMethods, 'session.inspect'>;
      try {
        await ctx.host.request('session.create', {
          session,
          workspace_id: workspace.id,
          surface_id: surfaceId,
          name: spec.name ?? null,
          cwd: spec.cwd,
          ...(command ? { command } : {}),
          env: { ...ctx.config.current.terminal_env, ...spec.env },
          ...(runtime && runtime.environment.strip_inherited.length > 0 ? { env_remove: runtime.environment.strip_inherited } : {}),
          cols: DEFAULT_COLS,
          rows: DEFAULT_ROWS,
        });
        made = true;
        manifest = await ctx.host.request('session.inspect', { session });
      } catch (error) {
        // The client hears that this failed, so no session of it may stay: one the host made, or
        // may still make once it answers after all, is removed instead of becoming a pane.
        if (made || unanswered(error)) this.mirror.abandon(session, made);
        throw error;
      }
      const pane: PaneRecord = {
        surface_id: surfaceId,
        session,
        workspace_id: workspace.id,
        name: spec.name ?? null,
        cwd: spec.cwd,
        command: command ?? null,
        agent: runtime?.slug ?? null,
        pending_prompt: spec.prompt ?? null,
        managed_worktree: spec.managed_worktree ?? null,
      };
      ctx.model.addPane(pane);
      this.mirror.addView(viewFromManifest(manifest, undefined), manifest.frame_seq);
      if (spec.prompt) this.readiness.prefill(session, spec.prompt);
      ctx.model.changed();
      ctx.publish({
        type: 'surface_created',
        surface_id: surfaceId,
        session,
        workspace: ctx.model.workspaceIndex(workspace.id),
        surface: this.workspaces.surfaceEntry(pane),
        // The faces need it at once; without it each would read surface.status for every new pane.
        surface_status: this.reduction.statusOf(ctx.view(pane), pane),
      });
      return pane;
    } finally {
      this.mirror.expected(session);
    }
  }

  /** Stops a pane's session and forgets it in the host; a session already gone is fine. */
  async stopAndRemove(session: string): Promise<void> {
    // The caller takes the pane out itself: the host's `removed` for it must not do it first.
    const done = this.mirror.removingItself(session);
    try {
      await this.ctx.host.request('session.stop', { session }, SESSION_STOP_WAIT_MS).catch(() => undefined);
      await this.ctx.host.request('session.remove', { session }).catch(() => undefined);
    } finally {
      done();
    }
  }

  /**
   * Why closing this pane needs a person's yes (REFERENCE.md §1.4), or null: its agent is in turn
   * (thinking or waiting for input), or, with no agent in front, a program other than the pane's
   * own holds the terminal (a shell running a child). Read from /proc now, not from the last scan.
   */
  busyReason(pane: PaneRecord): string | null {
    const view = this.ctx.views.get(pane.session);
    if (!view || view.lifecycle !== 'live') return null;
    const label = labelOf(pane);
    const status = this.reduction.statusOf(view, pane);
    if (status.reason !== 'no_agent') return inTurn(status.state) ? `${label}: its agent is ${status.state}` : null;
    const leader = view.process;
    if (!leader || !isSameProcess(leader.pid, leader.started_at)) return null;
    const stat = readProcStat(leader.pid);
    if (!stat || stat.tpgid <= 0 || stat.tpgid === stat.pgrp) return null;
    return `${label}: '${view.foregroundCmd || 'a program'}' is running in it`;
  }

  /**
   * Refuses, before anything closes, to close panes of which one needs a person's yes. With the
   * host out of reach every pane does (§1.4: asked with a warning): nothing could be stopped.
   */
  private refuseBusy(panes: PaneRecord[], hostReachable: boolean): void {
    if (!hostReachable) {
      throw refusedByState(
        `close needs confirmation: the host does not answer (it died or hangs), so ${panes.map(labelOf).join(', ')} cannot be stopped: closing only takes ${panes.length === 1 ? 'it' : 'them'} out of the workspace, and what runs there may keep running`,
        'host_unreachable',
      );
    }
    const reasons = panes.map((p) => this.busyReason(p)).filter((r): r is string => r !== null);
    if (reasons.length > 0) throw refusedByState(`close needs confirmation: ${reasons.join('; ')}`, 'close_needs_confirmation');
  }

  /**
   * Ends panes: their sessions stopped and removed, then their managed worktrees torn down (§5.4)
   * by the one rule (`teardownWorktree`), whichever way they were closed. With `unlessBusy` it
   * first refuses what needs a person's yes. Returns what each worktree's teardown did.
   */
  async close(panes: PaneRecord[], options: { unlessBusy?: boolean; forceWorktree?: boolean } = {}): Promise<WorktreeTeardown[]> {
    const reachable = await this.ctx.host.reachable();
    if (options.unlessBusy) this.refuseBusy(panes, reachable);
    if (reachable) await Promise.all(panes.map((p) => this.stopAndRemove(p.session)));
    for (const pane of panes) {
      // A host out of reach still holds the session: it is stopped and removed whenever the host
      // shows it again (answers, or is replaced and lists it as lost), never adopted back as a pane.
      if (!reachable) this.mirror.abandon(pane.session, true);
      this.mirror.forget(pane.session);
      this.workspaces.closePane(pane, true);
    }
    return tearDownWorktrees(this.ctx, panes, reachable, options.forceWorktree);
  }
}
