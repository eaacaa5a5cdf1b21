import { moveAside, readJson, writeJsonAtomic } from '@paneflow/instance';
import { AUTO_ANSWER_SHOWN_MS, AUTO_ANSWERS_LISTED, AutoAnswer, ErrorCode, RULE_PER_HOUR_MAX, RpcError, TimeMs, validate } from '@paneflow/protocol';
import Type, { type Static } from 'typebox';

/** `per_hour` counts the answers of the last hour. */
const HOUR_MS = 60 * 60 * 1000;

/**
 * `<home>/serve/rules.json`: whether the rules act (a person's `rules off` outlives serve) and what
 * they did in the last hour, so that `per_hour` holds across a restart and the inbox's history
 * and a pane's latest automatic answer survive one.
 */
const RulesFile = Type.Object(
  {
    version: Type.Literal(1),
    enabled: Type.Boolean(),
    /** Each rule's answer times in the last hour, oldest first. */
    used: Type.Record(Type.String(), Type.Array(TimeMs, { maxItems: RULE_PER_HOUR_MAX })),
    /** The automatic answers of the last hour, newest first. */
    answered: Type.Array(AutoAnswer, { maxItems: AUTO_ANSWERS_LISTED }),
  },
  { additionalProperties: false },
);
type RulesFile = Static<typeof RulesFile>;

/** The answer rules' state: the switch, each rule's answers this hour, the automatic answers shown. */
export class RulesStore {
  private on = true;
  private readonly used = new Map<string, number[]>();
  /** Newest first, at most AUTO_ANSWERS_LISTED. */
  private answered: AutoAnswer[] = [];
  /** Each pane's latest, shown in its status object for AUTO_ANSWER_SHOWN_MS (the list above is bounded). */
  private readonly latestOf = new Map<string, AutoAnswer>();
  /** The last failure to save, logged once until a save succeeds. */
  private unsaved: string | null = null;

  constructor(
    private readonly path: string,
    private readonly log: (message: string) => void,
  ) {
    this.load();
  }

  get enabled(): boolean {
    return this.on;
  }

  /** Turns every rule off or on; answers once it is on disk, else changes nothing (-32603 `not_saved`). */
  setEnabled(enabled: boolean): void {
    const before = this.on;
    this.on = enabled;
    try {
      writeJsonAtomic(this.path, this.file(Date.now()));
      this.unsaved = null;
    } catch (error) {
      this.on = before;
      throw new RpcError(ErrorCode.InternalError, `answer rules not turned ${enabled ? 'on' : 'off'}: ${this.path} cannot be written (${(error as Error).message})`, { reason: 'not_saved', applied: false });
    }
  }

  /** How many times `rule` answered in the hour before `now`. */
  usedLastHour(rule: string, now: number): number {
    return this.times(rule, now).length;
  }

  /**
   * Counts an answer of `rule` at `now`, before it is typed, so that two panes cannot both take a
   * rule's last answer of the hour; the function returned takes it back (nothing was typed).
   */
  take(rule: string, now: number): () => void {
    const times = this.times(rule, now);
    times.push(now);
    return () => {
      const i = times.lastIndexOf(now);
      if (i !== -1) times.splice(i, 1);
    };
  }

  /** An automatic answer given: kept for the inbox's history and its pane's status, and saved. */
  record(answer: AutoAnswer): void {
    this.answered = [answer, ...this.answered].slice(0, AUTO_ANSWERS_LISTED);
    this.latestOf.set(answer.session, answer);
    this.save(answer.at_ms);
  }

  /** The automatic answers of the last hour, newest first. */
  history(now: number): AutoAnswer[] {
    return this.answered.filter((a) => now - a.at_ms < AUTO_ANSWER_SHOWN_MS);
  }

  /** A pane's latest automatic answer while it is shown, else null. */
  latest(session: string, now: number): AutoAnswer | null {
    const answer = this.latestOf.get(session);
    if (answer && now - answer.at_ms < AUTO_ANSWER_SHOWN_MS) return answer;
    this.latestOf.delete(session);
    return null;
  }

  /** A rule's answer times within the hour before `now` (older ones dropped), the kept array itself. */
  private times(rule: string, now: number): number[] {
    let times = this.used.get(rule);
    if (!times) this.used.set(rule, (times = []));
    while (times.length > 0 && now - times[0] >= HOUR_MS) times.shift();
    return times;
  }

  private file(now: number): RulesFile {
    const used: Record<string, number[]> = {};
    for (const rule of [...this.used.keys()]) {
      const times = this.times(rule, now);
      if (times.length > 0) used[rule] = times.slice(-RULE_PER_HOUR_MAX);
      else this.used.delete(rule);
    }
    return { version: 1, enabled: this.on, used, answered: this.history(now) };
  }

  /** Saved after each answer; a failure is logged once and the counts are kept in memory. */
  private save(now: number): void {
    try {
      writeJsonAtomic(this.path, this.file(now));
      if (this.unsaved) this.log(`answer rules: ${this.path} saved again`);
      this.unsaved = null;
    } catch (error) {
      const why = (error as Error).message;
      if (!this.unsaved) this.log(`answer rules: ${this.path} not saved (${why}); answers counted in memory only`);
      this.unsaved = why;
    }
  }

  /** The saved state; a file that is not one is moved aside and named once, and the rules stay off. */
  private load(): void {
    let problem: string;
    try {
      const value = readJson(this.path);
      if (value === undefined) return;
      const fault = validate(RulesFile, value);
      if (fault === null) {
        const file = value as RulesFile;
        const now = Date.now();
        this.on = file.enabled;
        for (const [rule, times] of Object.entries(file.used)) this.used.set(rule, times.filter((t) => t <= now).sort((a, b) => a - b));
        this.answered = file.answered.filter((a) => a.at_ms <= now).sort((a, b) => b.at_ms - a.at_ms);
        for (const answer of [...this.answered].reverse()) this.latestOf.set(answer.session, answer);
        return;
      }
      problem = fault.message;
    } catch (error) {
      problem = (error as Error).message;
    }
    let aside: string;
    try {
      aside = `moved to ${moveAside(this.path)}`;
    } catch (error) {
      aside = `not moved aside (${(error as Error).message})`;
    }
    // Whether the person had turned them off is lost with the file: off is the side that types nothing.
    this.on = false;
    this.log(`${this.path} is not the answer rules' state: ${problem}; ${aside}; the rules are off until \`paneflow rules on\``);
  }
}
