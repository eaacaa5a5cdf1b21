import { inTurn, MAX_SEND_TEXT_BYTES, QUEUE_MAX_PER_PANE, RpcError, type PaneQueue, type ParamsOf, type PublicMethods, type QueuedPrompt, type QueueHold, type ResultOf } from '@paneflow/protocol';
import { join } from 'node:path';
import type { ServeContext } from '../context';
import { disabled, invalid, notFound, refusedByState } from '../errors';
import type { PaneRecord } from '../model';
import type { Sending } from '../sending';
import type { Reduction } from '../status';
import { stateOf, type View } from '../views';
import type { Workspaces } from '../workspaces';
import { QueueStore, type StoredPrompt } from './queue-store';

type SendResult = ResultOf<PublicMethods, 'surface.send_text'>;

/**
 * Queued prompts (libs/protocol supervisor.ts): each pane's prompts wait in serve until its
 * agent's declared turn ends, then go one per turn, in order, as a submit through `Sending` (the
 * gate, the busy guard, the confirmation). A delivery that starts no turn, an agent that
 * declares an error, or a refusal holds the queue, says so once, and sends nothing more until a
 * person sends one (`queue.send_now`) or the agent's next turn ends normally.
 */
export class PromptQueue {
  private readonly store: QueueStore;
  /** The item being delivered, per session: one at a time, and nothing else meanwhile. */
  private readonly inFlight = new Map<string, string>();
  /** Held sessions whose agent has since entered a turn, by generation: its normal end releases the hold. */
  private readonly turnSinceHold = new Map<string, number>();
  /**
   * The generation of each session whose agent has been seen out of a turn: a restarted agent
   * shows its predecessor's last record until it declares, and that turn is not its own.
   */
  private readonly calm = new Map<string, number>();

  constructor(
    private readonly ctx: ServeContext,
    private readonly reduction: Reduction,
    private readonly sending: Sending,
    private readonly workspaces: Workspaces,
  ) {
    this.store = new QueueStore(join(ctx.endpoints.home, 'serve', 'queue.json'), ctx.log);
    reduction.follow((view) => this.evaluate(view));
    reduction.addSupervision((view) => {
      const queue = this.store.queues.get(view.session);
      return { queued: queue?.items.length ?? 0, queue_held: queue?.held ?? null };
    });
    workspaces.onPaneClosed((pane) => {
      this.calm.delete(pane.session);
      this.turnSinceHold.delete(pane.session);
      if (!this.store.queues.has(pane.session)) return;
      this.store.change(() => this.store.queues.delete(pane.session), false);
    });
  }

  /** After every reduction (and after each delivery): whether the head of the pane's queue goes now. */
  private evaluate(view: View): void {
    const queue = this.store.queues.get(view.session);
    if (!queue || this.inFlight.has(view.session)) return;
    const pane = this.ctx.model.paneBySession(view.session);
    if (!pane) return;
    // Only a running agent's turns count: one its host's crash or its exit ended did not end normally.
    if (!view.agent || view.lifecycle !== 'live') {
      this.turnSinceHold.delete(view.session);
      return;
    }
    const state = stateOf(view);
    if (!inTurn(state)) this.calm.set(view.session, view.generation);
    if (queue.held) {
      if (inTurn(state) && this.calm.get(view.session) === view.generation) this.turnSinceHold.set(view.session, view.generation);
      else if (state === 'errored') this.turnSinceHold.delete(view.session);
      if (this.turnSinceHold.get(view.session) !== view.generation || (state !== 'finished' && state !== 'idle')) return;
      this.changed(view.session, () => (queue.held = null));
    }
    if (queue.items.length === 0) return;
    if (state === 'errored') {
      this.hold(view.session, 'errored', view.declared?.message ?? 'the agent declared an error');
      return;
    }
    if ((state !== 'finished' && state !== 'idle') || (view.entry.reason !== 'declared' && view.entry.reason !== 'capable')) return;
    // A failed delivery leaves its item in place and the queue held (or waiting, when busy): nothing more to say.
    void this.deliver(view, pane, queue.items[0], false).catch(() => undefined);
  }

  /**
   * Types one item as a submit. It leaves the queue before it is typed (a crash then cannot send it
   * twice) and goes back to its place when the send is refused before anything was typed.
   */
  private async deliver(view: View, pane: PaneRecord, item: StoredPrompt, byRequest: boolean, force = false): Promise<SendResult> {
    const { session } = view;
    const queue = this.store.queueOf(session);
    const index = queue.items.indexOf(item);
    const held = queue.held;
    this.inFlight.set(session, item.id);
    this.changed(session, () => queue.items.splice(index, 1));
    try {
      const sent = await this.sending.supervisorSubmit(pane.surface_id, item.text, 'queue', force);
      // A person's send releases the hold; one that starts no turn holds the queue again.
      const now = this.store.queues.get(session);
      if (byRequest && now?.held) this.changed(session, () => (now.held = null));
      if (sent.started === false) this.hold(session, 'not_started', `${item.id} was submitted, but no turn started within 3 s`);
      return sent;
    } catch (error) {
      // Back in its place, unless its pane closed meanwhile (its queue went with it).
      if (!this.ctx.model.paneBySession(session)) throw error;
      const back = this.store.queueOf(session);
      this.changed(session, () => {
        back.items.splice(Math.min(index, back.items.length), 0, item);
        back.held ??= held;
      });
      // A person who asked hears why; a delivery the busy guard stopped waits for the turn's end.
      const reason = error instanceof RpcError ? error.reason : undefined;
      if (!byRequest && reason !== 'agent_busy') this.hold(session, 'refused', (error as Error).message);
      throw error;
    } finally {
      this.inFlight.delete(session);
      // The turn it started may have ended before the confirmation came back.
      setImmediate(() => {
        const current = this.ctx.views.get(session);
        if (current) this.evaluate(current);
      });
    }
  }

  private hold(session: string, reason: QueueHold['reason'], message: string): void {
    // Kept while the pane is, even with nothing left queued: the person hears what went wrong.
    const queue = this.ctx.model.paneBySession(session) ? this.store.queueOf(session) : undefined;
    if (!queue || queue.held) return;
    this.turnSinceHold.delete(session);
    this.changed(session, () => (queue.held = { reason, message, since_ms: this.ctx.clock.now() }));
    const view = this.ctx.views.get(session);
    if (view) this.reduction.notice(view, { kind: 'queue_held', body: `queue held (${reason}): ${message}` });
  }

  /** A change of the queues: on disk, and in every face (the pane's status object). */
  private changed(session: string, make: () => unknown): void {
    this.store.change(make, false);
    const view = this.ctx.views.get(session);
    if (view) this.reduction.announce(view);
  }

  /** The scripting gate (or `ai_unrestricted`), as for `surface.send_text`. */
  private checkGate(method: string): void {
    if (!this.ctx.capabilities.scripting && !this.ctx.config.current.ai_unrestricted) throw disabled(method, 'PANEFLOW_IPC_SCRIPTING');
  }

  /** A queued item by id, its pane (checked against the caller's scope) and view. */
  private item(method: string, params: { id: string; scope?: 'workspace' | 'all'; workspace_id?: string }) {
    this.checkGate(method);
    const found = this.store.find(params.id);
    const pane = found && this.ctx.model.paneBySession(found.queue.session);
    if (!found || !pane) throw notFound(`queued prompt ${params.id}`);
    this.workspaces.checkScope(pane, params.scope, params.workspace_id);
    return { ...found, pane, view: this.ctx.view(pane) };
  }

  add(params: ParamsOf<PublicMethods, 'queue.add'>): ResultOf<PublicMethods, 'queue.add'> {
    this.checkGate('queue.add');
    const pane = this.ctx.pane(params.surface_id);
    this.workspaces.checkScope(pane, params.scope, params.workspace_id);
    const size = Buffer.byteLength(params.text);
    if (size > MAX_SEND_TEXT_BYTES) throw invalid(`text of ${size} bytes is over ${MAX_SEND_TEXT_BYTES}`, 'text_too_long', 'text');
    const view = this.ctx.view(pane);
    if (!view.agent && !pane.agent && !view.lastRuntimeId) {
      throw refusedByState(`no_agent: surface ${pane.surface_id} runs no agent; a queued prompt waits for an agent's turn to end`, 'no_agent');
    }
    const queue = this.store.queues.get(pane.session);
    if ((queue?.items.length ?? 0) >= QUEUE_MAX_PER_PANE) throw refusedByState(`queue_full: surface ${pane.surface_id} has ${QUEUE_MAX_PER_PANE} queued prompts`, 'queue_full');
    const stored = this.store.change(() => {
      const item = { id: this.store.newId(), text: params.text, queued_at_ms: this.ctx.clock.now() };
      this.store.queueOf(pane.session).items.push(item);
      return item;
    }, true);
    const item = this.shown(pane, stored, this.store.queueOf(pane.session).items.length - 1);
    this.reduction.announce(view);
    this.evaluate(view);
    return { item, sent_now: this.inFlight.get(pane.session) === stored.id };
  }

  list(params: ParamsOf<PublicMethods, 'queue.list'>): ResultOf<PublicMethods, 'queue.list'> {
    if (params.surface_id !== undefined) return { queues: [this.paneQueue(this.ctx.pane(params.surface_id))] };
    const queues = this.ctx.model
      .orderedPanes()
      .filter((pane) => this.store.queues.has(pane.session))
      .map((pane) => this.paneQueue(pane));
    return { queues };
  }

  remove(params: ParamsOf<PublicMethods, 'queue.remove'>): ResultOf<PublicMethods, 'queue.remove'> {
    const { queue, index, pane, view } = this.item('queue.remove', params);
    const removed = this.shown(pane, queue.items[index], index);
    this.store.change(() => queue.items.splice(index, 1), true);
    this.reduction.announce(view);
    return { removed };
  }

  move(params: ParamsOf<PublicMethods, 'queue.move'>): ResultOf<PublicMethods, 'queue.move'> {
    const { queue, index, pane, view } = this.item('queue.move', params);
    const count = queue.items.length;
    if (params.position > count) {
      throw invalid(`position ${params.position} is past the end of surface ${pane.surface_id}'s queue (${count} prompt${count === 1 ? '' : 's'})`, 'bad_position', 'position');
    }
    this.store.change(() => queue.items.splice(params.position - 1, 0, ...queue.items.splice(index, 1)), true);
    this.reduction.announce(view);
    return this.paneQueue(pane);
  }

  async sendNow(params: ParamsOf<PublicMethods, 'queue.send_now'>): Promise<ResultOf<PublicMethods, 'queue.send_now'>> {
    const { queue, index, pane, view } = this.item('queue.send_now', params);
    const delivering = this.inFlight.get(pane.session);
    if (delivering) throw refusedByState(`delivering: ${delivering} is being submitted to surface ${pane.surface_id} now; try again once it is confirmed`, 'delivering');
    const sent = await this.deliver(view, pane, queue.items[index], true, params.force ?? false);
    return { id: params.id, sent };
  }

  private paneQueue(pane: PaneRecord): PaneQueue {
    const queue = this.store.queues.get(pane.session);
    return { surface_id: pane.surface_id, session: pane.session, held: queue?.held ?? null, items: (queue?.items ?? []).map((item, i) => this.shown(pane, item, i)) };
  }

  private shown(pane: PaneRecord, item: StoredPrompt, index: number): QueuedPrompt {
    return { id: item.id, surface_id: pane.surface_id, session: pane.session, text: item.text, queued_at_ms: item.queued_at_ms, position: index + 1 };
  }
}
