import { readCheckedJson, writeJsonAtomic } from '@paneflow/instance';
import { findLimitLine } from '@paneflow/procscan';
import { nullable, TimeMs, UsageLimit, validate, type HostMethods, type ResultOf } from '@paneflow/protocol';
import Type, { type Static } from 'typebox';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Timer } from '../clock';
import type { ServeContext } from '../context';
import type { Sending } from '../sending';
import type { Before, Reduction } from '../status';
import type { View } from '../views';

/** The newest screen rows a limit line is looked for in: the agent prints it last, above its input box. */
const LIMIT_SCREEN_LINES = 40;
/** A limit line is kept in the status as printed, up to this long. */
const LIMIT_LINE_CHARS = 200;

/**
 * One session's usage limit as `<home>/serve/limits.json` keeps it: the observation, and whether a
 * later turn ended it (`cleared`) — kept so that a serve restart neither shows an old limit again,
 * nor forgets a continue that is waiting, nor sends one twice.
 */
const LimitRecord = Type.Object({
  ...UsageLimit.properties,
  /** Where the line is in the pane's output, counted from its first line (dropped rows included): the same line read again is the same limit. */
  line_number: Type.Integer({ minimum: 0 }),
  /** The agent that printed it: only it is continued. */
  runtime_id: Type.String(),
  cleared: Type.Boolean(),
  continue_at_ms: nullable(TimeMs),
});
type LimitRecord = Static<typeof LimitRecord>;
const LimitsFile = Type.Object({ version: Type.Literal(1), sessions: Type.Record(Type.String(), LimitRecord) });

/**
 * Usage limits (issue 33): when an agent's turn ends, it errors, or it is flagged stalled, the
 * newest rows of its screen are matched against its runtime's `[limits]` markers (runtime.toml).
 * A match shows as `supervision.limit` with its reset, notified once, until the agent's next turn
 * starts. With `supervisor.continue_at_reset`, the runtime's `continue_prompt` is submitted once
 * after the reset plus `continue_margin_secs`, and its start confirmed.
 */
export class Limits {
  private readonly records = new Map<string, LimitRecord>();
  private readonly timers = new Map<string, Timer>();
  private readonly path: string;
  /** The zone a printed clock without one is read in: the agents run on this machine. */
  private readonly localZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  constructor(
    private readonly ctx: ServeContext,
    private readonly reduction: Reduction,
    private readonly sending: Sending,
  ) {
    this.path = join(ctx.endpoints.home, 'serve', 'limits.json');
    this.load();
    reduction.follow((view, _pane, before) => this.followed(view, before));
    reduction.addSupervision((view) => {
      const record = this.records.get(view.session);
      // A turn that runs is a new one, and ends the limit (marked after the reduction), unless the continue began it.
      const over = !record || record.cleared || (view.entry.status === 'busy' && record.continue !== 'sent' && record.continue !== 'started');
      return { limit: over ? null : usageLimit(record) };
    });
  }

  private followed(view: View, before: Before): void {
    const status = view.entry.status;
    const record = this.records.get(view.session);
    if (record && !record.cleared) this.schedule(view.session, record);
    if (status === before.status) return;
    // A new turn (not the return from a wait for the person) ends the limit, except the one its continue began.
    if (status === 'busy' && before.status !== 'attention' && record && !record.cleared && record.continue !== 'sent' && record.continue !== 'started') this.clear(view, record);
    const ended = (before.status === 'busy' || before.status === 'attention') && status === 'idle';
    if (ended || status === 'errored') void this.look(view);
  }

  /** Reads the newest rows of the pane and records a limit line among them, if its runtime has markers. */
  async look(view: View): Promise<void> {
    const runtime = view.agent ? this.ctx.catalog.bySlug.get(view.agent.runtimeId) : undefined;
    if (!runtime || runtime.limitMarkers.length === 0) return;
    let read: ResultOf<HostMethods, 'session.read'>;
    try {
      read = await this.ctx.host.request('session.read', { session: view.session, lines: LIMIT_SCREEN_LINES });
    } catch (error) {
      this.ctx.log(`limits: reading ${view.session}: ${(error as Error).message}`);
      return;
    }
    const now = this.ctx.clock.now();
    const lines = read.text.split('\n');
    const found = findLimitLine(runtime.limitMarkers, lines, now, this.localZone);
    const previous = this.records.get(view.session);
    // The continued turn ended: its limit is over, whatever the screen still shows.
    if (previous && !previous.cleared && (previous.continue === 'started' || previous.continue === 'sent')) this.clear(view, previous);
    if (!found) return;
    const line = found.line.slice(0, LIMIT_LINE_CHARS);
    const lineNumber = read.dropped_rows + read.total_lines - lines.length + found.index;
    // The same line still on the screen is the limit already seen, not a new one.
    if (previous && previous.line_number === lineNumber && previous.line === line) return;
    const { continue_at_reset, continue_margin_secs } = this.ctx.config.current.supervisor;
    const continues = found.resetsAtMs === null ? 'unknown_reset' : continue_at_reset && runtime.limits?.continue_prompt ? 'waiting' : 'off';
    const record: LimitRecord = {
      seen_at_ms: now,
      line,
      resets_at_ms: found.resetsAtMs,
      continue: continues,
      line_number: lineNumber,
      runtime_id: runtime.slug,
      cleared: false,
      continue_at_ms: continues === 'waiting' ? found.resetsAtMs! + continue_margin_secs * 1000 : null,
    };
    this.records.set(view.session, record);
    this.save();
    this.reduction.announce(view);
    const resets = found.resetsAtMs === null ? 'no reset time given' : `resets ${new Date(found.resetsAtMs).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' })}`;
    this.reduction.notice(view, { kind: 'usage_limit', body: `${line} (${resets})` });
    this.schedule(view.session, record);
  }

  /** The continue's timer, for a limit that waits for it (also after a restart: the file says when). */
  private schedule(session: string, record: LimitRecord): void {
    if (record.continue !== 'waiting' || record.continue_at_ms === null || this.timers.has(session)) return;
    const timer = this.ctx.clock.setTimeout(() => {
      this.timers.delete(session);
      void this.continueAfterReset(session, record);
    }, Math.max(0, record.continue_at_ms - this.ctx.clock.now()));
    this.timers.set(session, timer);
  }

  /** Once per reset: marked `sent` on disk before it goes, so that no restart sends it again. */
  private async continueAfterReset(session: string, record: LimitRecord): Promise<void> {
    const view = this.ctx.views.get(session);
    const pane = this.ctx.model.paneBySession(session);
    if (!view || !pane || this.records.get(session) !== record || record.cleared || record.continue !== 'waiting') return;
    const runtime = this.ctx.catalog.bySlug.get(record.runtime_id);
    const prompt = runtime?.limits?.continue_prompt;
    // Typed only to the agent that hit the limit: one that left its pane gets nothing, and did not start.
    const running = view.lifecycle === 'live' && view.agent?.runtimeId === record.runtime_id;
    let started = false;
    if (running && prompt) {
      record.continue = 'sent';
      this.save();
      this.reduction.announce(view);
      try {
        started = (await this.sending.supervisorSubmit(pane.surface_id, prompt)).started === true;
      } catch (error) {
        this.ctx.log(`limits: continuing ${session}: ${(error as Error).message}`);
      }
      if (this.records.get(session) !== record) return;
    }
    record.continue = started ? 'started' : 'not_started';
    this.save();
    this.reduction.announce(view);
    if (started) return;
    const body = running ? `"${prompt}" was sent after the usage limit's reset, and no turn started` : `${runtime?.label ?? record.runtime_id} is no longer running here: nothing was sent after the usage limit's reset`;
    this.reduction.notice(view, { kind: 'continue_not_started', body }, record.runtime_id);
  }

  private clear(view: View, record: LimitRecord): void {
    record.cleared = true;
    this.ctx.clock.clearTimeout(this.timers.get(view.session));
    this.timers.delete(view.session);
    this.save();
    this.reduction.announce(view);
  }

  /** The saved limits; a file that is not one is moved aside and named in the log (nothing is continued from it). */
  private load(): void {
    const problemOf = (value: unknown) => {
      const invalid = validate(LimitsFile, value);
      return invalid && `${invalid.field}: ${invalid.message}`;
    };
    const file = readCheckedJson<Static<typeof LimitsFile>>(this.path, problemOf, { what: 'a limits file', then: 'no continue waits', log: this.ctx.log }).value;
    for (const [session, record] of Object.entries(file?.sessions ?? {})) this.records.set(session, record);
  }

  /** Writes every limit of a session serve still has (one that is gone is forgotten here). */
  private save(): void {
    for (const session of this.records.keys()) if (!this.ctx.views.has(session)) this.records.delete(session);
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      writeJsonAtomic(this.path, { version: 1, sessions: Object.fromEntries(this.records) });
    } catch (error) {
      this.ctx.log(`limits: writing ${this.path}: ${(error as Error).message}`);
    }
  }
}

const usageLimit = ({ seen_at_ms, line, resets_at_ms, continue: continues }: LimitRecord): UsageLimit => ({ seen_at_ms, line, resets_at_ms, continue: continues });
