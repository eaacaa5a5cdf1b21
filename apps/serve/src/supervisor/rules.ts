import { answersFor } from '@paneflow/procscan';
import { AUTO_ANSWER_SHOWN_MS, RpcError, type AutoAnswer, type RuleStatus } from '@paneflow/protocol';
import { join } from 'node:path';
import type { Config } from '../config';
import type { Timer } from '../clock';
import type { ServeContext } from '../context';
import type { PaneRecord } from '../model';
import type { Sending } from '../sending';
import type { Reduction } from '../status';
import { stateOf, type View } from '../views';
import { RulesStore } from './rules-store';

type Rule = Config['answer_rules'][number];

/** Which rule would answer a message now, or why none would (`rules.test` says it as it is). */
export interface Verdict {
  rule: Rule | null;
  reason: string;
  /** Rules that matched but whose answer the runtime's permission prompt does not take. */
  unanswerable: Rule[];
}

/** A permission prompt waiting for its person, with the message its agent declared. */
interface Wait {
  stateSeq: number;
  message: string;
  runtime: string;
}

/**
 * Answer rules (config.json `answer_rules`, libs/protocol/src/supervisor.ts): a pane that waits
 * at a permission prompt whose declared message a rule matches is answered the rule's way after
 * `supervisor.answer_delay_ms`, through `surface.answer`'s own path at the wait's state_seq, so a
 * person who answers first wins. Never a question, never a prompt without a declared message,
 * never past the scripting gate; every answer is recorded (the turn ledger, the pane's status, a
 * notification, the inbox's history).
 */
export class AnswerRules {
  readonly store: RulesStore;
  /** Per session: the answer scheduled for its wait now. */
  private readonly pending = new Map<string, { stateSeq: number; timer: Timer }>();
  /** Per session: the wait already judged, so a rule acts on a prompt once, as it arrives. */
  private readonly judged = new Map<string, number>();
  /** What was logged, so that a rule that cannot answer is said once. */
  private readonly said = new Set<string>();

  constructor(
    private readonly ctx: ServeContext,
    private readonly reduction: Reduction,
    private readonly sending: Sending,
  ) {
    this.store = new RulesStore(join(ctx.endpoints.home, 'serve', 'rules.json'), ctx.log);
    reduction.follow((view, pane, _before, now) => this.observe(view, pane, now));
    reduction.addSupervision((view, now) => ({ auto_answer: this.store.latest(view.session, now) }));
  }

  /** Whether a rule may type at all: the scripting gate, as for `surface.answer` (a rule never widens it). */
  gateOpen(): boolean {
    return this.ctx.capabilities.scripting || this.ctx.config.current.ai_unrestricted;
  }

  /** `rules.list`'s rules, with their answers of the last hour. */
  list(now: number): RuleStatus[] {
    return this.ctx.config.current.answer_rules.map((r) => ({
      name: r.name,
      runtime: r.runtime ?? null,
      kind: r.kind,
      pattern: r.pattern,
      answer: r.answer,
      per_hour: r.per_hour ?? null,
      used_last_hour: this.store.usedLastHour(r.name, now),
    }));
  }

  /** `rules.set_enabled`: off also drops every answer scheduled now. */
  setEnabled(enabled: boolean): void {
    this.store.setEnabled(enabled);
    if (!enabled) for (const session of [...this.pending.keys()]) this.cancel(session);
  }

  /**
   * Which rule answers a declared permission `message` of `runtime` (null: any agent, as
   * `rules test` without `--runtime` asks) now, or why none does: the first rule for that
   * runtime whose pattern matches, whose answer the runtime's prompt takes and whose hour is not
   * spent — and only while the rules are on and the gate is open.
   */
  verdict(message: string, runtime: string | null, now: number): Verdict {
    const none = (reason: string, unanswerable: Rule[] = []): Verdict => ({ rule: null, reason, unanswerable });
    const rules = this.ctx.config.current.answer_rules;
    if (rules.length === 0) return none('no answer rules: the config has no answer_rules');
    if (message.trim() === '') return none('no declared message: a rule answers only a permission prompt whose message the agent declared');
    const matching = rules.filter((r) => (runtime === null || r.runtime === undefined || r.runtime === runtime) && r.regex.test(message));
    if (matching.length === 0) return none(`no rule matches this message${runtime ? ` for ${runtime}` : ''}`);
    const unanswerable: Rule[] = [];
    let spent: Rule | null = null;
    for (const rule of matching) {
      const choices = this.choices(rule.runtime ?? runtime);
      if (choices && !choices.includes(rule.answer)) {
        unanswerable.push(rule);
        continue;
      }
      if (rule.per_hour !== undefined && this.store.usedLastHour(rule.name, now) >= rule.per_hour) {
        spent ??= rule;
        continue;
      }
      if (!this.store.enabled) return none(`rule '${rule.name}' matches, but the answer rules are off (paneflow rules on)`, unanswerable);
      if (!this.gateOpen()) return none(`rule '${rule.name}' matches, but the scripting gate is closed: serve runs without PANEFLOW_IPC_SCRIPTING=1 and ai_unrestricted is off`, unanswerable);
      return { rule, reason: `rule '${rule.name}' answers '${rule.answer}' after ${this.ctx.config.current.supervisor.answer_delay_ms} ms`, unanswerable };
    }
    if (spent) return none(`rule '${spent.name}' matches, but it has given its ${spent.per_hour} answer${spent.per_hour === 1 ? '' : 's'} of this hour`, unanswerable);
    const [first] = unanswerable;
    const takes = this.choices(first.runtime ?? runtime)!;
    return none(`rule '${first.name}' matches, but its runtime's permission prompt does not take '${first.answer}' (${takes.length > 0 ? `it takes ${takes.join(', ')}` : 'it has no answers'})`, unanswerable);
  }

  /** The automatic answers of the last hour, newest first (`fleet.inbox`'s `answered`). */
  history(now: number): AutoAnswer[] {
    return this.store.history(now);
  }

  /** The names of a runtime's permission answers; null where no runtime is named (any agent). */
  private choices(runtime: string | null): string[] | null {
    if (runtime === null) return null;
    return answersFor(this.ctx.catalog.bySlug.get(runtime), 'permission')?.choices ?? [];
  }

  /** The permission prompt a pane waits at now, with a declared message; null for anything else. */
  private waitOf(view: View): Wait | null {
    const declared = view.declared;
    if (view.entry.status !== 'attention' || !view.agent || declared?.state !== 'blocked' || declared.kind !== 'permission') return null;
    if (!declared.message || stateOf(view) !== 'waiting_for_input') return null;
    return { stateSeq: view.entry.stateSeq, message: declared.message, runtime: view.agent.runtimeId };
  }

  /** After each reduction: a wait that ended or changed drops its answer; a new one is judged once. */
  private observe(view: View, pane: PaneRecord | undefined, now: number): void {
    const { session } = view;
    const wait = pane ? this.waitOf(view) : null;
    const pending = this.pending.get(session);
    if (pending && pending.stateSeq !== wait?.stateSeq) this.cancel(session);
    if (!wait) {
      this.judged.delete(session);
      return;
    }
    if (this.judged.get(session) === wait.stateSeq) return;
    this.judged.set(session, wait.stateSeq);
    const verdict = this.verdict(wait.message, wait.runtime, now);
    for (const rule of verdict.unanswerable) this.sayOnce(`${rule.name}:${wait.runtime}`, `answer rule '${rule.name}': '${rule.answer}' is not an answer ${wait.runtime}'s permission prompt takes; the rule is skipped there`);
    if (!verdict.rule) return;
    const timer = this.ctx.clock.setTimeout(() => void this.fire(view, wait), this.ctx.config.current.supervisor.answer_delay_ms);
    timer.unref();
    this.pending.set(session, { stateSeq: wait.stateSeq, timer });
  }

  private cancel(session: string): void {
    const pending = this.pending.get(session);
    if (!pending) return;
    this.ctx.clock.clearTimeout(pending.timer);
    this.pending.delete(session);
  }

  /** The delay is over and nobody answered: the rule (judged again, as things may have changed) answers. */
  private async fire(view: View, wait: Wait): Promise<void> {
    this.pending.delete(view.session);
    const pane = this.ctx.model.paneBySession(view.session);
    if (!pane || this.ctx.views.get(view.session) !== view) return;
    const now = this.ctx.clock.now();
    const { rule } = this.verdict(wait.message, wait.runtime, now);
    if (!rule) return;
    const release = this.store.take(rule.name, now);
    try {
      await this.sending.answerAs({ surface_id: pane.surface_id, answer: rule.answer, state_seq: wait.stateSeq }, 'rule');
    } catch (error) {
      // A person answered first, or the agent moved on: nothing was typed, nothing is recorded.
      if (error instanceof RpcError && error.reason === 'not_waiting') return release();
      // Keys may have gone out (a host that did not answer may still type them): the answer stays counted.
      if (error instanceof RpcError && error.reason !== 'host_timeout') release();
      this.ctx.log(`answer rule '${rule.name}' could not answer surface ${pane.surface_id}: ${(error as Error).message}`);
      return;
    }
    const answer: AutoAnswer = { rule: rule.name, answer: rule.answer, message: wait.message, state_seq: wait.stateSeq, at_ms: this.ctx.clock.now(), surface_id: pane.surface_id, session: view.session };
    this.store.record(answer);
    this.reduction.announce(view);
    // Faces drop it from the pane's status when it is no longer shown.
    this.ctx.clock.setTimeout(() => this.ctx.views.get(view.session) === view && this.reduction.announce(view), AUTO_ANSWER_SHOWN_MS + 1).unref();
    this.reduction.notice(view, { kind: 'answered_by_rule', body: `answered '${rule.answer}' by rule '${rule.name}': ${wait.message}` });
  }

  private sayOnce(key: string, message: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.ctx.log(message);
  }
}
