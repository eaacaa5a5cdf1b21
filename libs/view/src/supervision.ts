// How every face words what the supervisor did or saw in a pane (libs/protocol/src/supervisor.ts):
// its queue, a hold on it, a stall, a usage limit and its continue, the latest automatic answer.
// Observations beside the declared state, never in its place: a face shows them next to its badge.
// Pure; the local clock is only read through `Date` for the reset's time of day.
import type { LimitContinue, QueueHold, Stall, Supervision, UsageLimit } from '@paneflow/protocol/supervisor';
import { displayText } from './text';

/** What kind of word a badge is, for a face's colour: an error to act on, a warning, or news. */
export type SupervisionTone = 'error' | 'warn' | 'info';

export interface SupervisionBadge {
  kind: 'limit' | 'stalled' | 'queue_held' | 'queued' | 'answered';
  /** The badge's few words (`stalled 12m`, `limit — resets 15:00`), cleaned by `displayText`. */
  text: string;
  /** The facts behind it in a line (`no output 12m, no CPU 12m, no hook 14m`), cleaned; null when the words say all. */
  detail: string | null;
  tone: SupervisionTone;
}

/** An age in few characters: `40s`, `12m`, `2h 05m`, `3d`. */
export function ageText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d`;
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const twoDigits = (n: number) => String(n).padStart(2, '0');

/** A moment as the local clock shows it: `15:00`, with its weekday (`Sat 15:00`) when it is not today. */
export function clockText(atMs: number, nowMs: number): string {
  const at = new Date(atMs);
  const now = new Date(nowMs);
  const sameDay = at.getFullYear() === now.getFullYear() && at.getMonth() === now.getMonth() && at.getDate() === now.getDate();
  const time = `${twoDigits(at.getHours())}:${twoDigits(at.getMinutes())}`;
  return sameDay ? time : `${WEEKDAYS[at.getDay()]} ${time}`;
}

const HOLD_WORDS: Record<QueueHold['reason'], string> = { errored: 'errored', not_started: 'not started', refused: 'refused' };

/** `queue held: errored`, its message the detail. */
export function queueHeldBadge(hold: QueueHold, queued: number): SupervisionBadge {
  const waiting = queued > 0 ? ` (${queued} waiting)` : '';
  return { kind: 'queue_held', text: displayText(`queue held: ${HOLD_WORDS[hold.reason]}${waiting}`), detail: hold.message ? displayText(hold.message) : null, tone: 'error' };
}

/**
 * `stalled 12m` (how long the agent has been silent while it declares working), and the facts:
 * `no output 12m, no CPU 12m, no hook 14m` — a fact never seen said so, a nudge sent said when.
 */
export function stalledBadge(stall: Stall, nowMs: number): SupervisionBadge {
  const since = (label: string, at: number | null, never: string) => (at === null ? never : `no ${label} ${ageText(nowMs - at)}`);
  const facts = [since('output', stall.last_output_ms, 'no output seen'), since('CPU', stall.last_cpu_ms, 'CPU unknown'), since('hook', stall.last_hook_ms, 'no hook seen')];
  if (stall.last_record_ms !== null) facts.push(since('record', stall.last_record_ms, ''));
  if (stall.nudged_at_ms !== null) facts.push(`nudged ${ageText(nowMs - stall.nudged_at_ms)} ago`);
  // Its age is the silence's (what a person asks: how long has it sat there?), not the flag's.
  const seen = [stall.last_output_ms, stall.last_cpu_ms, stall.last_hook_ms, stall.last_record_ms].filter((at): at is number => at !== null);
  const quietSince = seen.length > 0 ? Math.max(...seen) : stall.since_ms - stall.threshold_ms;
  return { kind: 'stalled', text: `stalled ${ageText(nowMs - quietSince)}`, detail: facts.join(', '), tone: 'warn' };
}

/** What became of the continue prompt, in words; null while continuing is off. */
const CONTINUE_WORDS: Record<LimitContinue, string | null> = {
  off: null,
  waiting: 'continue after reset',
  sent: 'continue sent',
  started: 'continued',
  not_started: 'continue did not start',
  unknown_reset: 'no continue: reset unknown',
};

/** `limit — resets 15:00` (the local clock), `limit — reset unknown`; with the continue's state when it is on; the line printed the detail. */
export function limitBadge(limit: UsageLimit, nowMs: number): SupervisionBadge {
  const reset = limit.resets_at_ms === null ? 'reset unknown' : `${limit.resets_at_ms > nowMs ? 'resets' : 'reset'} ${clockText(limit.resets_at_ms, nowMs)}`;
  const after = CONTINUE_WORDS[limit.continue];
  // A reset that cannot be read already says the continue cannot be timed.
  const shown = after && !(limit.continue === 'unknown_reset' && limit.resets_at_ms === null) ? ` · ${after}` : '';
  return { kind: 'limit', text: `limit — ${reset}${shown}`, detail: displayText(limit.line), tone: limit.continue === 'not_started' ? 'error' : 'warn' };
}

/** The supervisor's words for a pane, most pressing first (a limit, a stall, a held queue, the queue, the latest automatic answer); none when it saw nothing. */
export function supervisionBadges(supervision: Supervision | undefined, nowMs: number): SupervisionBadge[] {
  if (!supervision) return [];
  const badges: SupervisionBadge[] = [];
  if (supervision.limit) badges.push(limitBadge(supervision.limit, nowMs));
  if (supervision.stalled) badges.push(stalledBadge(supervision.stalled, nowMs));
  if (supervision.queue_held) badges.push(queueHeldBadge(supervision.queue_held, supervision.queued));
  else if (supervision.queued > 0) badges.push({ kind: 'queued', text: `queued ${supervision.queued}`, detail: null, tone: 'info' });
  const auto = supervision.auto_answer;
  if (auto) {
    const text = displayText(`answered '${auto.answer}' by rule '${auto.rule}' ${ageText(nowMs - auto.at_ms)} ago`);
    badges.push({ kind: 'answered', text, detail: displayText(auto.message), tone: 'info' });
  }
  return badges;
}

/** The badges in one line (`stalled 12m · queued 2`), or null: what a row's detail or a status line adds. */
export function supervisionText(supervision: Supervision | undefined, nowMs: number): string | null {
  const badges = supervisionBadges(supervision, nowMs);
  return badges.length === 0 ? null : badges.map((b) => b.text).join(' · ');
}

/** Whether the words of `supervision` change as time passes (an age, a reset passing): a face that shows them redraws now and then. */
export function supervisionAges(supervision: Supervision | undefined): boolean {
  return !!supervision && (supervision.stalled !== null || supervision.limit !== null || supervision.auto_answer !== null);
}
