// `paneflow attach` as a person meets it: in a real terminal (tmux), typed into with send-keys,
// read back with capture-pane, against a real instance.
import { CLI, makeHome, ROOT, scaled, sshdUnavailable, startSshd, Tmux, until, type Home, type TmuxWindow } from '@paneflow/testing';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

const SHELL = 'PS1="ready$ " exec bash --norc --noprofile -i';
const text = (lines: string[]) => lines.join('\n');

function attach(workspace: string, cols = 120, rows = 32): TmuxWindow {
  return tmux.window([process.execPath, CLI, 'attach', workspace], { env: home.env, dir: home.dir, cols, rows });
}

/**
 * Asks the pane its size (`stty size`) until it says `size`: the PTY is resized a moment after the
 * client whose window changed, or who typed, draws at its size, so one ask may come before it.
 */
async function sizeSaid(window: TmuxWindow, size: string, what: string): Promise<void> {
  const deadline = Date.now() + scaled(20_000);
  for (;;) {
    window.type('stty size');
    window.keys('Enter');
    try {
      await until(() => text(window.capture()).includes(size) || null, what, 2000);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${(error as Error).message}; the screen:\n${text(window.capture())}`, { cause: error });
    }
  }
}

async function workspace(name: string, panes: Array<{ name: string; command: string; focus?: boolean }>) {
  const up = await home.rpc('workspace.up', { name, layout: 'even_h', panes: panes.map((p) => ({ name: p.name, cwd: home.dir, command: p.command, focus: !!p.focus, env: {} })) });
  return Object.fromEntries(up.surfaces.map((s) => [s.name, s.surface_id])) as Record<string, number>;
}

const focusOf = async (name: string) => (await home.rpc('workspace.list', {})).workspaces.find((w) => w.name === name)!.focus;

test('typing into a shell pane runs the command; the sidebar lists the workspaces; the status line names the focused pane', async () => {
  const ids = await workspace('typing', [{ name: 'sh', command: SHELL, focus: true }]);
  const window = attach('typing');
  await window.shows((l) => text(l).includes('ready$'), 'the prompt');
  window.type('echo from-$((6*7))');
  window.keys('Enter');
  const lines = await window.shows((l) => text(l).includes('from-42'), 'the output');
  expect(lines[0]).toMatch(/Workspaces/);
  expect(text(lines)).toMatch(/▸ \d+ typing/);
  expect(lines.at(-1)).toMatch(/C-b \? help/);
  expect(lines.at(-1)).toContain(`▸ ${ids.sh} sh `);
});

test("an agent's turn in the sidebar: spinner, Need you with its message, answered with a key, Done until the pane is seen", async () => {
  const ids = await workspace('turns', [
    { name: 'lead', command: 'claude --work-ms 1500' },
    { name: 'side', command: SHELL, focus: true },
  ]);
  const window = attach('turns');
  await window.shows((l) => /^\s+lead\s*│/m.test(text(l)), 'the agent row');
  expect(home.run(['send', 'lead', 'deploy it permission', '--submit', '--scope', 'all']).code).toBe(0);
  await window.shows((l) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] lead/.test(text(l)), 'a spinner');
  const asking = await window.shows((l) => text(l).includes('Need you'), 'Need you');
  expect(text(asking)).toMatch(/● lead\s+Need you/);
  expect(text(asking)).toMatch(/approve Bash: deploy/);
  // prefix a jumps to the agent that needs you; 1 answers its menu, as a person would.
  window.keys('C-b', 'a');
  await until(async () => (await focusOf('turns')) === ids.lead || null, 'focus on the agent');
  window.type('1');
  await until(async () => ((await home.rpc('surface.status', { surface_id: ids.lead })).state === 'finished' ? true : null), 'the turn done');
  // Done in the pane in front of you is seen at once.
  expect((await home.rpc('surface.status', { surface_id: ids.lead })).unread).toBe(false);

  window.keys('C-b', 'Right');
  await until(async () => (await focusOf('turns')) === ids.side || null, 'focus back on the shell');
  expect(home.run(['send', 'lead', 'again permission', '--submit', '--scope', 'all']).code).toBe(0);
  await window.shows((l) => text(l).includes('Need you'), 'Need you again');
  expect(home.run(['key', 'lead', '1', '--force', '--scope', 'all']).code).toBe(0);
  await window.shows((l) => /✔ lead\s+Done/.test(text(l)), 'Done');
  window.keys('C-b', 'Left');
  await window.shows((l) => !text(l).includes('Done') && /^\s+lead\s*│/m.test(text(l)), 'Done cleared once seen');
  expect((await home.rpc('surface.status', { surface_id: ids.lead })).unread).toBe(false);
});

/** The pane titles in a screen's header rows: `─ <id> <name>`. */
const titles = (lines: string[]) => [...text(lines).matchAll(/─ (\d+) ([^\s─]+)/g)].map((m) => Number(m[1]));
const workspaceOf = async (name: string) => (await home.rpc('workspace.list', {})).workspaces.find((w) => w.name === name)!;

test('split, focus moves, zoom, next workspace, close with the confirmation, detach and attach again to the same screen', async () => {
  const ids = await workspace('layout', [{ name: 'one', command: SHELL, focus: true }]);
  await workspace('other', [{ name: 'elsewhere', command: SHELL }]);
  const window = attach('layout');
  await window.shows((l) => titles(l).length === 1, 'one pane');

  window.keys('C-b', '%');
  const two = await window.shows((l) => titles(l).length === 2, 'split right');
  const right = titles(two).find((id) => id !== ids.one)!;
  expect((await workspaceOf('layout')).focus).toBe(right);
  window.keys('C-b', '"');
  await window.shows((l) => titles(l).length === 3, 'split below');
  const below = (await workspaceOf('layout')).focus!;
  window.keys('C-b', 'Up');
  await until(async () => (await focusOf('layout')) === right || null, 'focus up');
  window.keys('C-b', 'Left');
  await until(async () => (await focusOf('layout')) === ids.one || null, 'focus left');
  await window.shows((l) => l.at(-1)!.includes(`▸ ${ids.one} one `), 'the focused pane in the status line');

  window.keys('C-b', 'z');
  await window.shows((l) => JSON.stringify(titles(l)) === JSON.stringify([ids.one]), 'zoomed');
  window.keys('C-b', 'z');
  await window.shows((l) => titles(l).length === 3, 'unzoomed');

  window.keys('C-b', 'n');
  await until(async () => ((await workspaceOf('other')).active ? true : null), 'the next workspace');
  await window.shows((l) => text(l).includes('elsewhere'), 'its pane');
  window.keys('C-b', 'p');
  await until(async () => ((await workspaceOf('layout')).active ? true : null), 'back');

  // A pane whose agent is working asks first; n keeps it, y closes it.
  await home.rpc('surface.focus', { surface_id: below });
  // Keys go to the pane attach has in focus: once serve's event has reached it, not before.
  await window.shows((l) => l.at(-1)!.includes(`▸ ${below} `), 'the focus moved by serve, in the status line');
  // A login shell's profile may reset PATH: the fixture agent by its full path, named claude.
  window.type(`exec ${home.dir}/bin/claude --work-ms 60000`);
  window.keys('Enter');
  await until(async () => ((await home.rpc('surface.status', { surface_id: below })).tool === 'claude' ? true : null), 'the agent identified');
  window.type('a long task');
  window.keys('Enter');
  await until(async () => ((await home.rpc('surface.status', { surface_id: below })).state === 'thinking' ? true : null), 'working');
  window.keys('C-b', 'x');
  await window.shows((l) => /Close .*its agent is thinking/.test(text(l)), 'the question');
  window.type('n');
  await window.shows((l) => !text(l).includes('its agent is thinking'), 'kept');
  expect(titles(window.capture())).toContain(below);
  window.keys('C-b', 'x');
  await window.shows((l) => text(l).includes('its agent is thinking'), 'asked again');
  window.type('y');
  await window.shows((l) => titles(l).length === 2, 'closed');
  // A shell closes without a question.
  await home.rpc('surface.focus', { surface_id: right });
  window.keys('C-b', 'x');
  await window.shows((l) => titles(l).length === 1, 'the shell closed');

  window.type('echo still-$((2+3))');
  window.keys('Enter');
  const before = await window.shows((l) => text(l).includes('still-5'), 'output');
  window.keys('C-b', 'd');
  await until(() => window.dead || null, 'detached');
  expect((await home.rpc('surface.status', { surface_id: ids.one })).session).toBeTruthy();
  const again = attach('layout');
  await again.shows((l) => text(l).includes('still-5'), 'the same screen');
  const visible = (lines: string[]) => lines.slice(0, 5).map((l) => l.trimEnd());
  expect(visible(again.capture())).toEqual(visible(before));
});

/** A capture with its escapes, read into a terminal, so that cells compare with cells. */
async function cellsOf(lines: string[], cols: number, rows: number) {
  const term = new Terminal({ cols, rows, allowProposedApi: true });
  term.loadAddon(new Unicode11Addon());
  term.unicode.activeVersion = '11';
  await new Promise<void>((resolve) => term.write(lines.join('\r\n'), resolve));
  const buffer = term.buffer.active;
  const cell = (x: number, y: number) => {
    const c = buffer.getLine(y)?.getCell(x);
    if (!c) return null;
    const flags = [c.isBold(), c.isDim(), c.isItalic(), c.isUnderline(), c.isInverse(), c.isStrikethrough()].map((on) => (on ? 1 : 0)).join('');
    return `${c.getChars() || ' '}|${c.getWidth()}|${c.getFgColorMode()}:${c.getFgColor()}|${c.getBgColorMode()}:${c.getBgColor()}|${flags}`;
  };
  return { cell, dispose: () => term.dispose() };
}

/**
 * `argv` in a zoomed pane of `paneflow attach`, and in tmux itself at the pane's size: once both
 * show the same text, every cell must be the same (character, width, colours, attributes).
 */
async function sameAsTmux(name: string, argv: string[], ready: string): Promise<string[]> {
  const cols = 120;
  const rows = 32;
  await workspace(name, [{ name, command: argv.map((a) => `'${a}'`).join(' '), focus: true }]);
  const window = attach(name, cols, rows);
  await window.shows((l) => text(l).includes(ready), `${name} through attach`);
  window.keys('C-b', 'z');
  // Zoomed, the pane's terminal is the screen right of the sidebar and under its title row.
  const left = 27;
  const width = cols - left;
  const height = rows - 2;
  const direct = tmux.window(argv, { env: home.env, dir: home.dir, cols: width, rows: height });
  await direct.shows((l) => text(l).includes(ready), `${name} in tmux`);
  let last = { through: [] as string[], itself: [] as string[] };
  await until(() => {
    last = { through: window.capture().slice(1, 1 + height).map((l) => [...l].slice(left).join('').trimEnd()), itself: direct.capture().map((l) => l.trimEnd()).slice(0, height) };
    return JSON.stringify(last.through) === JSON.stringify(last.itself) || null;
  }, `${name}: the same text`).catch((error: Error) => {
    throw new Error(`${error.message}\nthrough attach:\n${last.through.join('\n')}\nin tmux:\n${last.itself.join('\n')}`);
  });
  const through = await cellsOf(window.capture(true), cols, rows);
  const itself = await cellsOf(direct.capture(true), width, height);
  const differences: string[] = [];
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) if (through.cell(left + x, y + 1) !== itself.cell(x, y)) differences.push(`(${x},${y}) ${through.cell(left + x, y + 1)} ≠ ${itself.cell(x, y)}`);
  through.dispose();
  itself.dispose();
  return differences;
}

test('a program looks cell for cell as it does in tmux itself: colours, attributes, wide and combining characters, box drawing, cursor moves', async () => {
  expect(await sameAsTmux('drawing', [`${ROOT}/fixtures/draw.sh`], 'at 10,20')).toEqual([]);
});

test('a full-screen program (less, on the alternate screen) looks cell for cell as it does in tmux itself', async () => {
  // A fixed prompt: less's own names the file only until its first repaint, and a resize repaints it,
  // so which of the two showed the name hung on whether its pane was resized before less drew.
  expect(await sameAsTmux('pager', ['less', '-R', '-Pspager', `${ROOT}/libs/screen/README.md`], '# @paneflow/screen')).toEqual([]);
});

test('a pane full of long lines narrowed: what comes next starts a line of its own, in the view and in what the host keeps', async () => {
  // Once attached (so that the mirror parses them all): more rows than the mirror keeps
  // (MIRROR_SCROLLBACK) and the host's terminal keeps, each 181 columns in a pane 193 wide; then
  // `cat`, which draws nothing again when its pane is resized.
  const lines = `awk 'BEGIN { w = sprintf("%170s", ""); gsub(/ /, "w", w); for (i = 1; i <= 10100; i++) printf "row-%05d %s\\n", i, w }'`;
  const ids = await workspace('reflow', [{ name: 'wide', command: `echo go on; read -r _; ${lines}; exec cat`, focus: true }]);
  const window = attach('reflow', 220, 20);
  await window.shows((l) => text(l).includes('go on'), 'the pane waiting');
  window.keys('Enter');
  await window.shows((l) => text(l).includes('row-10100'), 'the last line', scaled(30_000));
  // So narrow a window shows no sidebar: the pane's lines reflowed from 193 columns to 45 (a width
  // at which xterm.js overflowing its buffer leaves the cursor's row a copy of the line above).
  window.resize(45, 20);
  await window.shows((l) => l.some((row) => row.startsWith('row-10100 ')) && l.some((row) => row.startsWith(`─ ${ids.wide} wide`)), 'the last line reflowed');
  window.type('next');
  const shown = await window.shows((l) => text(l).includes('next'), 'the typed line');
  expect(shown.find((row) => row.includes('next'))!.trimEnd()).toBe('next');
  const kept = await home.rpc('surface.read', { surface_id: ids.wide, lines: 2, fenced: false, scope: 'all' });
  expect(kept.text.split('\n')).toEqual([`row-10100 ${'w'.repeat(170)}`, 'next']);
});

test('the outer window sets the pane size; two clients see the same panes; the one in use sets the size; killing a client leaves the sessions', async () => {
  const ids = await workspace('sizes', [{ name: 'sized', command: SHELL, focus: true }]);
  const one = attach('sizes', 100, 30);
  await one.shows((l) => text(l).includes('ready$'), 'the prompt');
  one.type('stty size');
  one.keys('Enter');
  // 100 columns less the sidebar (27), 30 rows less the title row and the status line.
  await one.shows((l) => /28 73/.test(text(l)), 'stty in the first client');
  one.resize(110, 34);
  await sizeSaid(one, '32 83', 'stty after the window grew');

  const two = attach('sizes', 90, 26);
  await two.shows((l) => /32 83/.test(text(l)), 'the second client shows the same pane');
  // Typing makes the second client the one in use: its size now, and the first follows.
  await sizeSaid(two, '24 63', 'the size of the client in use');
  await one.shows((l) => /24 63/.test(text(l)), 'the first client sees the same output');

  process.kill(two.pid, 'SIGKILL');
  await until(() => two.dead || null, 'the second client gone');
  one.type('echo alive-$((1+1))');
  one.keys('Enter');
  await one.shows((l) => text(l).includes('alive-2'), 'the session goes on');
  expect((await home.rpc('session.list', {})).sessions.find((s) => s.surface_id === ids.sized)?.live).toBe(true);
});

test('paneflow with no verb, in a terminal with no desktop, attaches to the demo workspace', async () => {
  const env = { ...home.env };
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  const window = tmux.window([process.execPath, CLI], { env, dir: home.dir, cols: 120, rows: 32 });
  const lines = await window.shows((l) => /▸ \d+ demo/.test(text(l)) && text(l).includes('demo-agent'), 'the demo, attached');
  expect(text(lines)).toMatch(/─ \d+ demo-agent/);
  window.keys('C-b', 'd');
  await until(() => window.dead || null, 'detached');
  // The demo's agent would go on to ask for approval, out of view of the tests that follow: a bell of its own.
  await home.rpc('workspace.close', { workspace_id: (await workspaceOf('demo')).id });
});

/** Reported as a skipped test, which .ci/run counts as failed. */
const sshSkip = sshdUnavailable();

(sshSkip ? test.skip : test)(`works through ssh -t: paneflow attach on the far side of an SSH connection${sshSkip ? ` (skipped: ${sshSkip})` : ''}`, async () => {
  const sshd = await startSshd(home.dir);
  try {
    const ids = await workspace('remote', [{ name: 'far', command: SHELL, focus: true }]);
    const exports = ['HOME', 'PANEFLOW_HOME', 'XDG_RUNTIME_DIR', 'PANEFLOW_CONFIG', 'PATH'].map((k) => `${k}='${home.env[k]}'`).join(' ');
    const remote = `env ${exports} ${process.execPath} ${CLI} attach remote`;
    const window = tmux.window(sshd.ssh('root', remote, ['-t']), { env: home.env, dir: home.dir, cols: 110, rows: 30 });
    await window.shows((l) => text(l).includes('ready$') && /▸ \d+ remote/.test(text(l)), 'attached over ssh');
    window.type('echo over-ssh-$((3*3))');
    window.keys('Enter');
    await window.shows((l) => text(l).includes('over-ssh-9'), 'typing over ssh');
    // Losing the connection (sshd gone, with the session it ran) leaves the pane's session running.
    sshd.stop();
    await until(() => window.dead || null, 'the ssh client gone');
    expect((await home.rpc('session.list', {})).sessions.find((s) => s.surface_id === ids.far)?.live).toBe(true);
  } finally {
    sshd.stop();
  }
});

test('scrollback mode finds a line far up; a click focuses a pane; the wheel scrolls one that does not take the mouse', async () => {
  const ids = await workspace('reading', [
    { name: 'left', command: `seq 1 500; ${SHELL}`, focus: true },
    { name: 'right', command: SHELL },
  ]);
  const window = attach('reading', 120, 32);
  await window.shows((l) => /^.*│500\s*│/m.test(text(l)) || text(l).includes('500'), 'the numbers');
  window.keys('C-b', '[');
  await window.shows((l) => text(l).includes('SCROLL'), 'scrollback mode');
  window.type('/');
  window.type('123');
  window.keys('Enter');
  await window.shows((l) => l.some((line) => /│123\s/.test(line)) && /\[-\d+\]/.test(text(l)), 'line 123 in view');
  window.type('q');
  await window.shows((l) => !text(l).includes('SCROLL') && !/\[-\d+\]/.test(text(l)), 'back at the bottom');

  // An SGR mouse press in the right pane, as a terminal sends it (1-based column and row).
  window.type('\x1b[<0;100;10M\x1b[<0;100;10m');
  await until(async () => (await focusOf('reading')) === ids.right || null, 'the click focused the right pane');
  window.type('\x1b[<64;40;10M');
  await window.shows((l) => /─ \d+ left \[-3\]/.test(text(l)), 'the wheel scrolled the left pane');
});

test('scrolled past the 10,000 rows it keeps, a pane shows the host’s deeper history, and follows the output again at the bottom', async () => {
  await workspace('deep', [{ name: 'long', command: `seq 1 30000; ${SHELL}`, focus: true }]);
  const window = attach('deep');
  await window.shows((l) => text(l).includes('ready$'), 'the prompt after the numbers');
  // Scrollback mode, and to the top: past the mirror's 10,000 rows (line 20,000 or so) to the
  // first line the host kept. (The status line that names the mode is cut short here by the
  // workspaces of the tests before.)
  window.keys('C-b', '[');
  window.type('g');
  // First at the mirror's own top ([-10000]), then, once the history is read, at the host's.
  const top = await window.shows((l) => Number(/\[-(\d+)\]/.exec(text(l))?.[1]) > 29_000, 'the view past 29,000 lines back');
  expect(top.filter((line) => /│[12]\s/.test(line))).toHaveLength(2); // lines 1 and 2, the first the host kept
  // Down a page and back by search, within the history.
  window.keys('PageDown');
  await window.shows((l) => l.some((line) => /│40\s/.test(line)) && !l.some((line) => /│1\s/.test(line)), 'the next page of the history');
  window.type('/');
  window.type('12');
  window.keys('Enter');
  await window.shows((l) => l.some((line) => /│12\s/.test(line)), 'line 12 found in the history');
  window.type('G');
  await window.shows((l) => !/\[-\d+\]/.test(text(l)) && text(l).includes('ready$'), 'back at the bottom');
  window.type('q');
  window.type('echo live-$((6*7))');
  window.keys('Enter');
  await window.shows((l) => text(l).includes('live-42'), 'the live output');
  // A search begun in the live view that the mirror cannot answer reads the host's history for it.
  window.keys('C-b', '[');
  window.type('/');
  window.type('15000');
  window.keys('Enter');
  await window.shows((l) => l.some((line) => /│15000\s/.test(line)), 'line 15000, only the host keeps it, found in the history');
  window.type('q');
});

/** `paneflow attach` in a window whose output bytes are also kept: what the outer terminal was told. */
function attachRecorded(workspace: string, env: NodeJS.ProcessEnv = home.env, rows = 32) {
  const window = tmux.window([process.execPath, CLI, 'attach', workspace], { env, dir: home.dir, cols: 120, rows });
  const file = join(home.dir, `written-${workspace}`);
  writeFileSync(file, '');
  window.pipe(file);
  return { window, written: () => readFileSync(file, 'latin1') };
}

/** The last cursor shape (DECSCUSR parameter) in bytes written to a terminal. */
// eslint-disable-next-line no-control-regex -- DECSCUSR starts with ESC
const lastCursorStyle = (bytes: string) => [...bytes.matchAll(/\x1b\[(\d*) q/g)].at(-1)?.[1] ?? null;

test("the focused pane's cursor shape and blinking reach the outer terminal (DECSCUSR), and follow the focus", async () => {
  const ids = await workspace('cursor', [
    { name: 'shaped', command: SHELL, focus: true },
    { name: 'plain', command: SHELL },
  ]);
  const { window, written } = attachRecorded('cursor');
  await window.shows((l) => text(l).includes('ready$'), 'the prompt');
  window.type("printf '\\e[6 q'");
  window.keys('Enter');
  await until(() => lastCursorStyle(written()) === '6' || null, 'a steady bar');
  window.type("printf '\\e[3 q'");
  window.keys('Enter');
  await until(() => lastCursorStyle(written()) === '3' || null, 'a blinking underline');
  // The other pane never set a shape: a steady block while it has the focus.
  window.keys('C-b', 'Right');
  await until(async () => (await focusOf('cursor')) === ids.plain || null, 'focus on the plain pane');
  await until(() => lastCursorStyle(written()) === '2' || null, 'a steady block');
  window.keys('C-b', 'Left');
  await until(() => lastCursorStyle(written()) === '3' || null, "the shaped pane's cursor again");
});

test('an agent out of view that starts waiting rings the bell and, where the terminal shows them, sends OSC 9', async () => {
  const away = await workspace('away', [{ name: 'waiter', command: 'claude --work-ms 100' }]);
  await workspace('quiet', [{ name: 'here', command: SHELL, focus: true }]);
  // The outer terminal's environment says it shows OSC 9 notifications.
  const { window, written } = attachRecorded('quiet', { ...home.env, TERM_PROGRAM: 'WezTerm' });
  await window.shows((l) => /^\s+waiter\s*│/m.test(text(l)) && text(l).includes('ready$'), 'the agent row');
  // Nothing has rung yet; if something has, what was written says whose wait it was.
  expect([window.format('#{window_bell_flag}'), written().split('\x1b]9;').slice(1)]).toEqual(['0', []]);
  expect(home.run(['send', 'waiter', 'ship it permission', '--submit', '--scope', 'all']).code).toBe(0);
  await until(() => written().includes('\x07\x1b]9;Needs input: waiter in away: approve Bash: ship it permission\x07') || null, 'the bell and the notification');
  // The terminal's notification cannot be clicked: the status line names the key that goes there.
  await window.shows((l) => text(l).includes('Needs input: waiter in away · C-b a goes there'), 'the note');
  await until(() => window.format('#{window_bell_flag}') === '1' || null, "tmux's bell flag");
  // A waiting agent left behind would take a place at the top of every later test's sidebar.
  await home.rpc('surface.close', { surface_id: away.waiter });
});

test('attach.notifications false: no bell and no notification', async () => {
  home.writeConfig({ attach: { notifications: false } });
  try {
    await until(async () => (await home.rpc('serve.status', {})).presentation.attach.notifications === false || null, 'serve read the config');
    const away = await workspace('away-muted', [{ name: 'muted', command: 'claude --work-ms 100' }]);
    await workspace('quiet-muted', [{ name: 'muted-here', command: SHELL, focus: true }]);
    const { window, written } = attachRecorded('quiet-muted', { ...home.env, TERM_PROGRAM: 'WezTerm' });
    await window.shows((l) => /^\s+muted\s*│/m.test(text(l)), 'the agent row');
    expect(home.run(['send', 'muted', 'ship it permission', '--submit', '--scope', 'all']).code).toBe(0);
    await window.shows((l) => /● muted\s+Need you/.test(text(l)), 'Need you');
    // Serve sends the notification right after the status, on the same stream: once a later event
    // is drawn, the notification would have been written before it.
    await home.rpc('workspace.create', { name: 'after-the-notice', cwd: home.dir });
    await until(() => written().includes('after-the-notice') || null, 'a later event drawn');
    expect(written()).not.toContain('\x07');
    expect(written()).not.toContain('\x1b]9;');
    expect(window.format('#{window_bell_flag}')).toBe('0');
    await home.rpc('surface.close', { surface_id: away.muted });
  } finally {
    home.writeConfig({});
  }
});

test('prefix ? shows the keys until a key is pressed, c opens a new workspace, a digit selects a workspace by number', async () => {
  await workspace('keys', [{ name: 'keys-sh', command: SHELL, focus: true }]);
  const window = attach('keys');
  await window.shows((l) => text(l).includes('ready$'), 'the prompt');
  window.keys('C-b', '?');
  await window.shows((l) => text(l).includes('prefix, then:'), 'the help');
  window.type('q');
  await window.shows((l) => !text(l).includes('prefix, then:'), 'the help closed');
  // The key that closed the help went nowhere else.
  window.type('echo after-$((2*4))');
  window.keys('Enter');
  await window.shows((l) => text(l).includes('after-8') && !text(l).includes('qecho'), 'the shell took only what came after');

  const before = (await home.rpc('workspace.list', {})).workspaces.length;
  window.keys('C-b', 'c');
  const created = await until(async () => {
    const { workspaces } = await home.rpc('workspace.list', {});
    return workspaces.length === before + 1 ? workspaces.find((w) => w.active && w.name !== 'keys') : null;
  }, 'a new active workspace');
  await window.shows((l) => text(l).includes(`▸ ${created.index} ${created.name}`), 'the new workspace in the sidebar');

  window.keys('C-b', '0');
  await until(async () => (await home.rpc('workspace.list', {})).workspaces.find((w) => w.index === 0)?.active || null, 'workspace 0 selected');
  await window.shows((l) => /▸ 0 /.test(text(l)), 'workspace 0 marked');
});

test('a box over the panes (the keys, a question) stays whole while a pane under it prints', async () => {
  const ids = await workspace('boxed', [{ name: 'ticker', command: 'i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.05; done', focus: true }]);
  const window = attach('boxed');
  await window.shows((l) => text(l).includes('tick-5'), 'the pane printing');
  window.keys('C-b', '?');
  await window.shows((l) => text(l).includes('prefix, then:') && text(l).includes('next agent that needs you'), 'the help');
  // Twenty more lines under it, each a frame of the pane's output.
  const printed = async () => Number(/tick-(\d+)\s*$/.exec((await home.rpc('surface.read', { surface_id: ids.ticker, lines: 3, fenced: false, scope: 'all' })).text.trim())?.[1] ?? 0);
  const from = await printed();
  await until(async () => ((await printed()) >= from + 20 ? true : null), 'twenty more lines printed');
  await window.shows((l) => text(l).includes('prefix, then:') && text(l).includes('next agent that needs you'), 'the help, whole');
  window.type('q');
  await window.shows((l) => !text(l).includes('prefix, then:'), 'the help closed');
});

test('closing a pane whose agent waits for you asks first, and so does closing its workspace (prefix &)', async () => {
  const ids = await workspace('waiting-close', [
    { name: 'asker', command: 'claude --work-ms 100', focus: true },
    { name: 'bystander', command: SHELL },
  ]);
  const window = attach('waiting-close');
  await window.shows((l) => titles(l).length === 2, 'both panes');
  expect(home.run(['send', 'asker', 'drop the table permission', '--submit', '--scope', 'all']).code).toBe(0);
  await until(async () => ((await home.rpc('surface.status', { surface_id: ids.asker })).state === 'waiting_for_input' ? true : null), 'waiting');
  window.keys('C-b', 'x');
  // Serve's reason, the same the desktop and `paneflow close` get.
  await window.shows((l) => text(l).includes(`Close asker? surface ${ids.asker} (asker): its agent is waiting_for_input.`), 'the question');
  window.type('y');
  await window.shows((l) => JSON.stringify(titles(l)) === JSON.stringify([ids.bystander]), 'closed');
  // A shell running a program asks too (serve reads its foreground); n keeps it.
  window.type('sleep 600');
  window.keys('Enter');
  await until(async () => ((await home.rpc('surface.list', { scope: 'all' })).surfaces.find((s) => s.surface_id === ids.bystander)?.cmd.startsWith('sleep') ? true : null), 'sleep in front');
  window.keys('C-b', 'x');
  await window.shows((l) => text(l).includes(`Close bystander? surface ${ids.bystander} (bystander):`), 'the question for the shell');
  window.type('n');
  await window.shows((l) => !text(l).includes('Close bystander?'), 'kept');
  expect((await home.rpc('surface.list', { scope: 'all' })).surfaces.map((s) => s.surface_id)).toContain(ids.bystander);
  // Prefix & closes the whole workspace by the same rule: asked, n keeps it, y closes it.
  window.keys('C-b', '&');
  await window.shows((l) => text(l).includes(`Close workspace waiting-close? surface ${ids.bystander} (bystander):`), 'the question for the workspace');
  window.type('n');
  await window.shows((l) => !text(l).includes('Close workspace'), 'the workspace kept');
  expect((await home.rpc('workspace.list', {})).workspaces.map((w) => w.name)).toContain('waiting-close');
  window.keys('C-b', '&');
  await window.shows((l) => text(l).includes('Close workspace waiting-close?'), 'asked again');
  window.type('y');
  await until(async () => !(await home.rpc('workspace.list', {})).workspaces.some((w) => w.name === 'waiting-close') || null, 'the workspace closed');
  await window.shows((l) => !text(l).includes('waiting-close'), 'gone from the sidebar');
});

test('a program that asked for mouse reports gets the click, in its own coordinates and encoding', async () => {
  const script = join(home.dir, 'mouse.mjs');
  writeFileSync(
    script,
    [
      'process.stdin.setRawMode(true);',
      "process.stdout.write('\\x1b[?1000h\\x1b[?1006hmouse on\\r\\n');",
      "process.stdin.on('data', (d) => process.stdout.write('got ' + d.toString().replace(/\\x1b/g, 'ESC') + '\\r\\n'));",
    ].join('\n'),
  );
  await workspace('mouse', [{ name: 'clicks', command: SHELL, focus: true }]);
  const first = attach('mouse');
  await first.shows((l) => text(l).includes('ready$'), 'the prompt');
  // Started once attached, so the mirror follows the program's mode requests as it parses them.
  first.type(`'${process.execPath}' '${script}'`);
  first.keys('Enter');
  await first.shows((l) => text(l).includes('mouse on'), 'the program');
  // The pane's terminal starts at column 28 and row 2 (1-based), right of the sidebar and under
  // the title row: a press and release at (32, 5) is (5, 4) to the program.
  first.type('\x1b[<0;32;5M\x1b[<0;32;5m');
  await first.shows((l) => text(l).includes('ESC[<0;5;4M') && text(l).includes('ESC[<0;5;4m'), 'the click, as the program asked for it');
  first.keys('C-b', 'd');
  await until(() => first.dead || null, 'detached');
  // Attached again, the mirror knows the modes only from the host's checkpoint (?1000, ?1006).
  const again = attach('mouse');
  await again.shows((l) => text(l).includes('ESC[<0;5;4m'), 'the pane again');
  again.type('\x1b[<0;33;6M');
  await again.shows((l) => text(l).includes('ESC[<0;6;5M'), 'a click after attaching again, still as the program asked');
  again.keys('C-b', 'd');
  await until(() => again.dead || null, 'detached again');
});

test('paneflow ps --watch redraws the table on an event', async () => {
  const window = tmux.window([process.execPath, CLI, 'ps', '--watch'], { env: home.env, dir: home.dir, cols: 160, rows: 60 });
  await window.shows((l) => text(l).includes('live: refreshed on every event'), 'the table');
  const ids = await workspace('watched', [{ name: 'watched-agent', command: 'claude --work-ms 100' }]);
  const row = (l: string[]) => l.filter((line) => line.startsWith(`${ids['watched-agent']} `));
  await window.shows((l) => row(l).length === 1 && / idle /.test(row(l)[0]), 'the new agent, idle');
  expect(home.run(['send', 'watched-agent', 'wait for me permission', '--submit', '--scope', 'all']).code).toBe(0);
  // Drawn again in place: still one row for the agent, now waiting.
  await window.shows((l) => row(l).length === 1 && row(l)[0].includes('waiting_for_input'), 'the agent, waiting');
  process.kill(window.pid, 'SIGINT');
  await until(() => window.dead || null, 'ps --watch ended');
  await home.rpc('surface.close', { surface_id: ids['watched-agent'] });
});

test('an agent pane whose agent exited says so and resumes its conversation with Enter; the pane then works', async () => {
  const ids = await workspace('resume', [{ name: 'comeback', command: 'claude --work-ms 100', focus: true }]);
  const { window, written } = attachRecorded('resume');
  // The agent's prompt is "> " at the start of a pane line; capture-pane drops its trailing blank.
  const started = await window.shows((l) => /conversation [0-9a-f-]{36}/.test(text(l)) && l.some((line) => /│>\s*$/.test(line)), 'the agent');
  const id = /conversation ([0-9a-f-]{36})/.exec(text(started))![1];
  window.type('remember the plan');
  window.keys('Enter');
  await window.shows((l) => text(l).includes('done: remember the plan'), 'a turn');
  // The host reads the conversation's id from the agent's session files as it scans: resumed by id.
  await until(async () => (await home.rpc('surface.status', { surface_id: ids.comeback })).provider_session_id === id || null, 'the id known');
  window.type('exit');
  window.keys('Enter');
  const ended = await window.shows((l) => text(l).includes(' exited — Enter resumes '), 'the banner');
  expect(text(ended)).toMatch(/↺ comeback\s+Exited/);

  window.keys('Enter');
  // The outcome is a passing note (3 s), written once serve has confirmed the resume.
  await window.shows((l) => l.at(-1)!.includes(`comeback: resumed conversation ${id}`), 'the outcome in the status line');
  const back = await window.shows((l) => text(l).includes('❯ remember the plan') && text(l).includes(`conversation ${id}`), 'the conversation again');
  expect(text(back)).not.toContain('Enter resumes');
  expect((await home.rpc('surface.status', { surface_id: ids.comeback })).lifecycle).toBe('live');
  window.type('after the resume');
  window.keys('Enter');
  await window.shows((l) => text(l).includes('done: after the resume'), 'the resumed agent answers');
  // The mirror followed the new generation at once, never drawing the pane as lost on the way.
  await until(() => written().includes('done: after the resume') || null, 'the answer written');
  expect(written()).not.toContain('reattaching');
});

test('a hook title and a declared message reach the outer terminal only as visible text: no clipboard, title or clear; OSC 9 without the bidi override', async () => {
  const agentPane = { cwd: home.dir, command: 'claude --work-ms 100', focus: true, env: {} };
  const away = await home.rpc('workspace.up', { name: 'esc-away', layout: 'even_h', panes: [agentPane] });
  const here = await home.rpc('workspace.up', { name: 'esc-here', layout: 'even_h', panes: [agentPane] });
  const titled = here.surfaces[0].surface_id;
  const { window } = attachRecorded('esc-here', { ...home.env, TERM_PROGRAM: 'WezTerm' });
  const bytes = () => readFileSync(join(home.dir, 'written-esc-here'), 'utf8');
  await window.shows((l) => /^\s+Claude Code\s*│/m.test(text(l)), 'the agent rows');
  const paneTitle = window.format('#{pane_title}');
  const agent = await until(async () => {
    const s = await home.rpc('surface.status', { surface_id: titled });
    return s.tool === 'claude' && s.pid !== null ? s : null;
  }, 'the fixture agent');
  // A clipboard write (OSC 52), a title (OSC 0), a screen clear, a CR, a C1 CSI and a right-to-left override.
  const prompt = 'a\x1b]52;c;cHduZWQ=\x07b\x1b]0;pwned\x07c\x1b[2J\rd\u009b2Je\u202ef';
  const frame = { tool: 'claude', session: agent.session, surface_id: titled, workspace_id: here.workspace.id, pid: agent.pid!, emitted_at_ms: Date.now(), payload: { prompt } };
  expect(await home.rpc('ai.prompt_submit', frame)).toEqual({ accepted: true });
  await window.shows((l) => text(l).includes(`${titled} a^[]52;c;cHduZWQ=^Gb^[]0;pwned^Gc^[[2J d\ufffd2Jef`), 'the title row, escaped');
  expect(home.run(['send', String(away.surfaces[0].surface_id), 'ship \u202e it permission', '--submit', '--scope', 'all']).code).toBe(0);
  await until(() => bytes().includes('\x07\x1b]9;Needs input: Claude Code in esc-away: approve Bash: ship  it permission\x07') || null, 'the notification, the override removed');
  const written = bytes().replaceAll('\x07\x1b]9;Needs input: Claude Code in esc-away: approve Bash: ship  it permission\x07', '');
  // (The client clears the screen itself when it starts; what the title held shows as ^[[2J above.)
  for (const unsafe of ['\x1b]52', '\x1b]0;', '\u009b', '\u202e', 'pwned\x07']) expect(written).not.toContain(unsafe);
  expect(window.format('#{pane_title}')).toBe(paneTitle);
  for (const s of [away, here]) await home.rpc('surface.close', { surface_id: s.surfaces[0].surface_id });
});

test("an agent's running subagents are counted under its sidebar row, and the line goes when they stop", async () => {
  const up = await home.rpc('workspace.up', { name: 'helpers', layout: 'even_h', panes: [{ name: 'chief', cwd: home.dir, command: 'claude --work-ms 60000', focus: true, env: {} }] });
  const chief = up.surfaces[0].surface_id;
  // Tall enough for the sidebar's agents below every workspace the file's tests made.
  const window = attach('helpers', 120, 50);
  await window.shows((l) => /^\s+chief\s*│/m.test(text(l)), 'the agent row');
  const agent = await until(async () => {
    const s = await home.rpc('surface.status', { surface_id: chief });
    return s.state === 'idle' && s.pid !== null ? s : null;
  }, 'the agent idle');
  expect(home.run(['send', 'chief', 'a long task', '--submit', '--scope', 'all']).code).toBe(0);
  // What paneflow-ai-hook sends for Claude Code's SubagentStart and SubagentStop.
  const subagent = (agent_id: string, phase: 'start' | 'stop') =>
    home.rpc('ai.subagent', { tool: 'claude', session: agent.session, surface_id: chief, workspace_id: up.workspace.id, pid: agent.pid!, emitted_at_ms: Date.now(), payload: { agent_id, phase } });
  try {
    await subagent('explore-1', 'start');
    await subagent('plan-2', 'start');
    await window.shows((l) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏●] chief\s*│[\s\S]*\n {3}2 subagents\s*│/.test(text(l)), 'the count under the row');
    await subagent('explore-1', 'stop');
    await window.shows((l) => /chief\s*│.*\n {3}1 subagent\s*│/.test(text(l)), 'one left');
    await subagent('plan-2', 'stop');
    await window.shows((l) => !text(l).includes('subagent'), 'none left, no line');
  } finally {
    home.run(['key', 'chief', 'ctrl-c', '--scope', 'all']);
    await home.rpc('surface.close', { surface_id: chief });
  }
});

test('the config applies live while attached: reduce_motion stops the spinner and starts it again, notifications go off and on, the prefix key changes', async () => {
  const here = await workspace('live', [
    { name: 'mover', command: 'claude --work-ms 60000' },
    { name: 'live-sh', command: SHELL, focus: true },
  ]);
  // Two agents to wait: serve sends one notice a second per session and kind, whatever attach does.
  const away = await workspace('live-away', [
    { name: 'pinger', command: 'claude --work-ms 100' },
    { name: 'ponger', command: 'claude --work-ms 100' },
  ]);
  // Tall enough for the sidebar's agents below every workspace the file's tests made.
  const { window, written } = attachRecorded('live', { ...home.env, TERM_PROGRAM: 'WezTerm' }, 50);
  await window.shows((l) => /^\s+mover\s*│/m.test(text(l)) && /^\s+ponger\s*│/m.test(text(l)) && text(l).includes('ready$'), 'the agent rows');
  /** Waits until serve has read the config and says so to its subscribers, attach among them. */
  const configure = async (config: unknown, read: (p: { reduce_motion: boolean; attach: { prefix: string; notifications: boolean } }) => boolean) => {
    home.writeConfig(config);
    await until(async () => read((await home.rpc('serve.status', {})).presentation) || null, 'serve read the config');
  };
  try {
    expect(home.run(['send', 'mover', 'a long task', '--submit', '--scope', 'all']).code).toBe(0);
    await window.shows((l) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] mover/.test(text(l)), 'a spinner');
    await configure({ reduce_motion: true }, (p) => p.reduce_motion);
    await window.shows((l) => /● mover/.test(text(l)), 'a static mark, in the same client');
    await configure({}, (p) => !p.reduce_motion);
    await window.shows((l) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] mover/.test(text(l)), 'the spinner again');

    // Notifications off: an agent out of view that starts waiting rings nothing.
    await configure({ attach: { notifications: false } }, (p) => !p.attach.notifications);
    const quiet = written().length;
    expect(home.run(['send', 'pinger', 'ship it permission', '--submit', '--scope', 'all']).code).toBe(0);
    await window.shows((l) => /● pinger\s+Need you/.test(text(l)), 'Need you');
    // Serve sends the notification right after the status, on the same stream: once a later event
    // is drawn, the notification would have been written before it.
    await home.rpc('surface.rename', { surface_id: here['live-sh'], name: 'after-the-live-notice' });
    await until(() => written().includes('after-the-live-notice') || null, 'a later event drawn');
    expect(written().slice(quiet)).not.toContain('\x07');
    // And on again: the next wait rings.
    await configure({}, (p) => p.attach.notifications);
    expect(home.run(['send', 'ponger', 'ship again permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(() => written().includes('\x07\x1b]9;Needs input: ponger in live-away: approve Bash: ship again permission\x07') || null, 'the bell and the notification');

    // The prefix key opens the help once attach has the config: the same event brings
    // reduce_motion's static mark, which shows it came.
    await configure({ reduce_motion: true, attach: { prefix: 'ctrl-a' } }, (p) => p.attach.prefix === 'ctrl-a');
    await window.shows((l) => /● mover/.test(text(l)), 'the config in the client');
    window.keys('C-a', '?');
    await window.shows((l) => text(l).includes('prefix, then:'), 'the help, by the new prefix');
    window.type('q');
    await window.shows((l) => !text(l).includes('prefix, then:'), 'the help closed');
  } finally {
    home.writeConfig({});
    home.run(['key', 'mover', 'ctrl-c', '--scope', 'all']);
    for (const id of [...Object.values(here), ...Object.values(away)]) await home.rpc('surface.close', { surface_id: id });
  }
});
