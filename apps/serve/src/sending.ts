import { inTurn, MAX_SEND_TEXT_BYTES, SUBMIT_CONFIRM_MS, type EventFrameOf, type ParamsOf, type PublicMethods, type ResultOf } from '@paneflow/protocol';
import type { ServeContext } from './context';
import { disabled, invalid, refusedByState } from './errors';
import type { Reduction } from './status';
import type { Workspaces } from './workspaces';

type Transition = EventFrameOf<'status_changed'>;

/**
 * Typing into panes for automation (REFERENCE.md §4.4, §4.5): gates and scope, the busy guard,
 * paste or plain text, the submit, and — for a submit to a declaring agent — the confirmation
 * that its turn started. Every client (CLI, MCP, flows) gets the same rules and the same answer.
 */
export class Sending {
  constructor(
    private readonly ctx: ServeContext,
    private readonly reduction: Reduction,
    private readonly workspaces: Workspaces,
  ) {}

  async sendText(params: ParamsOf<PublicMethods, 'surface.send_text'>): Promise<ResultOf<PublicMethods, 'surface.send_text'>> {
    const { ctx } = this;
    const { surface_id, text, submit = false, paste, scope, workspace_id, force } = params;
    if (!ctx.capabilities.scripting && !ctx.config.current.ai_unrestricted) throw disabled('surface.send_text', 'PANEFLOW_IPC_SCRIPTING');
    const pane = ctx.pane(surface_id);
    this.workspaces.checkScope(pane, scope, workspace_id);
    const size = Buffer.byteLength(text);
    if (size > MAX_SEND_TEXT_BYTES) throw invalid(`text of ${size} bytes is over ${MAX_SEND_TEXT_BYTES}`, 'text_too_long', 'text');
    const view = ctx.view(pane);
    const agentTarget = view.agent !== null && view.lifecycle === 'live';
    const usePaste = paste ?? agentTarget;
    if (!usePaste && /[\r\n]/.test(text)) throw invalid('text holds CR or LF and is not sent as a paste', 'raw_newline', 'text');
    const before = this.reduction.statusOf(view, pane);
    const confirming = submit && agentTarget;
    if (confirming && !force && inTurn(before.state)) {
      throw refusedByState(`agent_busy: surface ${surface_id} is ${before.state}; a submit now would answer it`, 'agent_busy');
    }
    // Watched before sending, so that no transition can come and go unseen.
    const transitions: Transition[] = [];
    const wakers = new Set<() => void>();
    const unwatch = confirming
      ? this.reduction.watch(view.session, (change) => {
          transitions.push(change);
          for (const wake of wakers) wake();
        })
      : null;
    const waitFor = (test: () => boolean) =>
      new Promise<boolean>((resolve) => {
        if (test()) return resolve(true);
        const wake = () => {
          if (!test()) return;
          clearTimeout(timer);
          wakers.delete(wake);
          resolve(true);
        };
        const timer = setTimeout(() => {
          wakers.delete(wake);
          resolve(test());
        }, SUBMIT_CONFIRM_MS);
        wakers.add(wake);
      });
    try {
      // An agent gets its Enter apart from the paste, after a pause, or it may take it as part of it.
      const deferred = submit && usePaste;
      const written = await ctx.host.request('session.input', { session: pane.session, text: submit && !deferred ? text + '\r' : text, origin: 'automation', paste: usePaste });
      if (deferred) {
        await new Promise((resolve) => setTimeout(resolve, ctx.config.current.submit_paste_delay_ms));
        await ctx.host.request('session.input', { session: pane.session, text: '\r', origin: 'automation' });
      }
      const result = {
        surface_id,
        sent: true,
        submitted: submit,
        agent_target: agentTarget,
        paste: usePaste,
        submit_mode: submit ? (deferred ? ('deferred_paste_cr' as const) : ('inline_cr' as const)) : null,
        terminal_bracketed_paste: written.bracketed_paste_mode,
        state_seq: before.state_seq,
      };
      if (!confirming) return result;
      let reason = before.reason;
      if (reason === 'detecting') {
        // Classified when its detection window ends.
        await waitFor(() => transitions.some((t) => t.reason !== 'detecting'));
        reason = transitions.find((t) => t.reason !== 'detecting')?.reason ?? this.reduction.statusOf(view, pane).reason;
      }
      if (reason !== 'declared' && reason !== 'capable') return { ...result, started: null, start_reason: 'no_signal' as const };
      const started = await waitFor(() => transitions.some((t) => t.state_seq > before.state_seq && inTurn(t.state)));
      return { ...result, started, start_reason: started ? ('state_changed' as const) : ('not_started' as const), state_seq: transitions.at(-1)?.state_seq ?? before.state_seq };
    } finally {
      unwatch?.();
    }
  }

  async sendKeystroke(params: ParamsOf<PublicMethods, 'surface.send_keystroke'>): Promise<{ sent: true }> {
    if (!this.ctx.capabilities.scripting) throw disabled('surface.send_keystroke', 'PANEFLOW_IPC_SCRIPTING');
    const pane = this.ctx.pane(params.surface_id);
    this.workspaces.checkScope(pane, params.scope, params.workspace_id);
    await this.ctx.host.request('session.key', { session: pane.session, keystroke: params.keystroke, origin: 'automation' });
    return { sent: true };
  }
}
