import { Supervision, validate, type AutoAnswer, type Stall, type UsageLimit } from '@paneflow/protocol';
import { ageText, clockText, supervisionAges, supervisionBadges, supervisionText } from '../src';

const NOW = new Date(2026, 11, 5, 14, 30, 0).getTime();
const MIN = 60_000;
const SESSION = '6f1c2f3a-9b0e-4d7a-8c1e-2a3b4c5d6e7f';
const none: Supervision = { queued: 0, queue_held: null, stalled: null, limit: null, auto_answer: null };
const stall = (over: Partial<Stall> = {}): Stall => ({
  since_ms: NOW - 12 * MIN,
  threshold_ms: 10 * MIN,
  last_output_ms: NOW - 12 * MIN,
  last_cpu_ms: NOW - 12 * MIN,
  last_hook_ms: NOW - 14 * MIN,
  last_record_ms: null,
  nudged_at_ms: null,
  ...over,
});
const limit = (over: Partial<UsageLimit> = {}): UsageLimit => ({
  seen_at_ms: NOW - MIN,
  line: "You've hit your limit · resets 3pm (Europe/Berlin)",
  resets_at_ms: new Date(2026, 11, 5, 15, 0, 0).getTime(),
  continue: 'off',
  ...over,
});
const answer = (over: Partial<AutoAnswer> = {}): AutoAnswer => ({ rule: 'tests', answer: 'yes', message: 'approve Bash: npm test', state_seq: 4, at_ms: NOW - 3 * MIN, surface_id: 2, session: SESSION, ...over });
const words = (s: Partial<Supervision>) => supervisionBadges({ ...none, ...s }, NOW).map((b) => b.text);

test('the fixtures are what the contract allows', () => {
  for (const s of [none, { ...none, stalled: stall(), limit: limit(), auto_answer: answer(), queued: 2, queue_held: { reason: 'errored', message: 'x', since_ms: NOW } }]) {
    expect(validate(Supervision, s)).toBeNull();
  }
});

test('nothing observed or done: no badge, no line, nothing that ages', () => {
  expect(supervisionBadges(none, NOW)).toEqual([]);
  expect(supervisionBadges(undefined, NOW)).toEqual([]);
  expect(supervisionText(none, NOW)).toBeNull();
  expect(supervisionAges(none)).toBe(false);
  expect(supervisionAges({ ...none, queued: 3 })).toBe(false);
});

test('the queue: its length, and a hold with why and its message', () => {
  expect(words({ queued: 2 })).toEqual(['queued 2']);
  const held = supervisionBadges({ ...none, queued: 2, queue_held: { reason: 'errored', message: 'tests failed', since_ms: NOW } }, NOW);
  expect(held).toEqual([{ kind: 'queue_held', text: 'queue held: errored (2 waiting)', detail: 'tests failed', tone: 'error' }]);
  expect(words({ queued: 0, queue_held: { reason: 'not_started', message: '', since_ms: NOW } })).toEqual(['queue held: not started']);
  expect(words({ queued: 1, queue_held: { reason: 'refused', message: 'busy', since_ms: NOW } })).toEqual(['queue held: refused (1 waiting)']);
});

test('a stall: its age, and each fact it rests on', () => {
  const [badge] = supervisionBadges({ ...none, stalled: stall() }, NOW);
  expect(badge).toEqual({ kind: 'stalled', text: 'stalled 12m', detail: 'no output 12m, no CPU 12m, no hook 14m', tone: 'warn' });
  // Flagged just now: the badge says how long it has been silent, not how long it has been flagged.
  expect(supervisionBadges({ ...none, stalled: stall({ since_ms: NOW }) }, NOW)[0].text).toBe('stalled 12m');
  expect(supervisionBadges({ ...none, stalled: stall({ since_ms: NOW, last_output_ms: null, last_cpu_ms: null, last_hook_ms: null, last_record_ms: null }) }, NOW)[0].text).toBe('stalled 10m');
  const unknown = supervisionBadges({ ...none, stalled: stall({ last_cpu_ms: null, last_hook_ms: null, last_record_ms: NOW - 90 * MIN, nudged_at_ms: NOW - 30_000 }) }, NOW)[0];
  expect(unknown.detail).toBe('no output 12m, CPU unknown, no hook seen, no record 1h 30m, nudged 30s ago');
  expect(supervisionAges({ ...none, stalled: stall() })).toBe(true);
});

test('a usage limit: the reset on the local clock (with its weekday when not today), or unknown; the continue when on', () => {
  expect(words({ limit: limit() })).toEqual(['limit — resets 15:00']);
  expect(words({ limit: limit({ resets_at_ms: null }) })).toEqual(['limit — reset unknown']);
  expect(words({ limit: limit({ resets_at_ms: null, continue: 'unknown_reset' }) })).toEqual(['limit — reset unknown']);
  expect(words({ limit: limit({ resets_at_ms: new Date(2026, 11, 7, 9, 5).getTime() }) })).toEqual(['limit — resets Mon 09:05']);
  expect(words({ limit: limit({ resets_at_ms: NOW - 5 * MIN, continue: 'sent' }) })).toEqual(['limit — reset 14:25 · continue sent']);
  expect(words({ limit: limit({ continue: 'waiting' }) })).toEqual(['limit — resets 15:00 · continue after reset']);
  expect(words({ limit: limit({ continue: 'started' }) })).toEqual(['limit — resets 15:00 · continued']);
  const failed = supervisionBadges({ ...none, limit: limit({ continue: 'not_started' }) }, NOW)[0];
  expect(failed).toMatchObject({ text: 'limit — resets 15:00 · continue did not start', tone: 'error', detail: "You've hit your limit · resets 3pm (Europe/Berlin)" });
});

test('the latest automatic answer: what, by which rule, how long ago; the question it answered the detail', () => {
  const [badge] = supervisionBadges({ ...none, auto_answer: answer() }, NOW);
  expect(badge).toEqual({ kind: 'answered', text: "answered 'yes' by rule 'tests' 3m ago", detail: 'approve Bash: npm test', tone: 'info' });
});

test('several at once, most pressing first, in one line', () => {
  const all: Supervision = { queued: 2, queue_held: null, stalled: stall(), limit: limit(), auto_answer: answer() };
  expect(supervisionText(all, NOW)).toBe("limit — resets 15:00 · stalled 12m · queued 2 · answered 'yes' by rule 'tests' 3m ago");
});

test('what an agent or a config gave is cleaned: no control reaches a face', () => {
  const nasty = '\x1b[31mred\x07\u202e';
  const badges = supervisionBadges(
    { ...none, queued: 1, queue_held: { reason: 'errored', message: nasty, since_ms: NOW }, limit: limit({ line: nasty }), auto_answer: answer({ answer: nasty, rule: 'r', message: nasty }) },
    NOW,
  );
  for (const badge of badges) {
    // eslint-disable-next-line no-control-regex -- what may not reach a face
    expect(`${badge.text}${badge.detail}`).not.toMatch(/[\x00-\x1f\x7f\u202e]/);
  }
  expect(badges.find((b) => b.kind === 'queue_held')!.detail).toBe('^[[31mred^G');
  expect(badges.find((b) => b.kind === 'answered')!.text).toBe("answered '^[[31mred^G' by rule 'r' 3m ago");
});

test('ages and clock times', () => {
  expect([0, 999, 40_000, 59_999, 60_000, 12 * MIN + 59_000, 60 * MIN, 125 * MIN, 24 * 60 * MIN, 3 * 24 * 60 * MIN + 5].map(ageText)).toEqual(['0s', '0s', '40s', '59s', '1m', '12m', '1h 00m', '2h 05m', '1d', '3d']);
  expect(ageText(-5000)).toBe('0s');
  expect(clockText(new Date(2026, 11, 5, 0, 7).getTime(), NOW)).toBe('00:07');
  expect(clockText(new Date(2026, 11, 6, 23, 59).getTime(), NOW)).toBe('Sun 23:59');
});
