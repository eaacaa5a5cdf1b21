import {
  statusInTurn,
  TURN_DIFF_MAX_BYTES,
  type Answerer,
  type DigestAgent,
  type PromptSource,
  type TurnChange,
  type TurnRecord,
} from '@paneflow/protocol';
import { isSameProcess } from '@paneflow/proc';
import { advanceTurn, clipText, endTurn, interruptTurn, startTurn, turnEnding, type Agent, type Answer, type OpenTurn, type TurnStep } from '@paneflow/reducer';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { sleep, type Timer } from '../clock';
import type { ServeContext } from '../context';
import { notFound, refusedByState } from '../errors';
import type { PaneRecord } from '../model';
import { providerSessionId, type View } from '../views';
import { digestAgent } from './digest';
import { Snapshots, type Tree } from './snapshots';
import { TurnStore } from './store';
import { TranscriptMark, TRANSCRIPT_SETTLE_MS, turnTokensOf } from './tokens';

/** A prompt sent or hooked this long before a turn starts is the prompt that began it. */
const PROMPT_WINDOW_MS = 10_000;
/** Changes of a running turn (its messages) are saved at most this often; its start and end at once. */
const SAVE_EVERY_MS = 250;
/** The ledger's refs, one per turn: `refs/paneflow/turns/<session>/<n>`. */
export const TURN_REFS = 'refs/paneflow/turns/';
/** What a digest covers when the person has never looked. */
const DIGEST_DEFAULT_MS = 24 * 60 * 60 * 1000;

/** A host client's name, when a person typed through it: the face that answered. */
const FACES: Record<string, Answerer> = { desktop: 'desktop', web: 'web', attach: 'attach' };

/** A turn that has not ended, with what serve learns of it on the side. */
interface Running {
  open: OpenTurn;
  /** The agent the turn belongs to: when its process goes, the turn has exited. */
  agent: Agent | null;
  change: TurnChange | null;
  /** Where its transcript stood when it began (read at its end: only what follows is its). */
  mark: Promise<TranscriptMark | null>;
  /** The transcript its hooks or session files name, as last seen. */
  transcript: string | null;
  /** The tree its start snapshot is made of, once asked for (its end must be another). */
  startTree: Promise<Tree> | null;
  /** The snapshots and reads of this turn, in order. */
  work: Promise<void>;
  saveTimer: Timer | null;
}

/**
 * The turn ledger (an addition to REFERENCE.md): it watches every reduction (the rule is
 * @paneflow/reducer's `turns`), keeps one record per turn on disk (`TurnStore`), snapshots the
 * pane's git work tree at each turn's start and end (`Snapshots`: private refs through a temporary
 * index, git as child processes), reads its tokens from the agent's own transcript, and publishes
 * `turn_started` and `turn_ended`. A turn it finds open when it starts goes on if the pane is
 * still in that turn; otherwise its end was never seen, and it is `interrupted`.
 */
export class TurnLedger {
  private readonly store: TurnStore;
  private readonly snapshots: Snapshots;
  private readonly running = new Map<string, Running>();
  /** Sessions this serve has looked at since it started: an open record on disk is settled once. */
  private readonly reconciled = new Set<string>();
  private readonly prompts = new Map<string, { text: string; source: PromptSource; atMs: number }>();
  /** serve's own last typing into each session (answer, key, send): what may end a wait. */
  private readonly actions = new Map<string, { by: Answerer; text: string | null; atMs: number }>();
  /** Per session, the tree its last turn ended with: the next one starts from it while it is not yet taken. */
  private readonly lastEndTree = new Map<string, Promise<Tree>>();
  /** Per `<session>:<turn>`, the work still to finish on an ended turn (its end snapshot, tokens). */
  private readonly settling = new Map<string, Promise<void>>();

  constructor(private readonly ctx: ServeContext) {
    const dir = join(ctx.endpoints.home, 'serve', 'turns');
    const tempDir = join(dir, 'tmp');
    // The temporary indexes a killed serve left behind.
    rmSync(tempDir, { recursive: true, force: true });
    this.snapshots = new Snapshots({ tempDir, log: ctx.log });
    this.store = new TurnStore(dir, ctx.log, (records) => void this.deleteRefs(records));
    this.store.load();
  }

  /** One reduction of a view. */
  observe(view: View, pane: PaneRecord | undefined, nowMs: number): void {
    if (!this.reconciled.has(view.session) && pane) {
      this.reconciled.add(view.session);
      this.reconcile(view, nowMs);
    }
    const step: TurnStep = { status: view.entry.status, record: view.declared, nowMs };
    const running = this.running.get(view.session);
    if (running) {
      running.transcript = transcriptOf(view) ?? running.transcript;
      // Another process in front is another agent; none seen for a moment is not.
      const otherAgent = running.agent !== null && view.agent !== null && (view.agent.pid !== running.agent.pid || view.agent.startedAt !== running.agent.startedAt);
      if (!statusInTurn(step.status) || running.open.record.generation !== view.generation || otherAgent) {
        // An agent that died mid-turn has its records cleared (OSC7501.md §10) before its exit is reported.
        const died = running.agent !== null && !isSameProcess(running.agent.pid, running.agent.startedAt);
        const ending = view.lifecycle !== 'lost' && (otherAgent || died) ? 'exited' : turnEnding(step, view.lifecycle);
        this.end(running, step, ending, running.open.phase === 'waiting' ? this.answerOf(view, running) : null);
      } else {
        const waitEnds = running.open.phase === 'waiting' && step.status !== 'attention';
        const previous = running.open.record;
        running.open = advanceTurn(running.open, step, waitEnds ? this.answerOf(view, running) : null);
        // A wait begins or ends rarely and matters after a crash: saved at once; messages may come in bursts.
        if (running.open.record.questions !== previous.questions) this.save(running);
        else if (running.open.record.messages !== previous.messages) this.saveSoon(running);
        return;
      }
    }
    // Also a turn this serve finds under way with no record of it (it started while serve was away).
    if (pane && view.agent && statusInTurn(step.status)) this.start(view, pane, step);
  }

  /** A prompt that may begin the session's next turn: its hook's, or the text of a submit. */
  notePrompt(session: string, text: string, source: PromptSource): void {
    const atMs = this.ctx.clock.now();
    const running = this.running.get(session);
    // The hook may come just after the turn began; the agent's own word for its prompt wins.
    if (running && source === 'hook' && running.open.record.prompt?.source !== 'hook' && atMs - running.open.record.started_at_ms < PROMPT_WINDOW_MS) {
      running.open = { ...running.open, record: { ...running.open.record, prompt: { text: clipText(text), source } } };
      this.saveSoon(running);
      return;
    }
    this.prompts.set(session, { text, source, atMs });
  }

  /** serve is about to type into a session (answer, key, send): if a wait ends now, that ended it. */
  noteAction(session: string, by: Answerer, text: string | null): void {
    this.actions.set(session, { by, text, atMs: this.ctx.clock.now() });
  }

  /**
   * After every (re)connection to the host: a turn of a session the host no longer has ended with
   * it (`exited`), and an open record this serve never ran was `interrupted`.
   */
  rebuilt(present: Set<string>): void {
    for (const session of this.store.sessions()) {
      if (present.has(session)) continue;
      if (this.running.has(session)) this.forget(session);
      const last = this.store.of(session).at(-1);
      if (last && last.ended === null && !this.settling.has(`${session}:${last.turn}`)) void this.finish(interruptTurn(last));
    }
  }

  /** A session gone (its pane closed, its session removed): a turn it was in ended with it. */
  forget(session: string): void {
    this.prompts.delete(session);
    this.actions.delete(session);
    this.lastEndTree.delete(session);
    const running = this.running.get(session);
    if (running) this.end(running, { status: 'idle', record: null, nowMs: this.ctx.clock.now() }, 'exited', null);
  }

  /** Turns of a pane or a session (else all), oldest first. */
  list(filter: { surface_id?: number; session?: string; since_ms?: number; limit?: number }): TurnRecord[] {
    const sessions = filter.session ? [filter.session] : this.store.sessions();
    let turns = sessions
      .flatMap((session) => this.store.of(session).map((record) => this.current(record)))
      .filter((r) => filter.surface_id === undefined || r.surface_id === filter.surface_id)
      .filter((r) => filter.since_ms === undefined || r.ended_at_ms === null || r.ended_at_ms >= filter.since_ms)
      .sort((a, b) => a.started_at_ms - b.started_at_ms || a.turn - b.turn);
    if (filter.limit !== undefined) turns = turns.slice(-filter.limit);
    return turns;
  }

  /** git's diff of one turn: its snapshots, or its start against the working tree now when it has no end. */
  async diff(filter: { surface_id?: number; session?: string; turn?: number; stat?: boolean }) {
    const turns = this.list({ surface_id: filter.surface_id, session: filter.session });
    const found = filter.turn === undefined ? turns.at(-1) : turns.find((t) => t.turn === filter.turn);
    if (!found) throw notFound(filter.turn === undefined ? 'a turn' : `turn ${filter.turn}`);
    await this.settling.get(`${found.session}:${found.turn}`);
    const record = this.current(this.store.of(found.session).find((r) => r.turn === found.turn) ?? found);
    const change = record.change;
    if (!change?.start_commit) {
      const why = change?.error ? `its snapshot failed: ${change.error}` : change ? 'its start snapshot is not taken yet' : 'its pane was not in a git work tree';
      throw refusedByState(`no_change: turn ${record.turn} has no change to show (${why})`, 'no_change');
    }
    const against = change.end_commit ? ('end' as const) : ('worktree' as const);
    const to = change.end_commit ?? (await this.snapshots.tree(change.repo));
    const { text, truncated } = await this.snapshots.diff(change.repo, change.start_commit, to, { stat: filter.stat ?? false, maxBytes: TURN_DIFF_MAX_BYTES });
    return { turn: record, diff: text, truncated, against };
  }

  /** Removes ended turns' records and every ref of theirs (of a pane, a session, or all). */
  async prune(filter: { surface_id?: number; session?: string }): Promise<{ records: number; refs: number }> {
    // An ended turn still taking its end snapshot or tokens would come back, and its ref with it.
    await Promise.all(this.settling.values());
    const picks = (r: TurnRecord) => (filter.session === undefined || r.session === filter.session) && (filter.surface_id === undefined || r.surface_id === filter.surface_id);
    const repos = new Set(this.list(filter).flatMap((r) => (r.change ? [r.change.repo] : [])));
    // This home's sessions: the refs of another Paneflow home in the same repository are its own.
    const ours = new Set(this.store.sessions());
    const removed = this.store.remove(picks);
    const keep = new Set([...this.running.values()].flatMap((r) => (r.change ? [r.change.ref] : [])));
    let refs = 0;
    for (const repo of repos) {
      const prefix = filter.session ? `${TURN_REFS}${filter.session}/` : TURN_REFS;
      // Refs no record names any more (a record set aside, a serve killed mid-write) go too.
      let under = (await this.snapshots.refsUnder(repo, prefix)).filter((ref) => !keep.has(ref) && ours.has(ref.slice(TURN_REFS.length).split('/')[0]));
      if (filter.surface_id !== undefined) under = under.filter((ref) => removed.some((r) => r.change?.ref === ref));
      await this.snapshots.deleteRefs(repo, under);
      refs += under.length;
    }
    return { records: removed.length, refs };
  }

  /** What each agent did since `sinceMs` (default: when the person last looked), and what it waits for now. */
  digest(sinceMs: number | undefined, waiting: (session: string) => DigestAgent['waiting']): { since_ms: number; looked_at_ms: number | null; agents: DigestAgent[] } {
    const lookedAt = this.store.lookedAt();
    const since = sinceMs ?? lookedAt ?? this.ctx.clock.now() - DIGEST_DEFAULT_MS;
    const agents = this.ctx.model
      .orderedPanes()
      .map((pane) => digestAgent(pane, this.list({ session: pane.session, since_ms: since }), waiting(pane.session), this.ctx.views.get(pane.session)?.agent?.runtimeId ?? null))
      .filter((agent) => agent !== null);
    return { since_ms: since, looked_at_ms: lookedAt, agents };
  }

  looked(): number {
    const now = this.ctx.clock.now();
    this.store.setLookedAt(now);
    return now;
  }

  /** A record with what its running turn has learnt since it was saved. */
  private current(record: TurnRecord): TurnRecord {
    const running = this.running.get(record.session);
    return running && running.open.record.turn === record.turn ? this.recordOf(running) : record;
  }

  private recordOf(running: Running): TurnRecord {
    return { ...running.open.record, change: running.change };
  }

  private start(view: View, pane: PaneRecord, step: TurnStep) {
    const hint = this.prompts.get(view.session);
    this.prompts.delete(view.session);
    const prompt = hint && step.nowMs - hint.atMs <= PROMPT_WINDOW_MS ? { text: hint.text, source: hint.source } : null;
    const open = startTurn(
      {
        turn: this.store.nextTurn(view.session),
        session: view.session,
        generation: view.generation,
        surface_id: pane.surface_id,
        workspace_id: pane.workspace_id,
        pane_name: pane.name,
        runtime_id: view.agent?.runtimeId ?? null,
        provider_session_id: providerSessionId(view),
      },
      step,
      prompt,
    );
    const transcript = transcriptOf(view);
    const running: Running = { open, agent: view.agent, change: null, mark: TranscriptMark.at(transcript), transcript, startTree: null, work: Promise.resolve(), saveTimer: null };
    this.running.set(view.session, running);
    this.save(running);
    this.publish('turn_started', this.recordOf(running));
    // Spawning git costs the event loop a millisecond or two: after what this turn of it sends.
    const cwd = view.foregroundCwd ?? view.cwd;
    running.work = new Promise((resolve) => setImmediate(resolve)).then(() => this.startSnapshot(running, cwd));
  }

  private async startSnapshot(running: Running, cwd: string) {
    const { record } = running.open;
    try {
      const repo = await this.snapshots.workTree(cwd);
      if (!repo) return;
      const ref = `${TURN_REFS}${record.session}/${record.turn}`;
      running.change = emptyChange(repo, ref);
      running.startTree = this.snapshots.treeNow(repo, { continuing: this.lastEndTree.get(record.session) });
      const snapshot = await this.snapshots.commit(repo, ref, `paneflow: turn ${record.turn} of ${label(record)}, at its start`, null, await running.startTree);
      running.change = { ...running.change, start_commit: snapshot.commit, start_at_ms: snapshot.at_ms, skipped: snapshot.skipped };
    } catch (error) {
      running.change = running.change ? { ...running.change, error: (error as Error).message } : null;
      this.ctx.log(`turn ${record.session}/${record.turn}: the start snapshot failed: ${(error as Error).message}`);
    }
    if (this.running.get(record.session) === running) this.save(running);
  }

  private end(running: Running, step: TurnStep, ending: TurnRecord['ended'] & string, answer: Answer) {
    this.running.delete(running.open.record.session);
    this.ctx.clock.clearTimeout(running.saveTimer);
    let record = endTurn(running.open, step, ending, answer);
    void this.store.save({ ...record, change: running.change });
    const key = `${record.session}:${record.turn}`;
    const runtime = record.runtime_id ? this.ctx.catalog.bySlug.get(record.runtime_id) : undefined;
    // The end's tree is asked for now, so it is taken before any tree a later turn asks for.
    const repo = running.change?.repo;
    const endTree = repo && ending !== 'interrupted' ? this.snapshots.treeNow(repo, { apartFrom: running.startTree }) : null;
    endTree?.catch(() => undefined);
    if (endTree) this.lastEndTree.set(record.session, endTree);
    else this.lastEndTree.delete(record.session);
    const settle = running.work
      .then(() => this.endSnapshot(running, record, endTree))
      .then(async () => {
        await sleep(this.ctx.clock, TRANSCRIPT_SETTLE_MS);
        const view = this.ctx.views.get(record.session);
        const transcript = (view && transcriptOf(view)) ?? running.transcript;
        record = { ...record, change: running.change, tokens: await turnTokensOf(runtime, transcript, await running.mark, record, this.ctx.log) };
      })
      .catch((error: Error) => this.ctx.log(`turn ${key}: ${error.message}`))
      // Settled once told: a prune that waits for it finds the record whole and its event sent.
      .finally(() => {
        this.settling.delete(key);
        return this.finish({ ...record, change: running.change });
      });
    this.settling.set(key, settle);
  }

  /** The end snapshot, from the tree asked for when the turn ended (or now, if its repository was not known yet). */
  private async endSnapshot(running: Running, record: TurnRecord, endTree: Promise<Tree> | null) {
    const change = running.change;
    if (!change?.start_commit || record.ended === 'interrupted') return;
    try {
      const tree = await (endTree ?? this.snapshots.treeNow(change.repo));
      const snapshot = await this.snapshots.commit(change.repo, change.ref, `paneflow: turn ${record.turn} of ${label(record)}, at its end`, change.start_commit, tree);
      const summary = await this.snapshots.summary(change.repo, change.start_commit, snapshot.commit);
      running.change = { ...change, ...summary, end_commit: snapshot.commit, end_at_ms: snapshot.at_ms, skipped: mergeSkipped(change.skipped, snapshot.skipped) };
    } catch (error) {
      running.change = { ...change, error: (error as Error).message };
      this.ctx.log(`turn ${record.session}/${record.turn}: the end snapshot failed: ${(error as Error).message}`);
    }
  }

  /** An ended record, whole: saved, and told once it is on disk. */
  private finish(record: TurnRecord): Promise<void> {
    return this.store.save(record).then(() => this.publish('turn_ended', record));
  }

  /**
   * The first look at a session since serve started: its last record, if open, is the turn it is
   * in now (the same generation, still in turn), or one whose end this serve never saw.
   */
  private reconcile(view: View, nowMs: number) {
    const last = this.store.of(view.session).at(-1);
    if (!last || last.ended !== null) return;
    if (statusInTurn(view.entry.status) && view.lifecycle === 'live' && view.generation === last.generation) {
      // The phase the record was last saved in: this reduction then opens a question it never
      // saved, or closes one that was answered while serve was away, as any step does.
      const phase = last.questions.at(-1)?.answered_at_ms === null ? 'waiting' : 'working';
      const running: Running = { open: { record: last, phase, phaseSinceMs: nowMs }, agent: view.agent, change: last.change, mark: Promise.resolve(null), transcript: transcriptOf(view), startTree: null, work: Promise.resolve(), saveTimer: null };
      this.running.set(view.session, running);
      // Serve was killed before its start snapshot was taken: the turn's start is the earliest one left.
      if (!last.change?.start_commit && !last.change?.error) running.work = this.startSnapshot(running, view.foregroundCwd ?? view.cwd);
      return;
    }
    void this.finish(interruptTurn(last));
  }

  /**
   * Who ended a wait: serve's own typing (answer, key, send) or a person's at a face (the host
   * says which client carried it), whichever came last since the question was asked.
   */
  private answerOf(view: View, running: Running): Answer {
    const askedAt = running.open.record.questions.at(-1)?.asked_at_ms ?? running.open.phaseSinceMs;
    const action = this.actions.get(view.session);
    const typed = view.typed && view.typed.at_ms >= askedAt && FACES[view.typed.client] ? { by: FACES[view.typed.client], text: view.typed.text, atMs: view.typed.at_ms } : null;
    const own = action && action.atMs >= askedAt ? action : null;
    const latest = [own, typed].filter((a) => a !== null).sort((a, b) => b.atMs - a.atMs)[0];
    return latest ? { by: latest.by, text: latest.text } : null;
  }

  /** Serve stops: the records being written are finished, and none is written after. */
  close(): Promise<void> {
    return this.store.close();
  }

  private save(running: Running) {
    this.ctx.clock.clearTimeout(running.saveTimer);
    running.saveTimer = null;
    void this.store.save(this.recordOf(running));
  }

  private saveSoon(running: Running) {
    running.saveTimer ??= this.ctx.clock.setTimeout(() => {
      running.saveTimer = null;
      if (this.running.get(running.open.record.session) === running) this.save(running);
    }, SAVE_EVERY_MS);
  }

  private publish(type: 'turn_started' | 'turn_ended', record: TurnRecord) {
    this.ctx.publish({ type, surface_id: record.surface_id, session: record.session, turn: record });
  }

  private async deleteRefs(records: TurnRecord[]) {
    const byRepo = new Map<string, string[]>();
    for (const record of records) if (record.change) byRepo.set(record.change.repo, [...(byRepo.get(record.change.repo) ?? []), record.change.ref]);
    for (const [repo, refs] of byRepo) {
      await this.snapshots.deleteRefs(repo, refs).catch((error: Error) => this.ctx.log(`pruning turn refs in ${repo}: ${error.message}`));
    }
  }
}

const label = (record: TurnRecord) => record.pane_name ?? `session ${record.session}`;
const transcriptOf = (view: View) => view.resume?.transcript_path ?? view.hook.transcript_path;

function emptyChange(repo: string, ref: string): TurnChange {
  return { repo, ref, start_commit: null, end_commit: null, start_at_ms: null, end_at_ms: null, files_changed: 0, added: 0, removed: 0, insertions: 0, deletions: 0, binary: 0, files: [], skipped: [], error: null };
}

function mergeSkipped(a: TurnChange['skipped'], b: TurnChange['skipped']) {
  const paths = new Set(a.map((s) => s.path));
  return [...a, ...b.filter((s) => !paths.has(s.path))];
}
