import { encode } from '@paneflow/osc7501';
import { answerInput, runtimeCatalog } from '@paneflow/procscan';
import { CLOCK_START_MS } from './fake-clock';
import { startInProcess, type InProcess } from './harness';

// Answer rules (apps/serve README "Answer rules") in process: the rule's answer goes exactly
// `answer_delay_ms` of serve's clock after the wait began, and a person who answers within the
// delay wins. rules.test.ts keeps the fixture agent's real menu and the ledger's record.

const CLAUDE = 'claude-code';
const DELAY_MS = 5000;
const PROMPT = 'approve Bash: npm test';
let serve: InProcess;

afterEach(async () => {
  await serve?.stop();
});

async function waitingAgent() {
  serve = await startInProcess({
    scripting: true,
    config: { supervisor: { answer_delay_ms: DELAY_MS }, answer_rules: [{ name: 'tests', runtime: CLAUDE, kind: 'permission', pattern: '^approve Bash: npm test', answer: 'yes' }] },
    sessions: [{ agent: CLAUDE, name: 'builder' }],
  });
  const [session] = serve.sessions;
  const events = await serve.subscribe();
  serve.host.print(session, encode({ state: 'blocked', kind: 'permission', msg: PROMPT }));
  await events.next((f) => f.type === 'status_changed' && f.state === 'waiting_for_input');
  return { session, events, surface: await serve.surfaceOf(session) };
}

const yesKeys = () => {
  const input = answerInput(runtimeCatalog().bySlug.get(CLAUDE), 'permission', 'yes');
  if (!input || !('keys' in input)) throw new Error('claude-code answers a permission prompt with keys');
  return input.keys;
};

test('a matching rule answers exactly answer_delay_ms after the wait began, not a millisecond before, and says so', async () => {
  const { session, events, surface } = await waitingAgent();
  await serve.clock.advance(DELAY_MS - 1);
  expect(serve.host.written).toEqual([]);
  await serve.clock.advance(1);
  expect(await serve.host.nextWrite(() => true)).toEqual({ session, method: 'session.input', text: yesKeys(), paste: false });
  expect(serve.host.requests.find((r) => r.method === 'session.input')?.at_ms).toBe(CLOCK_START_MS + DELAY_MS);

  serve.host.print(session, encode({ state: 'working' }));
  expect(await events.next((f) => f.type === 'notification' && f.kind === 'answered_by_rule')).toEqual({
    type: 'notification',
    at_ms: CLOCK_START_MS + DELAY_MS,
    surface_id: surface,
    session,
    kind: 'answered_by_rule',
    title: 'builder',
    body: `answered 'yes' by rule 'tests': ${PROMPT}`,
  });
});

test('a person who answers within the delay wins: the rule types nothing, and the next prompt gets its own whole delay', async () => {
  const { session, surface } = await waitingAgent();
  await serve.clock.advance(DELAY_MS - 1000);
  const { state_seq } = (await serve.call('fleet.list', {})).agents[0];
  const answered = serve.call('surface.answer', { surface_id: surface, answer: 'yes', state_seq });
  await serve.host.nextWrite(() => true);
  serve.host.print(session, encode({ state: 'working' }));
  expect(await answered).toMatchObject({ answered: true, left_waiting: true, state: 'thinking' });

  // The same prompt again, 500 ms before the first one's delay would have ended.
  await serve.clock.advance(500);
  const askedAgainAt = serve.clock.now();
  serve.host.print(session, encode({ state: 'blocked', kind: 'permission', msg: PROMPT }));
  await serve.clock.advance(DELAY_MS - 1);
  expect(serve.host.written).toHaveLength(1);
  expect((await serve.call('fleet.inbox', {})).answered).toEqual([]);
  await serve.clock.advance(1);
  await serve.host.nextWrite(() => true, 1);
  expect(serve.host.requests.filter((r) => r.method === 'session.input').map((r) => r.at_ms)).toEqual([CLOCK_START_MS + DELAY_MS - 1000, askedAgainAt + DELAY_MS]);
});
