// Answer rules (config.json answer_rules): a waiting agent's declared permission prompt that a
// rule matches is answered through `surface.answer`'s path after the delay, unless a person was
// first; never a question, never a message only a hook gave, never past the gate or the rule's
// hour; every automatic answer recorded (the turn ledger, the pane's status, a notification, the
// inbox's history), and the switch and the hour's counts kept across a restart of serve.
import { encode } from '@paneflow/osc7501';
import { AutoAnswer, validate, type TurnRecord } from '@paneflow/protocol';
import { until } from '@paneflow/testing';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EventStream, killIfAlive, screenMatching, serveCli, startInstance, waitUntilGone, type Frame, type Instance } from './helpers';

/** Long enough for a person's `answer` (the prompt's 1 s settle, then the keys) to come first. */
const DELAY_MS = 2500;
const RULES = [
  { name: 'tests', runtime: 'claude-code', kind: 'permission', pattern: '^approve Bash: run the tests', answer: 'yes' },
  { name: 'deploys', kind: 'permission', pattern: '^approve Bash: deploy', answer: 'yes', per_hour: 1 },
  // Matches the fixture's question: only the prompt's kind keeps it from being answered.
  { name: 'names', kind: 'permission', pattern: 'which name', answer: 'yes' },
];

const waitingAt = (surface: number) => (f: Frame) => f.type === 'status_changed' && f.surface_id === surface && f.state === 'waiting_for_input';
/** The end of the turn a prompt began (a turn's record may be announced after the next turn's status). */
const turnEnded = (surface: number, prompt?: string) => (f: Frame) => f.type === 'turn_ended' && f.surface_id === surface && (prompt === undefined || (f.turn as TurnRecord).prompt?.text === prompt);
const autoAnswered = (surface: number) => (f: Frame) => f.type === 'notification' && f.surface_id === surface && f.kind === 'answered_by_rule';

describe('with the scripting gate open', () => {
  let pf: Instance;
  let events: EventStream;
  let panes: Record<'a' | 'b' | 'c', number>;
  beforeAll(async () => {
    pf = await startInstance({ scripting: true, config: { supervisor: { answer_delay_ms: DELAY_MS }, answer_rules: RULES } });
    events = await pf.subscribe();
    const pane = (name: string) => ({ name, cwd: pf.dir, command: 'claude', focus: false, env: {} });
    const up = await pf.call('workspace.up', { name: 'rules', layout: 'tiled', panes: [pane('a'), pane('b'), pane('c')] });
    const [a, b, c] = up.surfaces.map((s) => s.surface_id);
    panes = { a, b, c };
    await until(async () => (await pf.call('fleet.list', {})).agents.filter((s) => s.reason === 'declared').length === 3, 'three agents declare');
  }, 60_000);
  afterAll(() => pf?.cleanup());

  /** Submits a prompt; resolves with the pane's next wait (the `status_changed` into waiting_for_input). */
  async function ask(surface: number, text: string, stream = events): Promise<Frame> {
    const mark = stream.mark;
    await pf.call('surface.send_text', { surface_id: surface, text, submit: true });
    return stream.next(waitingAt(surface), mark);
  }
  const state = (surface: number) => pf.call('surface.status', { surface_id: surface });

  test('a matching permission prompt is answered by its rule after the delay, through the answer path, and the turn goes on; the answer is recorded everywhere', async () => {
    const { a } = panes;
    const mark = events.mark;
    const waiting = await ask(a, 'run the tests now permission');
    const message = 'approve Bash: run the tests now permission';
    const notice = await events.next(autoAnswered(a), mark);
    expect(notice.body).toBe(`answered 'yes' by rule 'tests': ${message}`);
    expect(notice.at_ms - waiting.at_ms).toBeGreaterThanOrEqual(DELAY_MS);
    const ended = (await events.next(turnEnded(a, 'run the tests now permission'), mark)).turn as TurnRecord;
    expect(ended).toMatchObject({ ended: 'finished', questions: [{ kind: 'permission', message, by: 'rule', answer: 'yes' }] });
    await screenMatching(pf, a, /run the tests now permission[\s\S]*^allowed$[\s\S]*^done: run the tests now permission$/m);

    const expected = { rule: 'tests', answer: 'yes', message, state_seq: waiting.state_seq, at_ms: expect.any(Number), surface_id: a, session: (await state(a)).session };
    // The pane's status says it, and a status_changed frame carried it to the faces.
    const status = await state(a);
    expect(status.supervision?.auto_answer).toEqual(expected);
    expect(validate(AutoAnswer, status.supervision?.auto_answer)).toBeNull();
    await events.next((f) => f.type === 'status_changed' && f.surface_id === a && (f.surface_status as { supervision?: { auto_answer?: { rule?: string } } }).supervision?.auto_answer?.rule === 'tests', mark);
    // The inbox's history, newest first, and the rule's count this hour.
    const inbox = await pf.call('fleet.inbox', {});
    expect(inbox.answered).toEqual([expected]);
    expect((await pf.call('turn.list', { surface_id: a })).turns.at(-1)?.questions).toEqual([expect.objectContaining({ by: 'rule', answer: 'yes' })]);
    const list = await pf.call('rules.list', {});
    expect(list).toMatchObject({ enabled: true, gated: false, delay_ms: DELAY_MS });
    expect(list.rules.map((r) => [r.name, r.runtime, r.per_hour, r.used_last_hour])).toEqual([
      ['tests', 'claude-code', null, 1],
      ['deploys', null, 1, 0],
      ['names', null, null, 0],
    ]);
  }, 60_000);

  test('a person who answers during the delay wins: the rule types nothing and records nothing', async () => {
    const { a } = panes;
    const mark = events.mark;
    const waiting = await ask(a, 'run the tests by hand permission');
    await pf.call('surface.answer', { surface_id: a, answer: 'yes', state_seq: waiting.state_seq as number });
    const byHand = (await events.next(turnEnded(a, 'run the tests by hand permission'), mark)).turn as TurnRecord;
    expect(byHand.questions).toEqual([expect.objectContaining({ by: 'answer', answer: 'yes' })]);
    // A later wait's rule answers after its own delay, which began after the first one's would have ended.
    const laterMark = events.mark;
    const later = await ask(a, 'run the tests later permission');
    const notice = await events.next(autoAnswered(a), laterMark);
    expect(notice.body).toBe("answered 'yes' by rule 'tests': approve Bash: run the tests later permission");
    // The first wait's answer was dropped, not kept for the next prompt: this one had its own whole delay.
    expect(notice.at_ms - later.at_ms).toBeGreaterThanOrEqual(DELAY_MS);
    expect(events.frames.slice(mark).filter(autoAnswered(a))).toEqual([notice]);
    const { answered } = await pf.call('fleet.inbox', {});
    expect(answered?.map((x) => x.state_seq)).not.toContain(waiting.state_seq);
    expect(answered?.[0]).toMatchObject({ state_seq: later.state_seq, message: 'approve Bash: run the tests later permission' });
    await events.next(turnEnded(a, 'run the tests later permission'), laterMark);
    // The person's yes was typed once: the later prompt reached the agent whole.
    await screenMatching(pf, a, /^thinking about: run the tests later permission$/m);
  }, 60_000);

  test('a question, a message no rule matches, and a permission prompt whose message only a hook gave are never answered', async () => {
    const { a, b, c } = panes;
    // An agent named claude that declares a permission prompt with no message, and whose hook says one a rule matches.
    const silent = join(pf.dir, 'bin-silent', 'claude');
    mkdirSync(join(pf.dir, 'bin-silent'));
    const report = encode({ state: 'blocked', kind: 'permission', app: 'claude-code' });
    writeFileSync(silent, `#!${process.execPath}\nprocess.stdin.setRawMode(true);\nprocess.stdout.write(${JSON.stringify(report)} + 'a menu\\r\\n');\nprocess.stdin.on('data', (d) => process.stdout.write('got ' + JSON.stringify(String(d)) + '\\r\\n'));\n`);
    chmodSync(silent, 0o755);
    const split = await pf.call('surface.split', { direction: 'h', surface_id: c, command: silent });
    const d = split.surface_id;
    const quiet = await until(async () => ((await state(d)).state === 'waiting_for_input' ? state(d) : null), 'the message-less prompt');
    expect(quiet.declared).toMatchObject({ kind: 'permission', message: null });
    await pf.call('ai.notification', { tool: 'claude', session: quiet.session, pid: quiet.pid, emitted_at_ms: Date.now(), payload: { message: 'approve Bash: run the tests from a hook' } });
    await until(async () => (await state(d)).message === 'approve Bash: run the tests from a hook' || null, 'the hook message shown');

    const mark = events.mark;
    const question = await ask(b, 'name it question');
    expect((await state(b)).declared).toMatchObject({ kind: 'question', message: 'which name? (name it question)' });
    // As a permission prompt's message it would be answered: the kind alone keeps it waiting.
    expect(await pf.call('rules.test', { message: 'which name? (name it question)', runtime_id: 'claude-code' })).toMatchObject({ rule: 'names' });
    const unmatched = await ask(c, 'clean the cache permission');
    expect(await pf.call('rules.test', { message: 'approve Bash: clean the cache permission', runtime_id: 'claude-code' })).toEqual({ rule: null, answer: null, reason: 'no rule matches this message for claude-code' });
    // Asked after all three: its answer comes after each of their delays would have ended.
    await ask(a, 'run the tests alongside permission');
    await events.next(autoAnswered(a), mark);
    await events.next(turnEnded(a, 'run the tests alongside permission'), mark);

    expect(events.frames.slice(mark).filter((f) => f.type === 'notification' && f.kind === 'answered_by_rule' && f.surface_id !== a)).toEqual([]);
    expect(await state(b)).toMatchObject({ state: 'waiting_for_input', state_seq: question.state_seq });
    expect(await state(c)).toMatchObject({ state: 'waiting_for_input', state_seq: unmatched.state_seq });
    expect(await state(d)).toMatchObject({ state: 'waiting_for_input', state_seq: quiet.state_seq });
    expect((await pf.call('surface.read', { surface_id: d, lines: 50, fenced: false })).text).not.toMatch(/^got /m);
    expect((await pf.call('fleet.inbox', {})).answered?.map((x) => x.surface_id)).not.toEqual(expect.arrayContaining([b, c, d]));

    await pf.call('surface.answer', { surface_id: b, answer: 'atlas', state_seq: question.state_seq as number });
    await pf.call('surface.answer', { surface_id: c, answer: 'no', state_seq: unmatched.state_seq as number });
    await pf.call('surface.close', { surface_id: d });
    await until(async () => ((await state(b)).state === 'finished' && (await state(c)).state === 'idle') || null, 'b and c answered by hand');
  }, 90_000);

  test("per_hour: a rule's hour spent, its next prompt waits for its person, also after serve restarts", async () => {
    const { a, b } = panes;
    let mark = events.mark;
    await ask(b, 'deploy the api permission');
    await events.next(autoAnswered(b), mark);
    await events.next(turnEnded(b, 'deploy the api permission'), mark);
    mark = events.mark;
    const again = await ask(b, 'deploy again permission');
    await ask(a, 'run the tests meanwhile permission');
    await events.next(autoAnswered(a), mark);
    await events.next(turnEnded(a, 'run the tests meanwhile permission'), mark);
    expect(events.frames.slice(mark).filter(autoAnswered(b))).toEqual([]);
    expect(await state(b)).toMatchObject({ state: 'waiting_for_input', state_seq: again.state_seq });
    const spent = { rule: null, answer: null, reason: "rule 'deploys' matches, but it has given its 1 answer of this hour" };
    expect(await pf.call('rules.test', { message: 'approve Bash: deploy again permission' })).toEqual(spent);

    // A new serve reads the hour's counts back, and judges the wait it finds the same way.
    killIfAlive(pf.servePid);
    await waitUntilGone(pf.servePid);
    const restarted = serveCli(pf.env, 'start');
    expect(restarted.code).toBe(0);
    pf.servePid = JSON.parse(restarted.stdout).pid;
    events = await pf.subscribe();
    expect((await pf.call('rules.list', {})).rules.find((r) => r.name === 'deploys')?.used_last_hour).toBe(1);
    expect(await pf.call('rules.test', { message: 'approve Bash: deploy again permission' })).toEqual(spent);
    const { answered } = await pf.call('fleet.inbox', {});
    expect(answered?.map((x) => x.message)).toContain('approve Bash: deploy the api permission');
    await until(async () => (await pf.call('fleet.list', {})).agents.filter((s) => s.reason === 'declared').length === 3, 'the new serve sees the agents');
    mark = events.mark;
    await ask(a, 'run the tests after the restart permission');
    await events.next(autoAnswered(a), mark);
    expect(events.frames.slice(mark).filter(autoAnswered(b))).toEqual([]);
    expect(await state(b)).toMatchObject({ state: 'waiting_for_input', state_seq: again.state_seq });
    await pf.call('surface.answer', { surface_id: b, answer: 'no', state_seq: again.state_seq as number });
    await until(async () => (await state(b)).state === 'idle' || null, 'b declined by hand');
  }, 90_000);

  test('rules off stops every rule, on disk and across a restart; on again, the next prompt is answered', async () => {
    const { a, b } = panes;
    expect(await pf.call('rules.set_enabled', { enabled: false })).toEqual({ enabled: false });
    expect(JSON.parse(readFileSync(join(pf.env.PANEFLOW_HOME!, 'serve/rules.json'), 'utf8'))).toMatchObject({ version: 1, enabled: false });
    expect(await pf.call('rules.test', { message: 'approve Bash: run the tests', runtime_id: 'claude-code' })).toEqual({ rule: null, answer: null, reason: "rule 'tests' matches, but the answer rules are off (paneflow rules on)" });
    const off = await ask(a, 'run the tests while off permission');

    killIfAlive(pf.servePid);
    await waitUntilGone(pf.servePid);
    const restarted = serveCli(pf.env, 'start');
    expect(restarted.code).toBe(0);
    pf.servePid = JSON.parse(restarted.stdout).pid;
    events = await pf.subscribe();
    expect((await pf.call('rules.list', {})).enabled).toBe(false);
    await until(async () => (await pf.call('fleet.list', {})).agents.filter((s) => s.reason === 'declared').length === 3, 'the new serve sees the agents');

    // On again: a prompt that came while they were off stays its person's; the next one is answered.
    expect(await pf.call('rules.set_enabled', { enabled: true })).toEqual({ enabled: true });
    const mark = events.mark;
    await ask(b, 'run the tests back on permission');
    await events.next(autoAnswered(b), mark);
    expect(events.frames.slice(mark).filter(autoAnswered(a))).toEqual([]);
    expect(await state(a)).toMatchObject({ state: 'waiting_for_input', state_seq: off.state_seq });
    await pf.call('surface.answer', { surface_id: a, answer: 'yes', state_seq: off.state_seq as number });
    await until(async () => (await state(a)).state === 'finished' || null, 'a answered by hand');
  }, 90_000);

  test('rules.test names the rule that would answer, and refuses a runtime it does not know', async () => {
    expect(await pf.call('rules.test', { message: 'approve Bash: run the tests -- --watch', runtime_id: 'claude-code' })).toEqual({ rule: 'tests', answer: 'yes', reason: `rule 'tests' answers 'yes' after ${DELAY_MS} ms` });
    // `tests` is Claude Code's only; `names` is any agent's but its answer is no choice of Codex's (it has none).
    expect((await pf.call('rules.test', { message: 'approve Bash: run the tests', runtime_id: 'codex' })).reason).toBe('no rule matches this message for codex');
    expect((await pf.call('rules.test', { message: 'which name', runtime_id: 'codex' })).reason).toBe("rule 'names' matches, but its runtime's permission prompt does not take 'yes' (it has no answers)");
    expect((await pf.call('rules.test', { message: '  ' })).reason).toMatch(/^no declared message/);
    await expect(pf.call('rules.test', { message: 'x', runtime_id: 'nope' })).rejects.toMatchObject({ code: -32602, data: { reason: 'unknown_runtime' } });
  });
});

test('with the scripting gate closed no rule answers, and rules.list says it is gated until ai_unrestricted opens the gate', async () => {
  const rules = [{ name: 'fixes', kind: 'permission', pattern: '^approve Bash: fix', answer: 'yes' }];
  const pf = await startInstance({ orchestration: true, config: { supervisor: { answer_delay_ms: 200 }, answer_rules: rules } });
  try {
    const events = await pf.subscribe();
    expect(await pf.call('rules.list', {})).toMatchObject({ enabled: true, gated: true });
    expect((await pf.call('rules.test', { message: 'approve Bash: fix it', runtime_id: 'claude-code' })).reason).toBe(
      "rule 'fixes' matches, but the scripting gate is closed: serve runs without PANEFLOW_IPC_SCRIPTING=1 and ai_unrestricted is off",
    );
    // An agent that works by itself and answers its own prompt 2 s after asking: long after the rule could have.
    const up = await pf.call('workspace.up', { name: 'gated', layout: 'even_h', panes: [{ name: 'auto', cwd: pf.dir, command: 'claude --auto 4000 --block', focus: true, env: {} }] });
    const surface = up.surfaces[0].surface_id;
    await events.next(waitingAt(surface));
    const ended = (await events.next(turnEnded(surface))).turn as TurnRecord;
    expect(ended.questions).toEqual([expect.objectContaining({ kind: 'permission', message: 'approve Bash: fix the login redirect', by: null })]);
    expect(events.frames.filter((f) => f.type === 'notification' && f.kind === 'answered_by_rule')).toEqual([]);
    expect((await pf.call('fleet.inbox', {})).answered).toEqual([]);
    expect((await pf.call('surface.status', { surface_id: surface })).supervision?.auto_answer).toBeNull();

    writeFileSync(pf.configFile, JSON.stringify({ ai_unrestricted: true, supervisor: { answer_delay_ms: 200 }, answer_rules: rules }));
    await until(async () => !(await pf.call('rules.list', {})).gated || null, 'ai_unrestricted opens the gate');
  } finally {
    await pf.cleanup();
  }
}, 60_000);

test("a rules.json that is not the rules' state (the wrong shape, a FIFO) is moved aside and named once, and the rules stay off until turned on", async () => {
  const pf = await startInstance({ scripting: true, config: { answer_rules: [{ name: 'any', kind: 'permission', pattern: '.', answer: 'yes' }] } });
  const file = join(pf.env.PANEFLOW_HOME!, 'serve/rules.json');
  const start = () => {
    const started = serveCli(pf.env, 'start');
    expect(started.code).toBe(0);
    pf.servePid = JSON.parse(started.stdout).pid;
  };
  try {
    expect((await pf.call('rules.list', {})).enabled).toBe(true);
    for (const [bad, why] of [
      [() => writeFileSync(file, JSON.stringify({ version: 1, enabled: 'yes', used: {}, answered: [] })), "'enabled' must be boolean"],
      [() => execFileSync('mkfifo', [file]), 'not a regular file'],
    ] as const) {
      serveCli(pf.env, 'stop', '--drain-ms', '100');
      await waitUntilGone(pf.servePid);
      rmSync(file, { force: true });
      bad();
      start();
      expect((await pf.call('rules.list', {})).enabled).toBe(false);
      expect(lstatSync(`${file}.unreadable`).isFile() || lstatSync(`${file}.unreadable`).isFIFO()).toBe(true);
      expect(pf.serveLog().split('\n').filter((line) => line.includes(`${file} is not the answer rules' state`) && line.includes(why))).toHaveLength(1);
      expect(await pf.call('rules.set_enabled', { enabled: true })).toEqual({ enabled: true });
      expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ version: 1, enabled: true });
      rmSync(`${file}.unreadable`);
    }
  } finally {
    await pf.cleanup();
  }
}, 60_000);
