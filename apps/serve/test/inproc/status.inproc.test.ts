import { encode } from '@paneflow/osc7501';
import { answersFor, runtimeCatalog } from '@paneflow/procscan';
import { CLOCK_START_MS } from './fake-clock';
import { startInProcess, type InProcess } from './harness';

// The reduction of declared states as serve reports it (REFERENCE.md §3), in process: the host's
// status frames come from a fake host, time from a clock the test moves, so every state,
// state_seq, stamp and notice is checked exactly.

const CLAUDE = 'claude-code';
let serve: InProcess;

afterEach(async () => {
  await serve?.stop();
});

/** serve with one agent running, its pane, and a subscription from before anything it declares. */
async function oneAgent() {
  serve = await startInProcess({ sessions: [{ agent: CLAUDE }] });
  const [session] = serve.sessions;
  return { session, surface: await serve.surfaceOf(session), events: await serve.subscribe() };
}

const isStatus = (surfaceId: number) => (f: { type: string; surface_id?: number }) => f.type === 'status_changed' && f.surface_id === surfaceId;

test('a declared turn is reduced exactly: working is thinking, blocked waits in the inbox, done is finished and unread, each stamped by serve', async () => {
  serve = await startInProcess({ sessions: [{ agent: CLAUDE, name: 'alpha' }] });
  const [session] = serve.sessions;
  const surface = await serve.surfaceOf(session);
  const events = await serve.subscribe();

  serve.host.print(session, encode({ state: 'working' }));
  const working = await events.next(isStatus(surface));
  expect(working).toMatchObject({ at_ms: CLOCK_START_MS, session, state: 'thinking', status: 'busy', reason: 'declared', state_seq: 1, outcome: null, unread: false });

  await serve.clock.advance(1500);
  let mark = events.mark;
  serve.host.print(session, encode({ state: 'blocked', kind: 'permission', msg: 'approve Bash: rm -rf build' }));
  const blocked = await events.next(isStatus(surface), mark);
  expect(blocked).toMatchObject({ at_ms: CLOCK_START_MS + 1500, state: 'waiting_for_input', status: 'attention', state_seq: 2, surface_status: { message: 'approve Bash: rm -rf build', waiting_ms: 0 } });
  const needsInput = await events.next((f) => f.type === 'notification', mark);
  expect(needsInput).toEqual({ type: 'notification', at_ms: CLOCK_START_MS + 1500, surface_id: surface, session, kind: 'needs_input', title: 'alpha', body: 'approve Bash: rm -rf build' });

  await serve.clock.advance(2000);
  const { items } = await serve.call('fleet.inbox', {});
  const claude = runtimeCatalog().bySlug.get(CLAUDE);
  expect(items).toEqual([
    expect.objectContaining({ surface_id: surface, surface_name: 'alpha', kind: 'permission', message: 'approve Bash: rm -rf build', since_ms: CLOCK_START_MS + 1500, waiting_ms: 2000, state_seq: 2, answers: answersFor(claude, 'permission') }),
  ]);

  mark = events.mark;
  serve.host.print(session, encode({ state: 'done', msg: 'built' }));
  const done = await events.next(isStatus(surface), mark);
  expect(done).toMatchObject({ at_ms: CLOCK_START_MS + 3500, state: 'finished', status: 'idle', state_seq: 3, outcome: 'completed', unread: true });
  expect(await events.next((f) => f.type === 'notification', mark)).toMatchObject({ kind: 'finished', body: 'built', at_ms: CLOCK_START_MS + 3500 });
  expect((await serve.call('fleet.inbox', {})).items).toEqual([]);
  const { agents } = await serve.call('fleet.list', {});
  expect(agents).toEqual([expect.objectContaining({ surface_id: surface, state: 'finished', outcome: 'completed', unread: true, state_seq: 3, idle_ms: 0 })]);
});

test('an error declared is errored, its outcome failed with the message, and one error notice', async () => {
  const { session, surface, events } = await oneAgent();
  serve.host.print(session, encode({ state: 'working' }));
  await events.next(isStatus(surface));
  const mark = events.mark;
  serve.host.print(session, encode({ state: 'error', msg: 'tests failed' }));
  expect(await events.next(isStatus(surface), mark)).toMatchObject({ state: 'errored', status: 'errored', state_seq: 2, outcome: 'failed:tests failed' });
  expect(await events.next((f) => f.type === 'notification', mark)).toMatchObject({ kind: 'error', body: 'tests failed' });
});

test('an agent that declares nothing is detecting for 3 s of serve’s clock, then no_signal, never before', async () => {
  const { surface, events } = await oneAgent();
  const reasonNow = async () => (await serve.call('fleet.list', {})).agents[0];

  await serve.clock.advance(2999);
  expect(await reasonNow()).toMatchObject({ reason: 'detecting', state: 'unknown_running' });
  // The detection window is 3000 ms from identification; serve's timer wakes just past it.
  await serve.clock.advance(2);
  expect(await events.next(isStatus(surface))).toMatchObject({ at_ms: CLOCK_START_MS + 3001, reason: 'no_signal', state: 'unknown_running', state_seq: 0 });
  expect(await reasonNow()).toMatchObject({ reason: 'no_signal' });
});

test('a needs-input notice comes at most once a second per pane: a second wait within the second is counted, not sent', async () => {
  const { session, surface, events } = await oneAgent();
  const ask = (msg: string) => serve.host.print(session, encode({ state: 'blocked', kind: 'question', msg }));

  serve.host.print(session, encode({ state: 'working' }));
  ask('first');
  await events.next((f) => f.type === 'notification' && f.body === 'first');
  await serve.clock.advance(999);
  serve.host.print(session, encode({ state: 'working' }));
  ask('second');
  const seqAfterSecond = (await serve.call('fleet.list', {})).agents[0].state_seq;
  expect(seqAfterSecond).toBe(4);
  expect((await serve.call('system.counters', {})).counters).toMatchObject({ notifications: 1, notifications_rate_limited: 1 });

  await serve.clock.advance(1);
  serve.host.print(session, encode({ state: 'working' }));
  ask('third');
  expect(await events.next((f) => f.type === 'notification' && f.surface_id === surface && f.body === 'third')).toMatchObject({ at_ms: CLOCK_START_MS + 1000, kind: 'needs_input' });
  expect(events.frames.filter((f) => f.type === 'notification').map((f) => f.body)).toEqual(['first', 'third']);
});

test('an agent whose process exits mid-turn is exited and no longer busy, and the host’s exit is its ai.exit with the code', async () => {
  const { session, surface, events } = await oneAgent();
  serve.host.print(session, encode({ state: 'working' }));
  await events.next(isStatus(surface));
  await serve.clock.advance(250);
  const mark = events.mark;
  serve.host.exit(session, 3);
  expect(await events.next((f) => f.type === 'session_changed', mark)).toMatchObject({ at_ms: CLOCK_START_MS + 250, row: { lifecycle: 'exited', live: false, exit_code: 3, status: 'idle', state_seq: 2 } });
  expect(await events.next((f) => f.type === 'ai.exit', mark)).toEqual({
    type: 'ai.exit',
    at_ms: CLOCK_START_MS + 250,
    surface_id: surface,
    session,
    tool: 'claude',
    payload: { pid: expect.any(Number), exit_code: 3, reported_by: 'host' },
  });
  expect((await serve.call('fleet.list', {})).agents[0]).toMatchObject({ lifecycle: 'exited', state: 'idle', status: 'idle', outcome: null });
});
