import { INTRODUCER, MAX_BODY_BYTES_BEL, MAX_BODY_BYTES_ST, MAX_SEQUENCE_BYTES } from '../limits';
import { Store } from '../store';
import { printable } from './escape';
import { FramingCapture, type CapturedSequence, type FramingEvent } from './framing';
import { lintBody } from './lint';
import { ruleInfo, ruleRank, type RuleId, type Severity } from './rules';

export interface Finding {
  severity: Severity;
  /** Stable id, e.g. `grammar.unknown_key`. */
  rule: string;
  /** The OSC7501.md section it rests on, e.g. `§3.6`. */
  section: string;
  /** One line: what was wrong and what a terminal does with it. */
  message: string;
  /** 0-based index, in stream order, of the OSC 7501 sequence it concerns; null for the stream. */
  sequence: number | null;
  /** That sequence's body, printable (`\xNN`, `\e`, `\\`), at most 80 chars then `…`. */
  excerpt: string | null;
}

export type Verdict = 'conformant' | 'conformant_with_warnings' | 'not_conformant' | 'silent';

export interface ConformanceReport {
  verdict: Verdict;
  /** `sequences` = reports + clears + queries + discarded (aborted and unterminated ones included). */
  counts: { sequences: number; reports: number; clears: number; queries: number; discarded: number };
  /** In stream order; stream-level ones (at exit) last. */
  findings: Finding[];
}

export interface CheckOptions {
  /** The receiver answers the `?` query (default true). false = a terminal that never answers, to check the program's fallback. */
  answers?: boolean;
}

/** Past this many findings of one rule, the rest are counted in one line. */
const FINDINGS_PER_RULE = 20;
const ENDED_BY: Record<number, string> = { 0x18: 'CAN', 0x1a: 'SUB' };
const BARE_ESC = 'ended by an ESC not followed by "\\": a terminal takes it as ST and starts a new escape sequence there; end with ESC \\ or BEL';
const BEFORE_REPLY = 'written after a query in the same read, before the reply could exist: wait for the reply (or the DA1 answer) before reporting';
const UNANSWERED = 'written after a query that got no reply: a terminal without OSC 7501 support shows it or drops it; stay silent until a reply arrives';

function recordName(id: string | null): string {
  return id === null ? 'the root record' : `record ${JSON.stringify(id)}`;
}

/**
 * Judges a program's OSC 7501 output (the emitter side) against OSC7501.md: framing, every field
 * of every body, and the rules of the stream (answering queries, turn order, what is left at exit).
 * Bodies are interpreted by the library's own parser, so a report the checker passes is one a
 * Paneflow terminal applies, and one the parser discards always carries a violation.
 */
export class ConformanceChecker {
  private readonly answers: boolean;
  private readonly capture = new FramingCapture();
  /** The records a terminal would hold, for turn order, evictions and the state at exit. */
  private readonly store = new Store();
  private readonly findings: Finding[] = [];
  private readonly counts = { sequences: 0, reports: 0, clears: 0, queries: 0, discarded: 0 };
  private read = 0;
  /** The read that carried the last query. */
  private queryRead = -1;
  /** A reply went out (after an earlier read): from then on the program knows the terminal supports it. */
  private replied = false;
  /** Findings per rule, so that a program repeating one mistake prints it a bounded number of times. */
  private readonly perRule = new Map<string, number>();
  private lastExcerpt: string | null = null;
  private exited = false;

  constructor(options: CheckOptions = {}) {
    this.answers = options.answers ?? true;
  }

  /** One read of the program's output (bytes or string), in order. A receiver answers a query right after the read that carried it. */
  feed(chunk: string | Uint8Array): void {
    if (this.exited) throw new Error('ConformanceChecker: feed() after exit()');
    this.read++;
    if (this.answers && this.queryRead !== -1) this.replied = true;
    this.take(this.capture.feed(chunk));
  }

  /** The program exited (or was hung up): every byte it wrote has been fed. */
  exit(): void {
    if (this.exited) return;
    this.exited = true;
    this.take(this.capture.end());
    // What a terminal removes at exit (§10) is what the program left in a turn.
    for (const record of this.store.records()) {
      if (record.state === 'working' || record.state === 'blocked') {
        const message = `${recordName(record.id)} is still ${record.state} at exit: a terminal removes it, but the program should declare idle, done or error, or clear it, first`;
        this.add('exit.left_in_turn', null, null, message);
      }
    }
  }

  /** The report so far (callable any time; exit() first for the at-exit rules). */
  report(): ConformanceReport {
    const order = (finding: Finding) => finding.sequence ?? Infinity;
    const findings = this.findings
      .map((finding) => ({ ...finding }))
      .sort((a, b) => order(a) - order(b) || ruleRank(a.rule) - ruleRank(b.rule));
    for (const [rule, count] of this.perRule) {
      if (count <= FINDINGS_PER_RULE) continue;
      const { section, severity } = ruleInfo(rule as RuleId);
      findings.push({ severity, rule, section, message: `${count - FINDINGS_PER_RULE} more like the ones above, not listed`, sequence: null, excerpt: null });
    }
    const verdict: Verdict =
      this.counts.sequences === 0
        ? 'silent'
        : findings.some((finding) => finding.severity === 'violation')
          ? 'not_conformant'
          : findings.length > 0
            ? 'conformant_with_warnings'
            : 'conformant';
    return { verdict, counts: { ...this.counts }, findings };
  }

  private add(rule: RuleId, sequence: number | null, excerpt: string | null, message: string) {
    const { section, severity } = ruleInfo(rule);
    const count = (this.perRule.get(rule) ?? 0) + 1;
    this.perRule.set(rule, count);
    if (count <= FINDINGS_PER_RULE) this.findings.push({ severity, rule, section, message, sequence, excerpt });
  }

  private take(events: FramingEvent[]) {
    for (const event of events) {
      if (event.type === 'sequence') this.judge(event.sequence);
      else this.add('framing.esc_terminator', this.counts.sequences - 1, this.lastExcerpt, BARE_ESC);
    }
  }

  private judge(sequence: CapturedSequence) {
    const index = this.counts.sequences++;
    const { excerpt } = sequence;
    this.lastExcerpt = excerpt;
    const add = (rule: RuleId, message: string) => this.add(rule, index, excerpt, message);

    if (sequence.controls > 0) {
      const first = printable(String.fromCharCode(sequence.firstControl!), 8);
      add('framing.control_dropped', `${sequence.controls} C0 control byte(s) inside the sequence (first ${first}): a terminal drops them`);
    }
    if (sequence.strayC1 !== null) {
      add('framing.c1_terminator', `byte 0x9C at body offset ${sequence.strayC1} is not a terminator: a terminal keeps reading the sequence up to the next ESC or BEL`);
    }
    if (sequence.ending === 'aborted') {
      this.counts.discarded++;
      add('framing.aborted', `${ENDED_BY[sequence.abortedBy!]} inside the sequence aborts it: a terminal applies nothing`);
      return;
    }
    if (sequence.ending === 'unterminated') {
      this.counts.discarded++;
      add('framing.unterminated', 'the output ended inside the sequence (no BEL or ESC \\): a terminal applies nothing');
      return;
    }
    const bel = sequence.ending === 'bel';
    if (sequence.length > (bel ? MAX_BODY_BYTES_BEL : MAX_BODY_BYTES_ST)) {
      this.counts.discarded++;
      const total = INTRODUCER.length + sequence.length + (bel ? 1 : 2);
      add('framing.too_long', `the sequence is ${total} bytes, over ${MAX_SEQUENCE_BYTES}: a terminal discards it`);
      return;
    }

    const { parsed, findings } = lintBody(sequence.body, bel ? 'bel' : 'st');
    for (const finding of findings) add(finding.rule, finding.message);
    if (parsed.type === 'query') {
      this.counts.queries++;
      this.queryRead = this.read;
      return;
    }
    // Only the first answer matters: a program that has had one may report beside a later query.
    if (this.answers && this.queryRead === this.read && !this.replied) {
      add('order.before_reply', BEFORE_REPLY);
    } else if (!this.answers && this.queryRead !== -1) {
      add('order.reported_unanswered', UNANSWERED);
    }
    if (parsed.type === 'discarded') {
      this.counts.discarded++;
      return;
    }
    if (parsed.type === 'clear') {
      this.counts.clears++;
      this.store.apply(parsed);
      return;
    }

    this.counts.reports++;
    const inTurn = this.turnOpen(parsed.id);
    const record = recordName(parsed.id);
    if (!inTurn && parsed.state === 'done') {
      const message = `done for ${record} with no turn open (no working or blocked since its last idle, done or error): a terminal shows the end of a turn that never started`;
      add('order.done_outside_turn', message);
    } else if (!inTurn && parsed.state === 'blocked' && parsed.kind !== 'auth') {
      const kind = parsed.kind ? ` (${parsed.kind})` : '';
      add('order.blocked_outside_turn', `blocked${kind} for ${record} with no turn open: only kind=auth may come before a turn`);
    }
    for (const change of this.store.apply(parsed)) {
      if (change.type === 'evicted') {
        const message = `a new record with ${this.store.capacity} live: a terminal evicts the least recently updated, ${recordName(change.id)}`;
        add('records.evicted', message);
      }
    }
  }

  /** A turn is open for a record when it, one of its ancestors or the root is working or blocked: a sub-task's question belongs to its program's turn. */
  private turnOpen(id: string | null): boolean {
    const segments = id === null ? [] : id.split('/');
    for (let depth = segments.length; depth >= 0; depth--) {
      const state = this.store.get(depth === 0 ? null : segments.slice(0, depth).join('/'))?.state;
      if (state === 'working' || state === 'blocked') return true;
    }
    return false;
  }
}

/** One-shot: every read in order, then exit (unless options.exited === false). */
export function checkOutput(
  chunks: Iterable<string | Uint8Array>,
  options: CheckOptions & { exited?: boolean } = {},
): ConformanceReport {
  const checker = new ConformanceChecker(options);
  for (const chunk of chunks) checker.feed(chunk);
  if (options.exited !== false) checker.exit();
  return checker.report();
}
