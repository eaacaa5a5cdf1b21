import { READY_DEADLINE_MS, READY_QUIET_MS } from '@paneflow/protocol';
import type { Timer } from './clock';
import type { ServeContext } from './context';
import type { View } from './views';

export type ReadyBy = 'declared_idle' | 'quiet' | 'deadline';

interface Waiting {
  waiters: Array<(by: ReadyBy) => void>;
  timer: Timer | null;
}

/**
 * When a new agent is ready for input (REFERENCE.md §5.2): it declared idle, or its output went
 * quiet for a second after it first printed something — and, for an agent pane, the host has
 * identified the agent, so that input goes to it as a paste. At the latest 30 s after it started.
 * Prompt prefill and `surface.wait_ready` (the flow runner) both wait here.
 */
export class Readiness {
  private readonly waiting = new Map<string, Waiting>();

  constructor(private readonly ctx: ServeContext) {}

  /** Resolves once the session is ready; re-evaluated by `changed` and at the moments time alone decides. */
  whenReady(session: string): Promise<ReadyBy> {
    return new Promise((resolve) => {
      let entry = this.waiting.get(session);
      if (!entry) this.waiting.set(session, (entry = { waiters: [], timer: null }));
      entry.waiters.push(resolve);
      this.evaluate(session);
    });
  }

  /** Something happened in the session (a record, output, an identification): look again. */
  changed(view: View): void {
    if (this.waiting.has(view.session)) this.evaluate(view.session);
  }

  /** Pastes a prompt, never submitted, once the agent is ready; the user reviews it and presses Enter. */
  prefill(session: string, text: string): void {
    void this.whenReady(session).then(async () => {
      const pane = this.ctx.model.paneBySession(session);
      if (pane) {
        pane.pending_prompt = null;
        this.ctx.model.changed();
      }
      await this.ctx.host
        .request('session.input', { session, text, origin: 'automation', paste: true })
        .catch((error: Error) => this.ctx.log(`prompt for ${session} not written: ${error.message}`));
    });
  }

  private evaluate(session: string) {
    const entry = this.waiting.get(session);
    const view = this.ctx.views.get(session);
    if (!entry || !view) return;
    const verdict = this.verdict(view);
    this.ctx.clock.clearTimeout(entry.timer);
    entry.timer = null;
    if ('by' in verdict) {
      this.waiting.delete(session);
      for (const resolve of entry.waiters) resolve(verdict.by);
      return;
    }
    entry.timer = this.ctx.clock.setTimeout(() => this.evaluate(session), Math.max(0, verdict.lookAgainAt - this.ctx.clock.now()) + 1);
  }

  private verdict(view: View): { by: ReadyBy } | { lookAgainAt: number } {
    const now = this.ctx.clock.now();
    const deadline = view.generationStartedAtMs + READY_DEADLINE_MS;
    if (now >= deadline) return { by: 'deadline' };
    const pane = this.ctx.model.paneBySession(view.session);
    const identified = !pane?.agent || view.agent !== null;
    if (!identified) return { lookAgainAt: deadline };
    if (view.declared?.state === 'idle') return { by: 'declared_idle' };
    if (view.outputGeneration === 0 || view.lastActivityMs === null) return { lookAgainAt: deadline };
    const quietAt = view.lastActivityMs + READY_QUIET_MS;
    return now >= quietAt ? { by: 'quiet' } : { lookAgainAt: Math.min(quietAt, deadline) };
  }
}
