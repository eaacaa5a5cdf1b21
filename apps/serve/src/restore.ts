import { RESTORE_CONCURRENCY, RESUME_WAIT_MS, type ResultOf, type PublicMethods, type RestartAttempt } from '@paneflow/protocol';
import type { ServeContext } from './context';
import { refusedByState } from './errors';
import type { PaneRecord } from './model';
import type { Reduction } from './status';
import type { View } from './views';

type Restarted = ResultOf<PublicMethods, 'surface.restart'>;

const ended = (view: View) => view.lifecycle === 'exited' || view.lifecycle === 'failed' || view.lifecycle === 'lost';

/**
 * Bringing panes back (REFERENCE.md §1.2): the host decides how (resume by id, continue, or the
 * recorded launch) and judges the outcome from what the agent does; serve restarts, waits for
 * that outcome, and staggers a restore so that no more than two agents start at once.
 */
export class Restorer {
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(
    private readonly ctx: ServeContext,
    private readonly reduction: Reduction,
    /** Makes anew a session the host never saved (unsaved.ts): it has nothing to restart. */
    private readonly recreate: (pane: PaneRecord, view: View) => Promise<Restarted>,
  ) {}

  /** The host told something new of this session (its lifecycle, or its restart's outcome). */
  changed(view: View): void {
    for (const wake of this.waiters.get(view.session) ?? []) wake();
  }

  /** Panes a restore takes: agents that are not running, of one workspace or all. */
  candidates(workspaceId?: string, lifecycles: View['lifecycle'][] = ['exited', 'failed', 'lost']): PaneRecord[] {
    return this.ctx.model.orderedPanes().filter((pane) => {
      const view = this.ctx.views.get(pane.session);
      const agent = view && (view.resume !== null || view.lastRuntimeId !== null || pane.agent !== null);
      return agent && lifecycles.includes(view.lifecycle) && (!workspaceId || pane.workspace_id === workspaceId);
    });
  }

  async restart(pane: PaneRecord, fresh: boolean): Promise<Restarted> {
    const view = this.ctx.view(pane);
    if (!ended(view)) throw refusedByState(`surface ${pane.surface_id} is ${view.lifecycle}; only an exited or lost pane restarts`, 'session_live');
    if (view.unsaved) return this.recreate(pane, view);
    const started = await this.ctx.host.request('session.restart', { session: pane.session, fresh });
    const current = this.ctx.views.get(pane.session) ?? view;
    // A frame with the settled outcome may have come before this answer: it is newer.
    if (!current.restart || current.restart.at_ms < started.restart.at_ms) current.restart = started.restart;
    this.reduction.publishSessionChanged(current);
    const restart = await this.outcome(pane.session, started.generation, started.restart);
    this.ctx.log(`surface ${pane.surface_id}: restarted (${started.mode}): ${restart.outcome}${restart.reason ? ` — ${restart.reason}` : ''}`);
    return { surface_id: pane.surface_id, session: pane.session, generation: started.generation, mode: started.mode, restart };
  }

  /** Restarts every candidate, at most two at a time, each one's outcome in the answer. */
  async restore(panes: PaneRecord[]): Promise<Restarted[]> {
    const results: Restarted[] = [];
    const queue = [...panes];
    const worker = async () => {
      for (let pane = queue.shift(); pane; pane = queue.shift()) {
        try {
          results.push(await this.restart(pane, false));
        } catch (error) {
          this.ctx.log(`surface ${pane.surface_id}: not restored: ${(error as Error).message}`);
        }
      }
    };
    await Promise.all(Array.from({ length: RESTORE_CONCURRENCY }, worker));
    return results.sort((a, b) => a.surface_id - b.surface_id);
  }

  /** The restart's outcome once it is decided (or the process ended), else after RESUME_WAIT_MS as it stands. */
  private outcome(session: string, generation: number, initial: RestartAttempt): Promise<RestartAttempt> {
    return new Promise((resolve) => {
      const waiters = this.waiters.get(session) ?? new Set();
      this.waiters.set(session, waiters);
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(check);
        if (waiters.size === 0) this.waiters.delete(session);
        const view = this.ctx.views.get(session);
        resolve(view?.generation === generation && view.restart ? view.restart : initial);
      };
      const check = () => {
        const view = this.ctx.views.get(session);
        if (!view) return finish();
        if (view.generation !== generation || !view.restart) return;
        if (view.restart.outcome !== 'pending' || view.lifecycle === 'exited' || view.lifecycle === 'failed') finish();
      };
      const timer = setTimeout(finish, RESUME_WAIT_MS);
      waiters.add(check);
      check();
    });
  }
}
