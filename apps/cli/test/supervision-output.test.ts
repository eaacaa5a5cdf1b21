// What `ps`, `status` and `inbox` print of the supervisor (libs/protocol/src/supervisor.ts): its
// words from @paneflow/view in the DETAIL column, under a status line, and in the inbox's table
// of held queues and usage limits; nothing an agent printed reaches the terminal raw.
import type { StatusObject, Supervision } from '@paneflow/protocol';
import { makeHome, scaled, until, type Home } from '@paneflow/testing';
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

describe('the real ps, status and inbox', () => {
  let home: Home;
  beforeAll(() => {
    home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
    expect(home.run(['start']).code).toBe(0);
  });
  afterAll(() => home?.cleanup());

  test('a queued prompt and a held queue in ps, status and inbox', async () => {
    const pane = (name: string) => ({ name, cwd: home.dir, command: 'claude --work-ms 200', focus: false, env: {} });
    const up = await home.rpc('workspace.up', { name: 'sup', layout: 'even_h', panes: [pane('asker'), pane('broken')] });
    const [asker, broken] = up.surfaces.map((s) => s.surface_id);
    const state = async (id: number) => (await home.rpc('surface.status', { surface_id: id })).state;
    await until(async () => ((await state(asker)) === 'idle' && (await state(broken)) === 'idle') || null, 'both agents idle');
    // One waits at a permission prompt with a prompt queued behind it; the other errored, its queue held.
    expect(home.run(['send', 'asker', 'deploy permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await state(asker)) === 'waiting_for_input' || null, 'asker waits');
    await home.rpc('queue.add', { surface_id: asker, text: 'then the docs' });
    await home.rpc('surface.send_text', { surface_id: broken, text: 'error', submit: true }).catch(() => undefined);
    await until(async () => (await state(broken)) === 'errored' || null, 'broken errored');
    await home.rpc('queue.add', { surface_id: broken, text: 'try again' });
    await until(async () => (await home.rpc('surface.status', { surface_id: broken })).supervision?.queue_held ?? null, 'the queue held');

    const ps = home.run(['ps']).stdout.split('\n');
    expect(ps.find((l) => l.startsWith(`${asker} `))).toMatch(/ · queued 1$/);
    expect(ps.find((l) => l.startsWith(`${broken} `))).toMatch(/the fixture failed on purpose · queue held: errored \(1 waiting\)$/);
    expect(home.run(['status', 'broken', '--scope', 'all']).stdout).toBe(
      `${broken} broken claude errored (declared) · the fixture failed on purpose · queue held: errored (1 waiting)\n  queue held: the fixture failed on purpose\n`,
    );
    const inbox = home.run(['inbox']).stdout;
    expect(inbox).toMatch(new RegExp(`^\\d+s\\s+sup\\s+${asker}\\s+asker\\s+claude\\s+permission\\s+yes\\|always\\|no\\s+approve Bash: deploy permission$`, 'm'));
    expect(inbox).toMatch(new RegExp(`^queues held and usage limits:\\nID\\s+NAME\\s+SUPERVISOR\\s+DETAIL\\n${broken}\\s+broken\\s+queue held: errored \\(1 waiting\\)\\s+the fixture failed on purpose$`, 'm'));
    expect(home.run(['ps', '--json']).json<{ agents: StatusObject[] }>().agents.find((a) => a.surface_id === asker)?.supervision).toMatchObject({ queued: 1, queue_held: null });
  }, scaled(60_000));
});

test('an answer a rule gave: in ps and status, by rule and how long ago, the question under status', async () => {
  const home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  try {
    home.writeConfig({ answer_rules: [{ name: 'tests', kind: 'permission', pattern: '^approve Bash: run the tests', answer: 'yes' }], supervisor: { answer_delay_ms: 0 } });
    expect(home.run(['start']).code).toBe(0);
    const up = await home.rpc('workspace.up', { name: 'ruled', layout: 'even_h', panes: [{ name: 'tester', cwd: home.dir, command: 'claude --work-ms 200', focus: false, env: {} }] });
    const tester = up.surfaces[0].surface_id;
    await until(async () => (await home.rpc('surface.status', { surface_id: tester })).state === 'idle' || null, 'the agent idle');
    expect(home.run(['send', 'tester', 'run the tests permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await home.rpc('surface.status', { surface_id: tester })).supervision?.auto_answer ?? null, 'the rule answered');
    expect(home.run(['ps']).stdout.split('\n').find((l) => l.startsWith(`${tester} `))).toMatch(/\sanswered 'yes' by rule 'tests' \d+s ago$/);
    expect(home.run(['status', 'tester', '--scope', 'all']).stdout).toMatch(new RegExp(`^${tester} tester claude \\w+ \\(declared\\).* · answered 'yes' by rule 'tests' \\d+s ago\\n  answered: approve Bash: run the tests permission\\n$`));
  } finally {
    home.cleanup();
  }
}, scaled(60_000));

test('a stall and a usage limit in ps, status and inbox: their age, their facts, the reset on the local clock', async () => {
  // A test-short stall threshold: two seconds.
  const home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  try {
    home.writeConfig({ agent_stall_threshold_secs: 2 });
    expect(home.run(['start']).code).toBe(0);
    const pane = (name: string) => ({ name, cwd: home.dir, command: 'claude', focus: false, env: {} });
    const up = await home.rpc('workspace.up', { name: 'watched', layout: 'even_h', panes: [pane('silent'), pane('capped')] });
    const [silent, capped] = up.surfaces.map((s) => s.surface_id);
    const status = (id: number) => home.rpc('surface.status', { surface_id: id });
    await until(async () => ((await status(silent)).state === 'idle' && (await status(capped)).state === 'idle') || null, 'both agents idle');

    // The fixture's `stall`: working, then nothing at all.
    await home.rpc('surface.send_text', { surface_id: silent, text: 'stall', submit: true });
    await until(async () => (await status(silent)).supervision?.stalled ?? null, 'the stall flagged');
    expect(home.run(['ps']).stdout.split('\n').find((l) => l.startsWith(`${silent} `))).toMatch(/\sstalled\s+\d+\s+\d+s\s+stalled \d+s$/);
    expect(home.run(['status', 'silent', '--scope', 'all']).stdout).toMatch(
      new RegExp(`^${silent} silent claude stalled \\(\\w+\\) · stalled \\d+s\\n  stalled: no output \\d+s, no CPU \\d+s, no hook seen, no record \\d+s\\n$`),
    );
    // Output clears it.
    await home.rpc('surface.send_text', { surface_id: silent, text: 'x' });
    await until(async () => (await status(silent)).supervision?.stalled === null || null, 'the stall cleared');
    expect(home.run(['ps']).stdout).not.toMatch(/ · stalled \d/);

    // The fixture's `limit`: Claude Code's usage-limit line, its reset two minutes ahead.
    await home.rpc('surface.send_text', { surface_id: capped, text: 'limit 120', submit: true }).catch(() => undefined);
    const { limit } = (await until(async () => ((await status(capped)).supervision?.limit ? (await status(capped)).supervision : null), 'the limit seen'))!;
    expect(limit!.resets_at_ms).not.toBeNull();
    const at = new Date(limit!.resets_at_ms!);
    const clock = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
    // The reset is a minute or two ahead: today, unless that is past midnight.
    const shown = at.getDate() === new Date().getDate() ? clock : `\\w{3} ${clock}`;
    expect(home.run(['ps']).stdout.split('\n').find((l) => l.startsWith(`${capped} `))).toMatch(new RegExp(` · limit — resets ${shown}$`));
    expect(home.run(['status', 'capped', '--scope', 'all']).stdout.split('\n')[1]).toMatch(/^ {2}limit: .*You've hit your session limit · resets /);
    expect(home.run(['inbox']).stdout).toMatch(new RegExp(`^queues held and usage limits:\\nID\\s+NAME\\s+SUPERVISOR\\s+DETAIL\\n${capped}\\s+capped\\s+limit — resets ${shown}\\s+.*You've hit your session limit`, 'm'));
  } finally {
    home.cleanup();
  }
}, scaled(60_000));
