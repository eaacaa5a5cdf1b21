import { inTurn, MAX_SEND_TEXT_BYTES, type Answerer, type CliState, type PromptSource, SUBMIT_CONFIRM_MS, type EventFrameOf, type ParamsOf, type PublicMethods, type ResultOf } from '@paneflow/protocol';
import { sleep, type Clock } from './clock';
import type { ServeContext } from './context';
import { answerInput, answerSettleMs, answersFor } from '@paneflow/procscan';
import { disabled, invalid, refusedByState } from './errors';
import type { PaneRecord } from './model';
import type { Reduction } from './status';
import type { View } from './views';
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

  /**
   * `surface.send_text`; serve's own parts pass `via`: where a submitted prompt came from (the turn
   * ledger's source), and whether the caller's workspace scope applies (not for the supervisor,
   * which acts on a pane's own queue or setting).
   */
  async sendText(params: ParamsOf<PublicMethods, 'surface.send_text'>, via: { source: PromptSource; scoped: boolean } = { source: 'send', scoped: true }): Promise<ResultOf<PublicMethods, 'surface.send_text'>> {
    const { ctx } = this;
    const { surface_id, text, submit = false, paste, scope, workspace_id, force } = params;
    if (!ctx.capabilities.scripting && !ctx.config.current.ai_unrestricted) throw disabled('surface.send_text', 'PANEFLOW_IPC_SCRIPTING');
    const pane = ctx.pane(surface_id);
    if (via.scoped) this.workspaces.checkScope(pane, scope, workspace_id);
    const size = Buffer.byteLength(text);
    if (size > MAX_SEND_TEXT_BYTES) throw invalid(`text of ${size} bytes is over ${MAX_SEND_TEXT_BYTES}`, 'text_too_long', 'text');
    const view = ctx.view(pane);
    const agentTarget = isAgentTarget(view);
    const usePaste = paste ?? agentTarget;
    if (!usePaste && /[\r\n]/.test(text)) throw invalid('text holds CR or LF and is not sent as a paste', 'raw_newline', 'text');
    const before = this.reduction.statusOf(view, pane);
    const confirming = submit && agentTarget;
    if (confirming && !force && inTurn(before.state)) {
      throw refusedByState(`agent_busy: surface ${surface_id} is ${before.state}; a submit now would answer it`, 'agent_busy');
    }
    // Without a submit too: a digit or a word typed into a waiting agent's menu picks an answer.
    if (agentTarget && !force) this.refuseIfWaiting(surface_id, before.state, 'text typed now');
    // Watched before sending, so that no transition can come and go unseen.
    const watched = confirming ? watchTransitions(this.reduction, this.ctx.clock, view.session) : null;
    // What is typed may begin the agent's next turn (its prompt), or end its wait (the ledger's answer).
    if (submit && agentTarget) this.reduction.turns.notePrompt(view.session, text, via.source);
    this.reduction.turns.noteAction(view.session, 'send', text);
    try {
      const deferred = submit && usePaste;
      const written = await this.type(pane.session, text, submit, usePaste);
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
      if (!watched) return result;
      const { transitions, waitFor } = watched;
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
      watched?.stop();
    }
  }

  /**
   * Writes text for automation; with `submit`, its Enter — apart from a paste, after a pause, or an
   * agent may take it as part of the paste.
   */
  private async type(session: string, text: string, submit: boolean, paste: boolean) {
    const { host, config } = this.ctx;
    const deferred = submit && paste;
    const written = await host.request('session.input', { session, text: submit && !deferred ? text + '\r' : text, origin: 'automation', paste });
    if (deferred) {
      await sleep(this.ctx.clock, config.current.submit_paste_delay_ms);
      await host.request('session.input', { session, text: '\r', origin: 'automation' });
    }
    return written;
  }

  /**
   * `surface.answer`: types what the agent's runtime says answers its prompt, only while it still
   * waits at the `state_seq` the caller saw (so nothing reaches a prompt that came after), and
   * confirms that the wait ended.
   */
  answer(params: ParamsOf<PublicMethods, 'surface.answer'>): Promise<ResultOf<PublicMethods, 'surface.answer'>> {
    const { surface_id, answer, state_seq, scope, workspace_id } = params;
    return this.answerAs({ surface_id, answer, state_seq }, 'answer', (pane) => this.workspaces.checkScope(pane, scope, workspace_id));
  }

  /**
   * The one answer path, for `surface.answer` and for serve's own parts (an answer rule), with who
   * answered for the turn ledger. The gate is checked here, so no caller can answer past it;
   * `checkScope` is the client's workspace scope (serve's own parts have none).
   */
  async answerAs(
    { surface_id, answer, state_seq }: { surface_id: number; answer: string; state_seq: number },
    by: Answerer,
    checkScope: (pane: PaneRecord) => void = () => undefined,
  ): Promise<ResultOf<PublicMethods, 'surface.answer'>> {
    const { ctx } = this;
    if (!ctx.capabilities.scripting && !ctx.config.current.ai_unrestricted) throw disabled('surface.answer', 'PANEFLOW_IPC_SCRIPTING');
    const pane = ctx.pane(surface_id);
    checkScope(pane);
    const view = ctx.view(pane);
    const stillWaiting = () => {
      const status = this.reduction.statusOf(view, pane);
      if (status.state !== 'waiting_for_input' || status.state_seq !== state_seq) {
        throw refusedByState(`not_waiting: surface ${surface_id} is ${status.state} at state_seq ${status.state_seq}, not waiting at ${state_seq}`, 'not_waiting');
      }
      return status;
    };
    const before = stillWaiting();
    const runtime = before.runtime_id ? ctx.catalog.bySlug.get(before.runtime_id) : undefined;
    const kind = before.declared?.kind ?? null;
    const accepted = answersFor(runtime, kind);
    if (!accepted) throw refusedByState(`no_answers: ${before.tool ?? 'this agent'} has no answers for ${kind ?? 'this'} prompt; answer by hand in the pane`, 'no_answers');
    const input = answerInput(runtime, kind, answer);
    if (!input) throw invalid(`'${answer}' is not an answer to this prompt; it takes ${accepted.choices.join(', ')}`, 'unknown_answer', 'answer');
    // A prompt reported before it listens would drop the keys (or let Enter pick its default).
    const settle = answerSettleMs(runtime, kind) - (before.waiting_ms ?? 0);
    if (settle > 0) {
      await sleep(ctx.clock, settle);
      stillWaiting();
    }
    const watched = watchTransitions(this.reduction, ctx.clock, view.session);
    this.reduction.turns.noteAction(view.session, by, answer);
    try {
      if ('keys' in input) await ctx.host.request('session.input', { session: pane.session, text: input.keys, origin: 'automation' });
      else await this.type(pane.session, input.text, true, true);
      const moved = () => watched.transitions.some((t) => t.state_seq > state_seq && t.state !== 'waiting_for_input');
      const left = await watched.waitFor(moved);
      const now = this.reduction.statusOf(view, pane);
      return { surface_id, answered: true, left_waiting: left, state: now.state, state_seq: now.state_seq };
    } finally {
      watched.stop();
    }
  }

  /** The busy guard for what is not a submit: an agent waiting for an answer is answered with `surface.answer`, or with force. */
  private refuseIfWaiting(surfaceId: number, state: CliState, what: string): void {
    if (state !== 'waiting_for_input') return;
    throw refusedByState(`agent_busy: surface ${surfaceId} is waiting_for_input; ${what} would answer its prompt (answer it with surface.answer, or force it)`, 'agent_busy');
  }

  /**
   * The supervisor's submit (a queued prompt, a stalled agent's nudge, the continue after a usage
   * limit): the gate, busy guard and confirmation of `surface.send_text`, without a caller's
   * workspace scope (a queued prompt's was checked when it was queued; a setting is serve's own).
   */
  supervisorSubmit(surfaceId: number, text: string, source: PromptSource = 'send', force = false): Promise<ResultOf<PublicMethods, 'surface.send_text'>> {
    return this.sendText({ surface_id: surfaceId, text, submit: true, ...(force ? { force } : {}) }, { source, scoped: false });
  }

  /** The supervisor's keystrokes (a nudge's Esc), behind the same gate as a submit. */
  async supervisorKeys(session: string, keys: readonly string[]): Promise<void> {
    if (!this.ctx.capabilities.scripting && !this.ctx.config.current.ai_unrestricted) throw disabled('surface.send_keystroke', 'PANEFLOW_IPC_SCRIPTING');
    for (const keystroke of keys) {
      this.reduction.turns.noteAction(session, 'key', keystroke);
      await this.ctx.host.request('session.key', { session, keystroke, origin: 'automation' });
    }
  }

  async sendKeystroke(params: ParamsOf<PublicMethods, 'surface.send_keystroke'>): Promise<{ sent: true }> {
    if (!this.ctx.capabilities.scripting) throw disabled('surface.send_keystroke', 'PANEFLOW_IPC_SCRIPTING');
    const pane = this.ctx.pane(params.surface_id);
    this.workspaces.checkScope(pane, params.scope, params.workspace_id);
    const view = this.ctx.view(pane);
    if (isAgentTarget(view) && !params.force) this.refuseIfWaiting(params.surface_id, this.reduction.statusOf(view, pane).state, 'a key pressed now');
    this.reduction.turns.noteAction(pane.session, 'key', params.keystroke);
    await this.ctx.host.request('session.key', { session: pane.session, keystroke: params.keystroke, origin: 'automation' });
    return { sent: true };
  }
}

/** A running agent: text to it is pasted, a submit confirmed, and the busy guard applies. */
const isAgentTarget = (view: View) => view.agent !== null && view.lifecycle === 'live';

/**
 * The status changes of one session from now on, and a wait (up to SUBMIT_CONFIRM_MS) for them to
 * pass a test: watched before anything is typed, so that no transition comes and goes unseen.
 */
function watchTransitions(reduction: Reduction, clock: Clock, session: string) {
  const transitions: Transition[] = [];
  const wakers = new Set<() => void>();
  const stop = reduction.watch(session, (change) => {
    transitions.push(change);
    for (const wake of wakers) wake();
  });
  const waitFor = (test: () => boolean) =>
    new Promise<boolean>((resolve) => {
      if (test()) return resolve(true);
      const wake = () => {
        if (!test()) return;
        clock.clearTimeout(timer);
        wakers.delete(wake);
        resolve(true);
      };
      const timer = clock.setTimeout(() => {
        wakers.delete(wake);
        resolve(test());
      }, SUBMIT_CONFIRM_MS);
      wakers.add(wake);
    });
  return { transitions, waitFor, stop };
}
