// What `ps`, `status` and `inbox` print of the supervisor (libs/protocol/src/supervisor.ts): its
// words from @paneflow/view in the DETAIL column, under a status line, and in the inbox's table
// of held queues and usage limits; nothing an agent printed reaches the terminal raw.
import type { StatusObject, Supervision } from '@paneflow/protocol';
import { agentTable, heldTable, statusLine } from '../src/output';

const NOW = new Date(2026, 11, 5, 14, 30, 0).getTime();
const MIN = 60_000;
const NASTY = 'a\x1b]52;c;cHduZWQ=\x07b\u202ec';
const SHOWN = 'a^[]52;c;cHduZWQ=^Gbc';
// eslint-disable-next-line no-control-regex -- what may not be printed (LF ends lines)
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/;
const none: Supervision = { queued: 0, queue_held: null, stalled: null, limit: null, auto_answer: null };

const agent = (surface_id: number, surface_name: string, supervision: Supervision | undefined, state: StatusObject['state'] = 'thinking') =>
  ({ surface_id, surface_name, tool: 'claude', state, state_seq: 3, reason: 'declared', idle_ms: 5000, waiting_ms: null, message: null, declared: null, outcome: null, last_result: null, unread: false, active_tool_name: 'Bash', lifecycle: 'live', restart: null, revision: 0, supervision }) as StatusObject;
const stalled: Supervision = {
  ...none,
  queued: 2,
  stalled: { since_ms: NOW - 12 * MIN, threshold_ms: 10 * MIN, last_output_ms: NOW - 12 * MIN, last_cpu_ms: NOW - 12 * MIN, last_hook_ms: NOW - 14 * MIN, last_record_ms: null, nudged_at_ms: null },
};
const limited: Supervision = { ...none, limit: { seen_at_ms: NOW, line: `limit reached ${NASTY}`, resets_at_ms: new Date(2026, 11, 5, 15, 0).getTime(), continue: 'sent' } };
const held: Supervision = { ...none, queued: 1, queue_held: { reason: 'errored', message: `tests failed ${NASTY}`, since_ms: NOW - MIN } };

const saved = process.env.NO_COLOR;
beforeAll(() => (process.env.NO_COLOR = '1'));
afterAll(() => (saved === undefined ? delete process.env.NO_COLOR : (process.env.NO_COLOR = saved)));

test("ps: the supervisor's words end the DETAIL column; an agent it saw nothing of keeps its row as it was", () => {
  const lines = agentTable([agent(1, 'lead', stalled), agent(2, 'calm', none), agent(3, 'old', undefined)], NOW).split('\n');
  expect(lines[0]).toMatch(/^ID\s+NAME\s+TOOL\s+STATE\s+SEQ\s+IDLE\s+DETAIL$/);
  expect(lines[1]).toMatch(/^1\s+lead\s+claude\s+thinking\s+3\s+5s\s+Bash · stalled 12m · queued 2$/);
  expect(lines[2]).toMatch(/^2\s+calm\s+claude\s+thinking\s+3\s+5s\s+Bash$/);
  expect(lines[3]).toMatch(/^3\s+old\s+claude\s+thinking\s+3\s+5s\s+Bash$/);
});

test('status: the words on its line, and the facts of each under it', () => {
  expect(statusLine(agent(1, 'lead', stalled), NOW)).toBe('1 lead claude thinking (declared) · Bash · stalled 12m · queued 2\n  stalled: no output 12m, no CPU 12m, no hook 14m');
  expect(statusLine(agent(2, 'calm', none), NOW)).toBe('2 calm claude thinking (declared) · Bash');
  const limit = statusLine(agent(4, 'capped', limited, 'idle'), NOW);
  expect(limit).toBe(`4 capped claude idle (declared) · Bash · limit — resets 15:00 · continue sent\n  limit: limit reached ${SHOWN}`);
  expect(UNSAFE.exec(limit)).toBeNull();
});

test('inbox: queues held and usage limits, waiting or not, under its table; nothing when there are none', () => {
  expect(heldTable([agent(1, 'lead', stalled), agent(2, 'calm', none)], NOW)).toBeNull();
  const held_ = heldTable([agent(1, 'lead', stalled), agent(5, 'broken', held, 'errored'), agent(4, 'capped', limited, 'idle')], NOW)!;
  expect(held_.split('\n')).toEqual([
    'queues held and usage limits:',
    expect.stringMatching(/^ID\s+NAME\s+SUPERVISOR\s+DETAIL$/),
    expect.stringMatching(new RegExp(`^5\\s+broken\\s+queue held: errored \\(1 waiting\\)\\s+tests failed ${escape(SHOWN)}$`)),
    expect.stringMatching(new RegExp(`^4\\s+capped\\s+limit — resets 15:00 · continue sent\\s+limit reached ${escape(SHOWN)}$`)),
  ]);
  expect(UNSAFE.exec(held_)).toBeNull();
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
