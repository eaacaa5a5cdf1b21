// The attention inbox: `paneflow inbox` lists the agents waiting for their person, and `paneflow
// answer` answers one by its runtime's `[answers]` — only while it still waits at the prompt the
// inbox showed, confirmed by its state (exit 4 when nothing changed), behind the scripting gate.
import { encode } from '@paneflow/osc7501';
import { InboxItem, validate } from '@paneflow/protocol';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome, scaled, screen, until, type Home } from '@paneflow/testing';

type Item = InboxItem;

/**
 * A program named `name` (so identified as that runtime) that declares a permission prompt at once
 * and stays in it whatever is typed, printing what it got: an agent that hangs on its menu.
 */
function stuckAgent(home: Home, name: 'claude' | 'codex', app: string): string {
  const dir = join(home.dir, `stuck-${name}`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  const report = encode({ state: 'blocked', kind: 'permission', app, msg: 'approve Bash: make deploy' });
  writeFileSync(
    path,
    `#!${process.execPath}\nprocess.stdin.setRawMode(true);\nprocess.stdout.write(${JSON.stringify(report)} + 'stuck on its menu\\r\\n');\nprocess.stdin.on('data', (d) => process.stdout.write('got ' + JSON.stringify(String(d)) + '\\r\\n'));\n`,
  );
  chmodSync(path, 0o755);
  return path;
}

const inbox = (home: Home) => home.run(['inbox', '--json']).json<{ items: Item[] }>().items;
/** A key pressed in the pane as a person would: once the menu has been up longer than the agent is deaf. */
async function pressByHand(home: Home, surface_id: number, keystroke: string) {
  await until(() => inbox(home).find((i) => i.surface_id === surface_id && i.waiting_ms >= 600) ?? null, 'the menu listening');
  await home.rpc('surface.send_keystroke', { surface_id, keystroke, scope: 'all', force: true });
}
const state = (home: Home, id: number) => home.run(['status', String(id), '--json']).json<{ state: string; reason: string; state_seq: number }>();

describe('with scripting on', () => {
  let home: Home;
  let first: number;
  let second: number;
  beforeAll(async () => {
    home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1', PANEFLOW_IPC_SCRIPTING: '1' });
    expect(home.run(['start']).code).toBe(0);
    // Deaf for 500 ms after each prompt it reports, as Claude Code's menus are.
    const pane = (name: string) => ({ name, cwd: home.dir, command: 'claude --work-ms 100 --deaf-ms 500', focus: false, env: {} });
    first = (await home.rpc('workspace.up', { name: 'api', layout: 'even_h', panes: [pane('lead')] })).surfaces[0].surface_id;
    second = (await home.rpc('workspace.up', { name: 'web', layout: 'even_h', panes: [pane('helper')] })).surfaces[0].surface_id;
    await until(() => [first, second].every((id) => state(home, id).reason === 'declared') || null, 'both agents declare');
  }, scaled(60_000));
  afterAll(() => home?.cleanup());

  test('inbox lists the waiting agents oldest first, with workspace, pane, tool, kind, message, wait and answers', async () => {
    expect(home.run(['inbox']).stdout).toBe('no agent is waiting for you\n');
    expect(home.run(['send', String(first), 'deploy permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(() => inbox(home).length === 1 || null, 'the first agent waits');
    expect(home.run(['send', String(second), 'ship it question', '--submit', '--scope', 'all']).code).toBe(0);
    const items = await until(() => (inbox(home).length === 2 ? inbox(home) : null), 'both agents wait');

    for (const item of items) expect(validate(InboxItem, item)).toBeNull();
    expect(items.map((i) => i.surface_id)).toEqual([first, second]);
    expect(items[0]).toMatchObject({ workspace_name: 'api', surface_name: 'lead', tool: 'claude', runtime_id: 'claude-code', kind: 'permission', message: 'approve Bash: deploy permission', answers: { choices: ['yes', 'always', 'no'], text: false } });
    expect(items[1]).toMatchObject({ workspace_name: 'web', surface_name: 'helper', kind: 'question', message: 'which name? (ship it question)', answers: { choices: [], text: true } });
    expect(items[0].since_ms).toBeLessThanOrEqual(items[1].since_ms);
    expect(items[0].state_seq).toBe(state(home, first).state_seq);

    const table = home.run(['inbox']).stdout.split('\n');
    expect(table[0]).toMatch(/^WAITING\s+WORKSPACE\s+ID\s+NAME\s+TOOL\s+KIND\s+ANSWERS\s+MESSAGE$/);
    expect(table[1]).toMatch(new RegExp(`^\\d+s\\s+api\\s+${first}\\s+lead\\s+claude\\s+permission\\s+yes\\|always\\|no\\s+approve Bash: deploy permission$`));
    expect(table[2]).toMatch(new RegExp(`^\\d+s\\s+web\\s+${second}\\s+helper\\s+claude\\s+question\\s+<text>\\s+which name\\? \\(ship it question\\)$`));
  }, scaled(60_000));

  test('answer yes to a permission prompt runs the tool; a text answer answers a question; both leave the wait (exit 0)', async () => {
    const yes = home.run(['answer', String(first), 'yes']);
    expect(yes.stderr).toBe('');
    expect(yes.code).toBe(0);
    expect(yes.json()).toMatchObject({ surface_id: first, answered: true, left_waiting: true });
    await screen(home, String(first), /^allowed$/m);
    await until(() => state(home, first).state === 'finished' || null, 'the first turn finished');

    const text = home.run(['answer', String(second), 'use the name atlas']);
    expect(text.code).toBe(0);
    await screen(home, String(second), /^answer: use the name atlas$/m);
    expect(inbox(home)).toEqual([]);
  }, scaled(60_000));

  test('an answer given the moment the prompt shows waits for the runtime’s settle_ms, so a menu not yet listening loses nothing', async () => {
    expect(home.run(['send', String(first), 'tag release permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(() => inbox(home).length === 1 || null, 'it asks');
    expect(home.run(['answer', String(first), 'yes']).code).toBe(0);
    await screen(home, String(first), /tag release permission[\s\S]*^allowed$/m);
    await until(() => state(home, first).state === 'finished' || null, 'the turn finished');
  }, scaled(60_000));

  test('answer no declines: the turn ends at the prompt; an unknown answer is a usage error and types nothing', async () => {
    expect(home.run(['send', String(first), 'drop the table permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(() => inbox(home).length === 1 || null, 'it asks again');
    const unknown = home.run(['answer', String(first), 'maybe']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("'maybe' is not an answer to this prompt; it takes yes, always, no");
    expect(state(home, first).state).toBe('waiting_for_input');

    expect(home.run(['answer', String(first), 'no']).code).toBe(0);
    await screen(home, String(first), /^denied$/m);
    expect(state(home, first).state).toBe('idle');
  }, scaled(60_000));

  test('an agent that moved on is not answered, and nothing is typed into it (not_waiting, exit 1)', async () => {
    expect(home.run(['send', String(first), 'rotate keys permission', '--submit', '--scope', 'all']).code).toBe(0);
    const [seen] = await until(() => (inbox(home).length === 1 ? inbox(home) : null), 'it asks');
    // Answered by hand, then asked again: a later prompt, a later state_seq.
    await pressByHand(home, first, '1');
    await until(() => state(home, first).state === 'finished' || null, 'that turn ended');
    expect(home.run(['send', String(first), 'format disk permission', '--submit', '--scope', 'all']).code).toBe(0);
    const [later] = await until(() => (inbox(home).length === 1 ? inbox(home) : null), 'it asks again');
    expect(later.state_seq).toBeGreaterThan(seen.state_seq);

    await expect(home.rpc('surface.answer', { surface_id: first, answer: 'yes', state_seq: seen.state_seq, scope: 'all' })).rejects.toMatchObject({ code: -32030, data: { reason: 'not_waiting' } });
    expect(state(home, first)).toMatchObject({ state: 'waiting_for_input', state_seq: later.state_seq });
    expect(home.run(['read', String(first), '--raw']).stdout).not.toMatch(/format disk permission[\s\S]*allowed/);

    // A script that names the prompt it read (--seq) is refused the later one too, before anything is typed.
    const named = home.run(['answer', String(first), 'yes', '--seq', String(seen.state_seq)]);
    expect(named.code).toBe(1);
    expect(named.stderr).toContain(`not_waiting: surface ${first} is waiting_for_input at state_seq ${later.state_seq}, not waiting at ${seen.state_seq}`);
    expect(state(home, first)).toMatchObject({ state: 'waiting_for_input', state_seq: later.state_seq });
    expect(home.run(['read', String(first), '--raw']).stdout).not.toMatch(/format disk permission[\s\S]*allowed/);

    const idle = home.run(['answer', String(second), 'yes']);
    expect(idle.code).toBe(1);
    expect(idle.stderr).toContain(`not_waiting: surface ${second} is not waiting for you`);
    await pressByHand(home, first, '3');
    await until(() => state(home, first).state !== 'waiting_for_input' || null, 'the prompt declined by hand');
    // With --seq of the prompt it waits at, the answer goes through.
    expect(home.run(['send', String(first), 'merge branch permission', '--submit', '--scope', 'all']).code).toBe(0);
    const [current] = await until(() => (inbox(home).length === 1 ? inbox(home) : null), 'it asks once more');
    expect(home.run(['answer', String(first), 'yes', '--seq', String(current.state_seq)]).code).toBe(0);
    await screen(home, String(first), /merge branch permission[\s\S]*^allowed$/m);
  }, scaled(60_000));

  test('a runtime that names no answers: listed as answered by hand, and answer says so (exit 1) and types nothing', async () => {
    const codex = (await home.rpc('workspace.up', { name: 'by-hand', layout: 'even_h', panes: [{ name: 'cx', cwd: home.dir, command: stuckAgent(home, 'codex', 'codex'), focus: false, env: {} }] })).surfaces[0].surface_id;
    const item = await until(() => inbox(home).find((i) => i.surface_id === codex) ?? null, 'the codex agent waits');
    expect(item).toMatchObject({ runtime_id: 'codex', kind: 'permission', answers: null });
    expect(home.run(['inbox']).stdout).toMatch(new RegExp(`\\s${codex}\\s+cx\\s+codex\\s+permission\\s+by hand\\s+approve Bash: make deploy$`, 'm'));
    const refused = home.run(['answer', String(codex), 'yes']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('no_answers: codex has no answers for permission prompt; answer by hand in the pane');
    expect(home.run(['read', String(codex), '--raw']).stdout).not.toMatch(/^got /m);
    await home.rpc('surface.close', { surface_id: codex });
  }, scaled(60_000));

  test('inbox --watch redraws as agents start and stop waiting, until Ctrl-C (exit 0)', async () => {
    const watch = home.start(['inbox', '--watch']);
    const copies = () => watch.lines.join('\n').split(/^live: .*$/m).slice(0, -1);
    await until(() => copies().length >= 1 || null, 'the first table');
    expect(copies().at(-1)).toContain('no agent is waiting for you');
    expect(home.run(['send', String(second), 'a name question', '--submit', '--scope', 'all']).code).toBe(0);
    await until(() => /^\d+s\s+web\s+\d+\s+helper\s+claude\s+question\s+<text>\s+which name\? \(a name question\)$/m.test(copies().at(-1) ?? '') || null, 'a copy with the waiting agent');
    expect(home.run(['answer', String(second), 'call it vega']).code).toBe(0);
    await until(() => copies().at(-1)?.includes('no agent is waiting for you') || null, 'a copy with nobody waiting again');
    process.kill(watch.child.pid!, 'SIGINT');
    expect(await watch.exited).toBe(0);
  }, scaled(60_000));

  test('an agent still waiting 3 s after its answer was typed: exit 4, left_waiting false', async () => {
    const stuck = (await home.rpc('workspace.up', { name: 'stuck', layout: 'even_h', panes: [{ name: 'stuck', cwd: home.dir, command: stuckAgent(home, 'claude', 'claude-code'), focus: false, env: {} }] })).surfaces[0].surface_id;
    await until(() => inbox(home).find((i) => i.surface_id === stuck) ?? null, 'the stuck agent waits');
    const result = home.run(['answer', String(stuck), 'always']);
    expect(result.code).toBe(4);
    expect(result.json()).toMatchObject({ surface_id: stuck, answered: true, left_waiting: false, state: 'waiting_for_input' });
    // What was typed is the runtime's key for `always`, and only that.
    await screen(home, String(stuck), /^got "2"$/m);
  }, scaled(60_000));
});

test('with scripting off, answer is refused and nothing is typed; inbox still lists', async () => {
  const home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1' });
  try {
    expect(home.run(['start']).code).toBe(0);
    const stuck = (await home.rpc('workspace.up', { name: 'gated', layout: 'even_h', panes: [{ name: 'gated', cwd: home.dir, command: stuckAgent(home, 'claude', 'claude-code'), focus: false, env: {} }] })).surfaces[0].surface_id;
    await until(() => inbox(home).find((i) => i.surface_id === stuck) ?? null, 'the agent waits');
    const result = home.run(['answer', String(stuck), 'yes']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('surface.answer disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1');
    expect(home.run(['read', String(stuck), '--raw', '--scope', 'all']).stdout).not.toContain('got ');
  } finally {
    home.cleanup();
  }
}, scaled(60_000));
