import { encode } from '@paneflow/osc7501';
import { SUBMIT_CONFIRM_MS, SUBMIT_PASTE_DELAY_MS } from '@paneflow/protocol';
import { startInProcess, type InProcess } from './harness';

// Sending (REFERENCE.md §4.4, §4.5; apps/serve sending.ts) in process: the busy guard per request,
// the paste and its separate Enter after serve's paste delay, and the submit's confirmation
// within SUBMIT_CONFIRM_MS of serve's clock — each to the millisecond, with what reached the host.

const CLAUDE = 'claude-code';
let serve: InProcess;

afterEach(async () => {
  await serve?.stop();
});

const busy = (surface: number, state: string, rest: string) => ({ code: -32030, data: { reason: 'agent_busy' }, message: `agent_busy: surface ${surface} is ${state}${rest}` });

/** Three agents: one idle, one thinking, one waiting on a permission prompt. */
async function threeAgents(): Promise<{ idle: number; thinking: number; waiting: number }> {
  serve = await startInProcess({ scripting: true, orchestration: true, sessions: [{ agent: CLAUDE }, { agent: CLAUDE }, { agent: CLAUDE }] });
  const [idle, thinking, waiting] = serve.sessions;
  serve.host.print(idle, encode({ state: 'idle' }));
  serve.host.print(thinking, encode({ state: 'working' }));
  serve.host.print(waiting, encode({ state: 'blocked', kind: 'permission', msg: 'approve Bash' }));
  return { idle: await serve.surfaceOf(idle), thinking: await serve.surfaceOf(thinking), waiting: await serve.surfaceOf(waiting) };
}

test('a submit to a thinking or waiting agent is refused as agent_busy before anything is written; force writes it', async () => {
  const { thinking, waiting } = await threeAgents();
  await expect(serve.call('surface.send_text', { surface_id: thinking, text: 'go on', submit: true })).rejects.toMatchObject(busy(thinking, 'thinking', '; a submit now would answer it'));
  await expect(serve.call('surface.send_text', { surface_id: waiting, text: 'go on', submit: true })).rejects.toMatchObject(busy(waiting, 'waiting_for_input', '; a submit now would answer it'));
  expect(serve.host.written).toEqual([]);

  const forced = serve.call('surface.send_text', { surface_id: thinking, text: 'go on', submit: true, force: true });
  await serve.host.nextWrite((w) => w.text === 'go on');
  await serve.clock.advance(SUBMIT_PASTE_DELAY_MS + SUBMIT_CONFIRM_MS);
  // It was in a turn already: no new turn began, so the confirmation says none started.
  expect(await forced).toMatchObject({ sent: true, submitted: true, started: false, start_reason: 'not_started' });
  expect(serve.host.written.map((w) => w.text)).toEqual(['go on', '\r']);
});

test('text or a key that would answer a waiting agent’s menu is refused too; to a thinking agent it goes', async () => {
  const { thinking, waiting } = await threeAgents();
  await expect(serve.call('surface.send_text', { surface_id: waiting, text: '1' })).rejects.toMatchObject(
    busy(waiting, 'waiting_for_input', '; text typed now would answer its prompt (answer it with surface.answer, or force it)'),
  );
  await expect(serve.call('surface.send_keystroke', { surface_id: waiting, keystroke: 'escape' })).rejects.toMatchObject(
    busy(waiting, 'waiting_for_input', '; a key pressed now would answer its prompt (answer it with surface.answer, or force it)'),
  );
  expect(serve.host.written).toEqual([]);
  await serve.call('surface.send_text', { surface_id: thinking, text: 'note' });
  await serve.call('surface.send_keystroke', { surface_id: thinking, keystroke: 'escape' });
  await serve.call('surface.send_keystroke', { surface_id: waiting, keystroke: 'escape', force: true });
  expect(serve.host.written.map(({ method, text, paste }) => ({ method, text, paste }))).toEqual([
    { method: 'session.input', text: 'note', paste: true },
    { method: 'session.key', text: 'escape', paste: false },
    { method: 'session.key', text: 'escape', paste: false },
  ]);
});

test('a broadcast (one request per pane, as the CLI sends it) of a plain "1" skips the waiting agent and reaches the others', async () => {
  const { idle, thinking, waiting } = await threeAgents();
  const answers = await Promise.allSettled([idle, thinking, waiting].map((surface_id) => serve.call('surface.send_text', { surface_id, text: '1' })));
  expect(answers.map((a) => a.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
  expect((answers[2] as PromiseRejectedResult).reason).toMatchObject({ code: -32030, data: { reason: 'agent_busy' } });
  const [idleSession, thinkingSession] = serve.sessions;
  expect(serve.host.written.map((w) => w.session).sort()).toEqual([idleSession, thinkingSession].sort());
});

test('a submit to an idle agent: the paste, its Enter exactly after the paste delay, and started once the agent declares working', async () => {
  const { idle } = await threeAgents();
  const [session] = serve.sessions;
  const sent = serve.call('surface.send_text', { surface_id: idle, text: 'fix the tests', submit: true });
  expect(await serve.host.nextWrite(() => true)).toEqual({ session, method: 'session.input', text: 'fix the tests', paste: true });
  await serve.clock.advance(SUBMIT_PASTE_DELAY_MS - 1);
  expect(serve.host.written).toHaveLength(1);
  await serve.clock.advance(1);
  expect(await serve.host.nextWrite(() => true, 1)).toEqual({ session, method: 'session.input', text: '\r', paste: false });

  await serve.clock.advance(SUBMIT_CONFIRM_MS - 1);
  serve.host.print(session, encode({ state: 'working' }));
  expect(await sent).toEqual({
    surface_id: idle,
    sent: true,
    submitted: true,
    agent_target: true,
    paste: true,
    submit_mode: 'deferred_paste_cr',
    terminal_bracketed_paste: true,
    started: true,
    start_reason: 'state_changed',
    state_seq: 1,
  });
});

test('a submit that starts no turn within SUBMIT_CONFIRM_MS of serve’s clock is not_started, and not a millisecond sooner', async () => {
  const { idle } = await threeAgents();
  let answered = false;
  const sent = serve.call('surface.send_text', { surface_id: idle, text: 'fix the tests', submit: true }).finally(() => (answered = true));
  await serve.host.nextWrite(() => true);
  await serve.clock.advance(SUBMIT_PASTE_DELAY_MS);
  await serve.host.nextWrite((w) => w.text === '\r');
  // Transitions are watched from before the paste; the wait for one runs from the Enter.
  await serve.clock.advance(SUBMIT_CONFIRM_MS - 1);
  expect(answered).toBe(false);
  await serve.clock.advance(1);
  expect(await sent).toMatchObject({ started: false, start_reason: 'not_started', state_seq: 0 });
});
