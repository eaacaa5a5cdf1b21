// `paneflow attach` with many machines (issue 32), in a real terminal (tmux) against two real
// instances: "near", the one attach talks to, and "far", which near's serve reaches as machine
// `far` through libs/testing's fake ssh (it runs `paneflow rpc --stdio` in far's home, as sshd
// would). The sidebar lists every machine's agents under their machine; a far wait rings and
// names its machine; prefix a (and a click on a far row) moves the attach to that machine.
import { LockFile } from '@paneflow/instance';
import { CLI, fakeSsh, homeDestination, makeHome, scaled, Tmux, until, type FakeSsh, type Home, type TmuxWindow } from '@paneflow/testing';
import type { MachineRow } from '@paneflow/protocol';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(scaled(120_000));

const GATES = { PANEFLOW_IPC_ORCHESTRATION: '1', PANEFLOW_IPC_SCRIPTING: '1' };
const SHELL = (prompt: string) => `PS1="${prompt}$ " exec bash --norc --noprofile -i`;
const text = (lines: string[]) => lines.join('\n');
/** The sidebar's column of a screen (left of its border), trailing blanks cut. */
const sidebar = (lines: string[]) => lines.map((line) => line.split('│')[0].trimEnd()).join('\n');
/** Sidebar lines in order (each a heading or an agent's row, idle or Done: a turn may have ended unseen), as one multiline pattern. */
const column = (...lines: string[]) => new RegExp(`^${lines.map((line) => (line === '' || line.startsWith(' ') ? line : String.raw`\s+(?:✔ )?${line}(?:\s+Done)?`)).join('\n')}$`, 'm');

let near: Home;
let far: Home;
let tmux: Tmux;
let ssh: FakeSsh;
/** The agents, each the first pane of its instance: the same id on both machines. */
let lead: number;
let builder: number;
let nearShell: number;

beforeAll(async () => {
  near = makeHome(GATES);
  far = makeHome(GATES);
  ssh = fakeSsh(join(near.dir, 'bin'), { 'me@far': homeDestination(far) });
  for (const home of [near, far]) expect(home.run(['start']).code).toBe(0);
  const agent = (name: string, home: Home) => ({ name, cwd: home.dir, command: 'claude --work-ms 100', focus: false, env: {} });
  const shell = (name: string, home: Home) => ({ name, cwd: home.dir, command: SHELL(name), focus: true, env: {} });
  [lead, nearShell] = (await near.rpc('workspace.up', { name: 'here', layout: 'even_h', panes: [agent('lead', near), shell('near-sh', near)] })).surfaces.map((s) => s.surface_id);
  builder = (await far.rpc('workspace.up', { name: 'there', layout: 'even_h', panes: [agent('builder', far), shell('far-sh', far)] })).surfaces[0].surface_id;
  expect(near.run(['machine', 'add', 'far', 'me@far']).code).toBe(0);
  await until(async () => ((await link())?.state === 'connected' && (await link())?.agents === 1) || null, 'far connected, its agent seen');
  tmux = new Tmux();
}, scaled(90_000));

afterAll(() => {
  tmux?.kill();
  for (const home of [near, far]) home?.cleanup();
});

const link = async (): Promise<MachineRow | undefined> => (await near.rpc('machine.list', {})).machines.find((m: MachineRow) => m.name === 'far');
/** A press and release of the first mouse button on a sidebar line (0-based), as the terminal reports it. */
const click = (window: TmuxWindow, line: number) => window.type(`\x1b[<0;4;${line + 1}M\x1b[<0;4;${line + 1}m`);

/** `paneflow attach ARGS…` in a tmux window as a terminal that shows OSC 9 notifications; what it wrote is kept. */
function attach(args: string[]): { window: TmuxWindow; written: () => string } {
  const window = tmux.window([process.execPath, CLI, 'attach', ...args], { env: { ...near.env, TERM_PROGRAM: 'WezTerm' }, dir: near.dir, cols: 120, rows: 32 });
  const file = join(near.dir, `written-${args.join('-')}`);
  writeFileSync(file, '');
  window.pipe(file);
  return { window, written: () => readFileSync(file, 'utf8') };
}

const focusOf = async (home: Home, name: string) => (await home.rpc('workspace.list', {})).workspaces.find((w) => w.name === name)!;
const state = async (home: Home, id: number) => (await home.rpc('surface.status', { surface_id: id })).state;

/** Leaves an agent waiting on its own instance (asked through that instance's own socket), then answered. */
async function wait(home: Home, name: string, prompt: string): Promise<void> {
  expect(home.run(['send', name, prompt, '--submit', '--scope', 'all']).code).toBe(0);
}

async function answered(home: Home, name: string, id: number): Promise<void> {
  expect(home.run(['key', name, '1', '--force', '--scope', 'all']).code).toBe(0);
  await until(async () => (await state(home, id)) !== 'waiting_for_input' || null, `${name} answered`);
}

test("attached here, the sidebar lists the far agent under `far`; the far pane with this one's id is a row of its own", async () => {
  expect(builder).toBe(lead);
  const { window } = attach(['here']);
  await window.shows((l) => column(' Agents', 'lead', '', ' far', 'builder').test(sidebar(l)) && text(l).includes('near-sh$'), 'lead under Agents, builder under far');
  window.keys('C-b', 'd');
  await until(() => window.dead || null, 'detached');
});

test('a far wait rings naming its machine; prefix a goes there (the far workspace, its pane focused) and, with an agent waiting here, back', async () => {
  const { window, written } = attach(['here']);
  await window.shows((l) => column(' far', 'builder').test(sidebar(l)) && text(l).includes('near-sh$'), 'the far row');
  await wait(far, 'builder', 'ship it permission');
  try {
    await until(() => written().includes('\x07\x1b]9;Needs input: builder on far: approve Bash: ship it permission\x07') || null, 'the bell and the notification naming far');
    await window.shows((l) => l.at(-1)!.includes('Needs input: builder on far · C-b a goes there'), 'the note');
    await window.shows((l) => /^ far\n\s+● builder\s+Need you$/m.test(sidebar(l)), 'Need you under far');

    window.keys('C-b', 'a');
    // Each far pane attaches on its own through the link: the shell's may come a moment after the agent's.
    const there = await window.shows((l) => text(l).includes('thinking about: ship it permission') && l.at(-1)!.includes(`▸ ${builder} builder `) && text(l).includes('far-sh$'), "the far panes' screens, builder focused");
    expect(sidebar(there)).toMatch(column(' this machine', 'lead'));
    expect(sidebar(there)).not.toMatch(/^ far$/m);
    expect(await focusOf(far, 'there')).toMatchObject({ active: true, focus: builder });

    // A wait here, after the far one: the next in the fleet-wide inbox after the far agent in front.
    await wait(near, 'lead', 'come back permission');
    await window.shows((l) => /^ this machine\n\s+● lead\s+Need you$/m.test(sidebar(l)), 'Need you under this machine');
    window.keys('C-b', 'a');
    const back = await window.shows((l) => l.at(-1)!.includes(`▸ ${lead} lead `) && text(l).includes('thinking about: come back permission'), 'back here, lead focused');
    expect(sidebar(back)).toMatch(/^ far\n\s+● builder\s+Need you$/m);
    expect(await focusOf(near, 'here')).toMatchObject({ focus: lead });
    // The terminal taken over once: the alternate screen never left in between, nor entered again.
    expect(written()).not.toContain('\x1b[?1049l');
    expect(written().split('\x1b[?1049h').length).toBeLessThanOrEqual(2);
  } finally {
    // Left waiting, they would head the next test's sidebar.
    await answered(far, 'builder', builder);
    if ((await state(near, lead)) === 'waiting_for_input') await answered(near, 'lead', lead);
  }
  window.keys('C-b', 'd');
  await until(() => window.dead || null, 'detached');
});

test("attached with --machine far, this machine's agents are under their own heading, and a click there comes back here", async () => {
  const { window } = attach(['--machine', 'far', 'there']);
  const lines = await window.shows((l) => column(' Agents', 'builder', '', ' this machine', 'lead').test(sidebar(l)) && text(l).includes('far-sh$'), "far's agents, then this machine's");
  // The far pane with the same id as lead is one row, under Agents, and lead one, under this machine.
  expect(sidebar(lines).match(/^\s+(✔ )?(lead|builder)(\s+Done)?$/gm)).toHaveLength(2);
  await near.rpc('surface.focus', { surface_id: nearShell });
  const row = sidebar(lines).split('\n').findIndex((line) => column('lead').test(line));
  click(window, row);
  await window.shows((l) => l.at(-1)!.includes(`▸ ${lead} lead `) && column(' far', 'builder').test(sidebar(l)), 'here, lead focused, far below');
  expect(await focusOf(near, 'here')).toMatchObject({ focus: lead });
  window.keys('C-b', 'd');
  await until(() => window.dead || null, 'detached');
});

test('a far link down: its state under its name; a click on its last-seen agent says why and stays here', async () => {
  const { window } = attach(['here']);
  await window.shows((l) => column(' far', 'builder').test(sidebar(l)) && text(l).includes('near-sh$'), 'the far row');
  // While ssh is refused, the link cannot come back by itself.
  ssh.set('me@far', { behaviour: 'refuse' });
  process.kill(new LockFile(join(far.env.PANEFLOW_HOME!, 'serve', 'owner.lock')).holder()!.pid, 'SIGKILL');
  try {
    const lines = await window.shows((l) => /^ far\n far — (reconnecting|offline) /m.test(sidebar(l)), "the link's state under far");
    click(window, sidebar(lines).split('\n').findIndex((line) => column('builder').test(line)));
    const said = await window.shows((l) => /far is (reconnecting|offline)/.test(l.at(-1)!), "the link's refusal on the status line");
    expect(window.dead).toBe(false);
    expect(sidebar(said)).toMatch(column(' far', 'far — .*', 'builder'));
    expect(text(said)).toContain('near-sh$');
    expect((await focusOf(near, 'here')).active).toBe(true);
  } finally {
    ssh.set('me@far', homeDestination(far));
    await until(async () => (await link())?.state === 'connected' || null, 'far connected again', scaled(60_000));
  }
  window.keys('C-b', 'd');
  await until(() => window.dead || null, 'detached');
});
