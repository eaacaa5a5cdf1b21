import { statusInTurn, TURN_MESSAGES_KEPT, TURN_TEXT_BYTES, type DeclaredStatus as Declared, type ReducedStatus } from '@paneflow/protocol';
import { advanceTurn, clipText, endTurn, interruptTurn, startTurn, turnEnding, type OpenTurn, type TurnOrigin } from '../src';

const T0 = 1_767_225_600_000;
const origin: TurnOrigin = {
  turn: 3,
  session: '0b0e7c8a-5b7e-4a53-9a64-0f3b2f6a9d11',
  generation: 1,
  surface_id: 7,
  workspace_id: 'ws',
  pane_name: 'api',
  runtime_id: 'claude-code',
  provider_session_id: null,
};
const record = (state: Declared['state'], extra: Partial<Declared> = {}): Declared => ({ state, kind: null, progress: null, id: null, app: 'claude-code', title: null, message: null, ...extra });
const step = (status: ReducedStatus, declared: Declared | null, atMs: number) => ({ status, record: declared, nowMs: T0 + atMs });

test('a turn is busy or attention: it begins entering them and ends leaving them, and a wait inside it is no boundary', () => {
  const statuses: ReducedStatus[] = ['idle', 'busy', 'attention', 'errored'];
  expect(statuses.filter(statusInTurn)).toEqual(['busy', 'attention']);
});

test('a turn with a permission question times its work and its wait apart, and keeps who answered and what', () => {
  let open: OpenTurn = startTurn(origin, step('busy', record('working'), 0), { text: 'fix the redirect', source: 'send' });
  open = advanceTurn(open, step('busy', record('working', { message: 'reading files' }), 100), null);
  open = advanceTurn(open, step('attention', record('blocked', { kind: 'permission', message: 'approve Bash: npm test' }), 400), null);
  // A repeat of the wait is the same question.
  open = advanceTurn(open, step('attention', record('blocked', { kind: 'permission', message: 'approve Bash: npm test' }), 900), null);
  open = advanceTurn(open, step('busy', record('working'), 1400), { by: 'answer', text: 'yes' });
  const ended = endTurn(open, step('idle', record('done', { message: 'all green' }), 2000), 'finished', null);
  expect(ended).toMatchObject({
    ...origin,
    started_at_ms: T0,
    ended_at_ms: T0 + 2000,
    ended: 'finished',
    working_ms: 400 + 600,
    waiting_ms: 1000,
    prompt: { text: 'fix the redirect', source: 'send' },
    questions: [{ kind: 'permission', message: 'approve Bash: npm test', asked_at_ms: T0 + 400, answered_at_ms: T0 + 1400, by: 'answer', answer: 'yes' }],
    messages: [
      { at_ms: T0 + 100, text: 'reading files' },
      { at_ms: T0 + 2000, text: 'all green' },
    ],
    change: null,
    tokens: null,
  });
});

test('a turn that ends while it waits closes its question unanswered, with the wait counted', () => {
  let open = startTurn(origin, step('busy', record('working'), 0), null);
  open = advanceTurn(open, step('attention', record('blocked', { kind: 'question', message: 'which name?' }), 200), null);
  const ended = endTurn(open, step('idle', record('idle'), 700), 'idle', null);
  expect(ended.questions).toEqual([{ kind: 'question', message: 'which name?', asked_at_ms: T0 + 200, answered_at_ms: T0 + 700, by: null, answer: null }]);
  expect([ended.working_ms, ended.waiting_ms]).toEqual([200, 500]);
});

test('a turn that begins waiting asks its question at once', () => {
  const open = startTurn(origin, step('attention', record('blocked', { kind: 'auth', message: 'log in' }), 0), null);
  expect(open.phase).toBe('waiting');
  expect(open.record.questions).toMatchObject([{ kind: 'auth', message: 'log in', answered_at_ms: null }]);
});

test('messages keep their order, drop repeats, and stop at the bound', () => {
  let open = startTurn(origin, step('busy', record('working', { message: 'm0' }), 0), null);
  for (let i = 1; i < TURN_MESSAGES_KEPT + 10; i++) {
    open = advanceTurn(open, step('busy', record('working', { message: `m${i}` }), i), null);
    open = advanceTurn(open, step('busy', record('working', { message: `m${i}` }), i), null);
  }
  expect(open.record.messages.map((m) => m.text)).toEqual(Array.from({ length: TURN_MESSAGES_KEPT }, (_, i) => `m${i}`));
});

test('texts are clipped to the record bound on a character boundary', () => {
  const long = 'é'.repeat(TURN_TEXT_BYTES);
  const clipped = clipText(long);
  expect(Buffer.byteLength(clipped)).toBeLessThanOrEqual(TURN_TEXT_BYTES);
  expect(clipped.endsWith('é…')).toBe(true);
  expect(clipText('short')).toBe('short');
  const open = startTurn(origin, step('busy', record('working'), 0), { text: long, source: 'hook' });
  expect(open.record.prompt?.text).toBe(clipped);
});

test.each([
  ['done while live', 'idle', record('done'), 'live', 'finished'],
  ['idle without done', 'idle', record('idle'), 'live', 'idle'],
  ['a declined tool: no record', 'idle', null, 'live', 'idle'],
  ['error', 'errored', record('error'), 'live', 'error'],
  ['the process exited mid-turn', 'idle', record('working'), 'exited', 'exited'],
  ['the process failed', 'idle', record('working'), 'failed', 'exited'],
  ['the host died', 'idle', record('working'), 'lost', 'interrupted'],
] as const)('a turn that ends %s is %s', (_, status, declared, lifecycle, ending) => {
  expect(turnEnding({ status, record: declared }, lifecycle)).toBe(ending);
});

test('an interrupted turn ends when it was last heard of, and an ended one stays as it was', () => {
  let open = startTurn(origin, step('busy', record('working'), 0), null);
  open = advanceTurn(open, step('busy', record('working', { message: 'half way' }), 5000), null);
  const interrupted = interruptTurn(open.record);
  expect(interrupted).toMatchObject({ ended: 'interrupted', ended_at_ms: T0 + 5000 });
  expect(interruptTurn(interrupted)).toBe(interrupted);
});
