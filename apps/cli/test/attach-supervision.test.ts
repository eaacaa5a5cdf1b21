// The supervisor in `paneflow attach` as a person meets it, in a real terminal (tmux) against a
// real instance: prefix q queues a prompt for the focused agent (`queue.add`), the sidebar says
// `queued 1` under the agent until its turn ends and the prompt goes, Esc cancels, and a refusal
// (the scripting gate off) is said on the status line, escaped; a queue held out of view rings;
// a usage limit under its agent.
import { CLI, makeHome, scaled, Tmux, until, type Home } from '@paneflow/testing';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const text = (lines: string[]) => lines.join('\n');

/** The sidebar's column of a screen (left of its border). */
const sidebar = (lines: string[]) => lines.map((line) => line.split('│')[0]).join('\n');

async function agentIn(home: Home, workspace: string, command: string, name = 'lead'): Promise<number> {
  const up = await home.rpc('workspace.up', { name: workspace, layout: 'even_h', panes: [{ name, cwd: home.dir, command, focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await until(async () => (await home.rpc('surface.status', { surface_id: surface })).reason === 'declared' || null, 'the agent declares');
  return surface;
}

describe('with scripting on', () => {
  let home: Home;
  let tmux: Tmux;
  beforeAll(() => {
    home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
    expect(home.run(['start']).code).toBe(0);
    tmux = new Tmux();
  });
  afterAll(() => {
    tmux?.kill();
    home?.cleanup();
  });

  test('prefix q queues a line for an agent in its turn: queued 1 in the sidebar until the turn ends and the line goes; Esc queues nothing', async () => {
    const lead = await agentIn(home, 'queueing', 'claude --work-ms 200');
    const window = tmux.window([process.execPath, CLI, 'attach', 'queueing'], { env: home.env, dir: home.dir, cols: 120, rows: 30 });
    await window.shows((l) => /─ \d+ lead/.test(text(l)), 'attached');

    // Esc leaves the prompt with nothing queued.
    window.keys('C-b', 'q');
    await window.shows((l) => l.at(-1)!.includes('queue for lead: ▏'), 'the prompt');
    window.type('never mind');
    await window.shows((l) => l.at(-1)!.includes('queue for lead: never mind▏'), 'the typed line');
    window.keys('Escape');
    await window.shows((l) => l.at(-1)!.includes('C-b ? help'), 'the prompt gone');
    expect((await home.rpc('queue.list', { surface_id: lead })).queues.flatMap((q) => q.items)).toEqual([]);

    // Its turn stops at a permission prompt: it lasts until answered.
    expect(home.run(['send', 'lead', 'first task permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await home.rpc('surface.status', { surface_id: lead })).state === 'waiting_for_input' || null, 'the agent asking');
    window.keys('C-b', 'q');
    window.type('second task');
    await window.shows((l) => l.at(-1)!.includes('queue for lead: second task▏'), 'the typed line');
    window.keys('Enter');
    await window.shows((l) => /lead: queued q\d+, number 1 in line/.test(l.at(-1)!), 'the note');
    await window.shows((l) => /^\s+queued 1\s*$/m.test(sidebar(l)), 'queued 1 under the agent');
    const [item] = (await home.rpc('queue.list', { surface_id: lead })).queues.flatMap((q) => q.items);
    expect(item).toMatchObject({ surface_id: lead, text: 'second task', position: 1 });

    // The first turn ends: the queued line is the next prompt, and the sidebar no longer counts it.
    expect(home.run(['answer', 'lead', 'yes', '--scope', 'all']).code).toBe(0);
    await window.shows((l) => text(l).includes('thinking about: second task'), 'the queued line delivered');
    await window.shows((l) => !/queued \d/.test(sidebar(l)), 'queued gone from the sidebar');
    window.keys('C-b', 'd');
    await until(() => window.dead || null, 'detached');
  }, scaled(60_000));

  test('a usage limit under its agent in the sidebar: the reset on the local clock', async () => {
    const capped = await agentIn(home, 'capping', 'claude', 'capped');
    const window = tmux.window([process.execPath, CLI, 'attach', 'capping'], { env: home.env, dir: home.dir, cols: 120, rows: 30 });
    await window.shows((l) => /─ \d+ capped/.test(text(l)), 'attached');
    // The fixture's `limit`: Claude Code's usage-limit line, its reset two minutes ahead.
    await home.rpc('surface.send_text', { surface_id: capped, text: 'limit 120', submit: true }).catch(() => undefined);
    const limit = (await until(async () => (await home.rpc('surface.status', { surface_id: capped })).supervision?.limit ?? null, 'the limit seen'))!;
    const at = new Date(limit.resets_at_ms!);
    const clock = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
    await window.shows((l) => new RegExp(`^\\s+limit — resets (\\w{3} )?${clock}\\s*$`, 'm').test(sidebar(l)), 'the limit under the agent');
    window.keys('C-b', 'd');
    await until(() => window.dead || null, 'detached');
  }, scaled(60_000));

  test("a queue held out of view rings and notifies as a wait does, worded as every face words it", async () => {
    const broken = await agentIn(home, 'away', 'claude --work-ms 200', 'broken');
    await home.rpc('workspace.up', { name: 'here', layout: 'even_h', panes: [{ name: 'sh', cwd: home.dir, command: 'PS1="ready$ " exec bash --norc --noprofile -i', focus: true, env: {} }] });
    // The outer terminal's environment says it shows OSC 9 notifications.
    const window = tmux.window([process.execPath, CLI, 'attach', 'here'], { env: { ...home.env, TERM_PROGRAM: 'WezTerm' }, dir: home.dir, cols: 120, rows: 30 });
    const file = join(home.dir, 'written-held');
    writeFileSync(file, '');
    window.pipe(file);
    const written = () => readFileSync(file, 'latin1');
    await window.shows((l) => /^\s+broken\s*$/m.test(sidebar(l)) && text(l).includes('ready$'), 'the agent row');
    // It declares an error (no turn starts: the submit is not confirmed); what is queued for it is held.
    await home.rpc('surface.send_text', { surface_id: broken, text: 'error', submit: true }).catch(() => undefined);
    await until(async () => (await home.rpc('surface.status', { surface_id: broken })).state === 'errored' || null, 'the agent errored');
    await home.rpc('queue.add', { surface_id: broken, text: 'try again' });
    await until(() => written().includes('\x07\x1b]9;Queue held: broken in away: ') || null, 'the bell and the notification');
    await window.shows((l) => l.at(-1)!.includes('Queue held: broken in away') && !l.at(-1)!.includes('goes there'), 'the note');
    await window.shows((l) => /^\s+queue held: errored \(1…?/m.test(sidebar(l)), 'the hold under the agent');
    window.keys('C-b', 'd');
    await until(() => window.dead || null, 'detached');
  }, scaled(60_000));
});

test('with scripting off, queueing is refused and the status line says why; nothing is queued', async () => {
  const home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1' });
  const tmux = new Tmux();
  try {
    expect(home.run(['start']).code).toBe(0);
    const lead = await agentIn(home, 'gated', 'claude');
    const window = tmux.window([process.execPath, CLI, 'attach', 'gated'], { env: home.env, dir: home.dir, cols: 160, rows: 24 });
    await window.shows((l) => /─ \d+ lead/.test(text(l)), 'attached');
    window.keys('C-b', 'q');
    // A control character pasted into the prompt is shown, not run.
    tmux.run('set-buffer', '-b', 'nasty', 'run \x1b[2J it');
    tmux.run('paste-buffer', '-p', '-b', 'nasty', '-t', window.target);
    await window.shows((l) => l.at(-1)!.includes('queue for lead: run ^[[2J it▏'), 'the pasted line, its ESC shown');
    window.keys('Enter');
    await window.shows((l) => /lead: not queued: queue\.add disabled/.test(l.at(-1)!), 'the refusal');
    expect((await home.rpc('queue.list', { surface_id: lead })).queues.flatMap((q) => q.items)).toEqual([]);
    window.keys('C-b', 'd');
    await until(() => window.dead || null, 'detached');
  } finally {
    tmux.kill();
    home.cleanup();
  }
}, scaled(60_000));
