import { connectHost, resolveEndpoints } from '@paneflow/instance';
import { makeHome, runsExactly, scaled, until, type Home } from '@paneflow/testing';
import { SPINNER_TICK_MS } from '@paneflow/view';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { dragScrollbar, openDesktop, screenRows, shot as shotOf, type Harness } from './harness';

let home: Home;
let desktop: Harness;
let page: Page;

const pane = (name: string, command: string) => ({ name, command, cwd: home.dir, focus: false, env: {} });

/** The mark of an agent's row in the sidebar, as drawn. */
const rowMark = (surface: number) => page.locator(`.agent[data-surface="${surface}"]`).getAttribute('data-mark', { timeout: 2000 }).catch(() => null);
const paneText = (surface: number) => page.evaluate((id) => window.paneflowApp.paneText(id), surface);

const shot = (name: string) => shotOf(page, name);

beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  expect(home.run(['start']).code).toBe(0);
  desktop = await openDesktop(home.env);
  page = desktop.page;
}, scaled(60_000));
afterEach(() => {
  // A renderer exception or a lost push fails the test it happened in.
  expect(desktop.errors.splice(0)).toEqual([]);
});
afterAll(async () => {
  await desktop?.close();
  home.cleanup();
});

describe('the renderer against a real instance', () => {
  const SH = 'PS1="ready$ " exec bash --norc --noprofile -i';

  /** A workspace of the test's own, `name`, in front: one shell at its prompt, the keyboard in it. */
  const openShell = async (name: string) => {
    const up = await home.rpc('workspace.up', { name, layout: 'even_h', panes: [pane(`${name}-sh`, SH)] });
    const shell = up.surfaces[0].surface_id;
    await page.locator('.tab', { hasText: name }).click();
    await until(async () => (await paneText(shell)).includes('ready$'), 'the prompt in the mirror');
    await page.locator(`.pane[data-surface="${shell}"] .term-host`).click();
    return shell;
  };

  // A workspace to bring in front, so that a test's own is not.
  beforeAll(async () => {
    await home.rpc('workspace.up', { name: 'shells', layout: 'even_h', panes: [pane('sh', SH)] });
  });

  test('a pane shows the shell’s real output and takes typed input', async () => {
    const shell = await openShell('typed');
    await page.keyboard.type('echo typed-$((6*7))');
    await page.keyboard.press('Enter');
    await until(async () => /^typed-42$/m.test(await paneText(shell)), 'the typed command’s output in the mirror');
    // The host has it too: the keys went to the real PTY.
    expect((await home.rpc('surface.read', { surface_id: shell, fenced: false })).text).toMatch(/^typed-42$/m);
    await shot('shell');
  });

  test('the mirror swallows the queries it sees: a program gets one answer to each, the host’s', async () => {
    const shell = await openShell('queries');
    const script = join(home.dir, 'queries.mjs');
    writeFileSync(
      script,
      [
        'process.stdin.setRawMode(true);',
        "let got = '';",
        "process.stdin.on('data', (d) => {",
        '  got += d.toString();',
        "  process.stdout.write('got ' + got.replace(/\\x1b/g, 'ESC') + '\\r\\n');",
        "  if (got.includes('z')) process.exit(0);",
        '});',
        // Device attributes and a cursor report: the host's terminal answers both.
        "process.stdout.write('\\x1b[c\\x1b[6nqueries-sent\\r\\n');",
      ].join('\n'),
    );
    await page.keyboard.type(`'${process.execPath}' '${script}'`);
    await page.keyboard.press('Enter');
    // Once the mirror shows the line after the queries, it has parsed them; an answer of its own
    // would already be on its way, ahead of the key typed next on the same path.
    await until(async () => (await paneText(shell)).includes('queries-sent'), 'the queries in the mirror');
    await page.keyboard.type('z');
    const text = await until(async () => {
      const { text } = await home.rpc('surface.read', { surface_id: shell, fenced: false });
      return /^got .*z$/m.test(text) ? text : null;
    }, 'the program’s last read');
    const answers = [...text.matchAll(/^got (.*)$/gm)].at(-1)![1];
    expect(answers).toMatch(/^ESC\[\?[\d;]*cESC\[\d+;\d+Rz$/);
  });

  test('a program’s declared status shows in its pane header', async () => {
    const shell = await openShell('declares');
    await page.keyboard.type(`printf '\\033]7501;state=blocked:kind=permission:app=deploy:msg=QXBwbHk/\\033\\\\'`);
    await page.keyboard.press('Enter');
    const header = page.locator(`.pane[data-surface="${shell}"] header .declared`);
    await until(async () => (await header.textContent()) === 'blocked: permission · Apply?', 'the declared status in the header');
    await shot('pane-header');
  });

  test('Ctrl+Shift+F searches the scrollback and selects the match; Ctrl+Shift+C copies it, Ctrl+Shift+V pastes it', async () => {
    const shell = await openShell('finding');
    await page.keyboard.type('echo found-$((6*7))');
    await page.keyboard.press('Enter');
    await until(async () => /^found-42$/m.test(await paneText(shell)), 'the line to find in the mirror');
    const terminal = page.locator(`.pane[data-surface="${shell}"] .term-host`);
    await terminal.click();
    await page.keyboard.press('Control+Shift+F');
    const find = page.locator(`.pane[data-surface="${shell}"] .find`);
    await find.waitFor({ state: 'visible' });
    await find.fill('found-42');
    await find.press('Enter');
    await until(async () => (await page.evaluate((id) => window.paneflowApp.paneSelection(id), shell)) === 'found-42', 'the match selected');
    await find.press('Escape');
    expect(await find.isHidden()).toBe(true);
    await page.keyboard.press('Control+Shift+C');
    await until(async () => (await page.evaluate(() => navigator.clipboard.readText())) === 'found-42', 'the selection on the clipboard');
    await page.keyboard.type('echo pasted-');
    await page.keyboard.press('Control+Shift+V');
    await until(async () => /echo pasted-found-42$/m.test(await paneText(shell)), 'the paste on the command line, once');
    await page.keyboard.press('Enter');
    await until(async () => /^pasted-found-42$/m.test(await paneText(shell)), 'the pasted text run by the shell');
  });

  test('scrolled to the top of its 10,000 rows, a pane shows the host’s deeper history from the same line; search reaches it; Escape, the button or the bottom go back to live output', async () => {
    const up = await home.rpc('workspace.up', { name: 'deep', layout: 'even_h', panes: [pane('deep', `seq -f 'deep-%06g' 1 30000; PS1="ready$ " exec bash --norc --noprofile -i`)] });
    const deep = up.surfaces[0].surface_id;
    await until(async () => /^deep-030000$[\s\S]*ready\$/m.test(await paneText(deep)), 'the last line and the prompt in the mirror');
    const box = page.locator(`.pane[data-surface="${deep}"] .term-host`);
    const history = box.locator('.term-history');
    const live = box.locator(':scope > .xterm');
    const rows = screenRows;
    const drag = (screen: Locator, to: 'top' | 'bottom') => dragScrollbar(page, screen, to);

    // The mirror holds 10,000 rows: its top is still about 20,000 lines after the first. The
    // keyboard is in the pane, so the history takes it (Escape goes there).
    await box.click();
    await drag(live, 'top');
    await history.waitFor({ state: 'visible' });
    const liveTop = (await rows(live))[0];
    expect(liveTop).toMatch(/^deep-0(19|20)\d{3}$/);
    let historyTop = '';
    await until(async () => (historyTop = (await rows(history))[0]) === liveTop || null, 'the history shown from the line the live view stood at').catch((error: Error) => {
      throw new Error(`${error.message}: live ${liveTop}, history ${historyTop}`);
    });
    expect(await box.locator('.history-bar').textContent()).toMatch(/^History: 30\d{3} lines/);
    await shot('history');
    await drag(history, 'top');
    await until(async () => (await rows(history))[0] === 'deep-000001', 'the first line of the output, 30,000 lines back');
    await page.keyboard.press('Escape');
    await history.waitFor({ state: 'detached' });
    await until(async () => (await rows(live)).some((row) => row.startsWith('ready$')), 'the live view at its bottom again');

    // Search finds a line only the host keeps, reading the history for it.
    await box.click();
    await page.keyboard.press('Control+Shift+F');
    const find = page.locator(`.pane[data-surface="${deep}"] .find`);
    await find.fill('deep-000005');
    await find.press('Enter');
    await until(async () => (await page.evaluate((id) => window.paneflowApp.paneSelection(id), deep)) === 'deep-000005', 'the match selected in the history');
    await until(async () => (await rows(history)).includes('deep-000005'), 'the match drawn in the history');
    await find.press('Escape');
    await box.locator('.history-bar button').click();
    await history.waitFor({ state: 'detached' });

    // Scrolled down to the history's bottom, the view is live again and takes typed input.
    await drag(live, 'top');
    await history.waitFor({ state: 'visible' });
    await drag(history, 'bottom');
    await history.waitFor({ state: 'detached' });
    await box.click();
    await page.keyboard.type('echo live-$((6*7))');
    await page.keyboard.press('Enter');
    await until(async () => /^live-42$/m.test(await paneText(deep)), 'typed input reaching the shell again');
    await home.rpc('surface.close', { surface_id: deep });
  });

  test('a pane full of long lines narrowed by another face: what comes next starts a row of its own', async () => {
    // More rows than the mirror keeps (MIRROR_SCROLLBACK), each 181 columns; then `cat`, which
    // draws nothing again when its pane is resized. The sizes come from the host, as another face
    // in use sets them: 193 columns, then 45 (a width at which xterm.js overflowing its buffer
    // leaves the cursor's row a copy of the line above, libs/screen reflow.ts).
    const lines = `awk 'BEGIN { w = sprintf("%170s", ""); gsub(/ /, "w", w); for (i = 1; i <= 10100; i++) printf "row-%05d %s\\n", i, w }'`;
    const up = await home.rpc('workspace.up', { name: 'reflow', layout: 'even_h', panes: [pane('wide', `echo "session=$PANEFLOW_SESSION_ID"; read -r _; ${lines}; exec cat`)] });
    const wide = up.surfaces[0].surface_id;
    await page.locator('.tab', { hasText: 'reflow' }).click();
    let session = '';
    await until(async () => (session = /^session=(\S+)$/m.exec(await paneText(wide))?.[1] ?? '') || null, 'the pane waiting');
    const { connection: face } = await connectHost(resolveEndpoints(home.env), 'another-face');
    const resize = (cols: number) => face.request('session.resize', { session, cols, rows: 18 });
    await resize(193);
    await home.rpc('surface.send_text', { surface_id: wide, text: '', submit: true });
    await until(async () => /^row-10100 w+$/m.test(await paneText(wide)), 'the last line in the mirror', scaled(30_000));
    await resize(45);
    await until(async () => /^row-10100 w{35}$/m.test(await paneText(wide)), 'the last line reflowed');
    await home.rpc('surface.send_text', { surface_id: wide, text: 'next' });
    const rows = await until(async () => {
      const text = await paneText(wide);
      return text.includes('next') ? text.split('\n') : null;
    }, 'the typed line');
    expect(rows.find((row) => row.includes('next'))).toBe('next');
    face.destroy();
    await home.rpc('surface.close', { surface_id: wide });
  });

  test('splitting a pane adds a working terminal', async () => {
    const shell = await openShell('splits');
    await page.locator(`.pane[data-surface="${shell}"] .split-button`).click();
    await until(async () => (await page.locator('.pane').count()) === 2, 'a second pane');
    const second = Number(await page.locator('.pane').nth(1).getAttribute('data-surface'));
    expect(second).not.toBe(shell);
    await until(async () => (await paneText(second)).trim().length > 0, 'the new shell’s prompt');
    await page.locator(`.pane[data-surface="${second}"] .term-host`).click();
    await page.keyboard.type('echo split-$((40+2))');
    await page.keyboard.press('Enter');
    await until(async () => /^split-42$/m.test(await paneText(second)), 'output in the split pane');
    await shot('split');
  });

  test('a full agent turn: spinner → Need you (with the message, on top) → Done, and Done clears when the pane is focused', async () => {
    const up = await home.rpc('workspace.up', { name: 'agents', layout: 'even_h', panes: [pane('other', 'claude'), pane('agent', 'claude --work-ms 1500')] });
    const [other, agent] = up.surfaces.map((s) => s.surface_id);
    await until(async () => (await rowMark(agent)) === 'none', 'the agent row, declared idle');
    // Every mark the row shows, in order.
    await page.evaluate((id) => {
      const seen: string[] = [document.querySelector(`.agent[data-surface="${id}"]`)!.getAttribute('data-mark')!];
      (window as unknown as { marks: string[] }).marks = seen;
      new MutationObserver(() => {
        const mark = document.querySelector(`.agent[data-surface="${id}"]`)?.getAttribute('data-mark');
        if (mark && seen.at(-1) !== mark) seen.push(mark);
      }).observe(document.querySelector('.agents')!, { subtree: true, childList: true, attributes: true });
    }, agent);
    expect(home.run(['send', 'agent', 'please ask permission', '--submit']).code).toBe(0);
    await until(async () => (await rowMark(agent)) === 'need_you', 'Need you');
    const row = page.locator(`.agent[data-surface="${agent}"]`);
    expect(await row.locator('.badge').textContent()).toBe('Need you');
    expect(await row.locator('.message').textContent()).toBe('approve Bash: please ask permission');
    // The agent's pane header says it too (§3.9: any program).
    expect(await page.locator(`.pane[data-surface="${agent}"] header .declared`).textContent()).toBe('blocked: permission · approve Bash: please ask permission');
    expect(await page.locator('.agent').first().getAttribute('data-surface')).toBe(String(agent));
    expect(Number(await page.locator(`.agent[data-surface="${other}"]`).count())).toBe(1);
    await shot('need-you');
    expect(home.run(['answer', 'agent', 'yes']).code).toBe(0);
    await until(async () => (await rowMark(agent)) === 'working', 'working again after the answer');
    expect(await page.evaluate(() => (window.paneflowApp as unknown as { clock: { running: boolean } }).clock.running)).toBe(true);
    await shot('working');
    await until(async () => (await rowMark(agent)) === 'done', 'Done');
    expect(await row.locator('.badge').textContent()).toBe('Done');
    await shot('done');
    expect(await page.evaluate(() => (window as unknown as { marks: string[] }).marks)).toEqual(['none', 'working', 'need_you', 'working', 'done']);
    // Notices: shown, since the pane was not in front of a focused window.
    expect(desktop.notices.map((n) => n.body)).toEqual(expect.arrayContaining(['approve Bash: please ask permission']));
    await page.locator(`.pane[data-surface="${agent}"] .term-host`).click();
    await until(async () => (await rowMark(agent)) === 'none', 'Done cleared once seen');

    // A turn that ends in the pane in front of you: no notice, and its Done is seen at once.
    const before = desktop.notices.length;
    const finished = home.start(['watch', '--type', 'notification']);
    try {
      await finished.line((line) => line.includes('"subscribed"'));
      expect(home.run(['send', 'agent', 'a quick task', '--submit']).code).toBe(0);
      await finished.line((line) => line.includes('"finished"'));
      await until(async () => (await rowMark(agent)) === 'none' && (await home.rpc('surface.status', { surface_id: agent })).unread === false, 'Done acknowledged in front');
      expect(desktop.notices.length).toBe(before);
    } finally {
      finished.child.kill();
    }
  });

  test('an agent that declares nothing shows a dim No status, with the first version that does', async () => {
    const up = await home.rpc('workspace.up', { name: 'silent', layout: 'even_h', panes: [pane('silent', 'claude --no-query')] });
    const silent = up.surfaces[0].surface_id;
    await until(async () => (await rowMark(silent)) === 'no_status', 'No status', 15_000);
    const badge = page.locator(`.agent[data-surface="${silent}"] .badge`);
    expect(await badge.textContent()).toBe('No status');
    expect(await badge.getAttribute('class')).toContain('dim');
    expect(await badge.getAttribute('title')).toBe('Claude Code declares its status from version 2.1.295 on');
    await shot('no-status');
  });

  test('every spinner runs on one shared clock that stops when nothing spins', async () => {
    const names = ['spin-a', 'spin-b', 'spin-c'];
    const up = await home.rpc('workspace.up', { name: 'spinners', layout: 'even_h', panes: names.map((name) => pane(name, 'claude --work-ms 8000')) });
    const ids = up.surfaces.map((s) => s.surface_id);
    for (const id of ids) await until(async () => (await rowMark(id)) === 'none', 'the agent rows, declared idle');
    for (const name of names) expect(home.run(['send', name, 'a long task', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await Promise.all(ids.map(rowMark))).every((mark) => mark === 'working'), 'three spinners at once');
    // The three spinners as they turn, read whenever the page changes them, and the page's interval timers.
    const watched = await page.evaluate(
      ({ ids, turns }) =>
        new Promise<{ frames: string[][]; intervals: number[] }>((resolve) => {
          const frames: string[][] = [];
          const read = () => ids.map((id) => document.querySelector(`.agent[data-surface="${id}"] .spinner`)?.textContent ?? '');
          const done = () => {
            observer.disconnect();
            resolve({ frames, intervals: [...(window as unknown as { __paneflowIntervals: Map<number, number> }).__paneflowIntervals.values()] });
          };
          const observer = new MutationObserver(() => {
            const now = read();
            if (now.includes('') || JSON.stringify(now) === JSON.stringify(frames.at(-1))) return;
            frames.push(now);
            if (frames.length === turns) done();
          });
          observer.observe(document.querySelector('.agents')!, { subtree: true, childList: true, characterData: true });
          setTimeout(done, 20_000);
        }),
      { ids, turns: 6 },
    );
    // They turned, always on the same frame, and one timer of the clock's period runs for them all.
    expect(watched.frames).toHaveLength(6);
    for (const frame of watched.frames) expect(new Set(frame).size).toBe(1);
    expect(watched.intervals.filter((ms) => ms === SPINNER_TICK_MS)).toHaveLength(1);
    // Once their turns are over (Done, or already seen in the pane in front), nothing spins and no clock runs.
    await until(async () => (await Promise.all(ids.map(rowMark))).every((mark) => mark === 'done' || mark === 'none'), 'the turns over', 30_000);
    const after = await page.evaluate(() => ({
      running: (window.paneflowApp as unknown as { clock: { running: boolean } }).clock.running,
      intervals: [...(window as unknown as { __paneflowIntervals: Map<number, number> }).__paneflowIntervals.values()],
    }));
    expect(after).toEqual({ running: false, intervals: expect.not.arrayContaining([SPINNER_TICK_MS]) });
  }, scaled(90_000));

  test('with reduce_motion a working agent shows a static mark and no clock runs', async () => {
    const up = await home.rpc('workspace.up', { name: 'still', layout: 'even_h', panes: [pane('still-agent', 'claude --work-ms 1500')] });
    const agent = up.surfaces[0].surface_id;
    await until(async () => (await rowMark(agent)) === 'none', 'the agent row, declared idle');
    home.writeConfig({ reduce_motion: true });
    await until(async () => ((await home.rpc('serve.status', {})).presentation.reduce_motion ? true : null), 'serve read the config');
    const still = await openDesktop(home.env);
    try {
      expect(home.run(['send', 'still-agent', 'a long task', '--submit', '--scope', 'all']).code).toBe(0);
      const row = still.page.locator(`.agent[data-surface="${agent}"][data-mark="working"]`);
      await row.waitFor({ timeout: 10_000 });
      expect(await row.locator('.mark').textContent()).toBe('●');
      expect(await still.page.evaluate(() => (window.paneflowApp as unknown as { clock: { running: boolean } }).clock.running)).toBe(false);
      expect(still.errors).toEqual([]);
    } finally {
      await still.close();
      home.writeConfig({});
    }
  });

  test('a serve restart does not interrupt a terminal: it keeps taking input and showing output, and the model comes back', async () => {
    const shell = await openShell('restarts');
    const tabs = await page.locator('.tab').allTextContents();
    expect(home.run(['serve', 'stop']).code).toBe(0);
    await page.waitForSelector('body[data-serve="lost"]');
    await page.locator(`.pane[data-surface="${shell}"] .term-host`).click();
    await page.keyboard.type('echo while-serve-was-away');
    await page.keyboard.press('Enter');
    await until(async () => /^while-serve-was-away$/m.test(await paneText(shell)), 'output with serve down');
    expect(home.run(['serve', 'start']).code).toBe(0);
    await page.waitForSelector('body[data-serve="up"]', { timeout: 15_000 });
    await until(async () => JSON.stringify(await page.locator('.tab').allTextContents()) === JSON.stringify(tabs), 'the same workspaces again');
  });

  test('after a host crash an agent pane says "lost — resume" and its row Lost; one click resumes its conversation', async () => {
    const up = await home.rpc('workspace.up', { name: 'crash', layout: 'even_h', panes: [pane('keeper', 'claude')] });
    const keeper = up.surfaces[0].surface_id;
    await page.locator('.tab', { hasText: 'crash' }).click();
    expect(home.run(['send', 'keeper', 'remember the milk', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await home.rpc('surface.status', { surface_id: keeper })).provider_session_id, 'the conversation id');
    process.kill(home.run(['host', 'status']).json<{ pid: number }>().pid, 'SIGKILL');
    await until(async () => (await rowMark(keeper)) === 'ended', 'the row says the agent is gone');
    expect(await page.locator(`.agent[data-surface="${keeper}"] .badge`).textContent()).toBe('Lost');
    const resume = page.locator(`.pane[data-surface="${keeper}"] header .resume`);
    expect(await resume.textContent()).toBe('lost — resume');
    await shot('lost');
    await resume.click();
    await until(async () => (await rowMark(keeper)) === 'none', 'the agent back, idle');
    expect(await resume.isHidden()).toBe(true);
    await until(async () => /❯ remember the milk/.test(await paneText(keeper)), 'its conversation reprinted in the mirror');
    expect((await home.rpc('surface.status', { surface_id: keeper })).restart).toMatchObject({ mode: 'session', outcome: 'resumed' });
  });

  test('hook texts and declared messages show with controls escaped and bidi overrides removed: header, sidebar, notifications', async () => {
    // An OSC 52 clipboard write, a screen clear, a carriage return, a C1 CSI and a right-to-left override.
    const NASTY = 'a\x1b]52;c;cHduZWQ=\x07b\x1b[2Jc\rd\u009b2Je\u202ef';
    // eslint-disable-next-line no-control-regex -- what may not be shown
    const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/;
    const up = await home.rpc('workspace.up', {
      name: 'escapes',
      layout: 'even_h',
      panes: [pane('escapes-sh', 'PS1="ready$ " exec bash --norc --noprofile -i'), { cwd: home.dir, command: 'claude --work-ms 100', focus: false, env: {} }],
    });
    const [sh, agent] = up.surfaces.map((s) => s.surface_id);
    await until(async () => (await rowMark(agent)) === 'none', 'the agent row, declared idle');
    const status = await home.rpc('surface.status', { surface_id: agent });
    const hook = (method: 'ai.prompt_submit' | 'ai.stop', payload: Record<string, string>) =>
      home.rpc(method, { tool: 'claude', session: status.session, surface_id: agent, workspace_id: up.workspace.id, pid: status.pid!, emitted_at_ms: Date.now(), payload });

    // The prompt titles the unnamed pane (its CR folded into a space by serve).
    expect(await hook('ai.prompt_submit', { prompt: NASTY })).toEqual({ accepted: true });
    const title = page.locator(`.pane[data-surface="${agent}"] header .title`);
    await until(async () => (await title.textContent()) === 'a^[]52;c;cHduZWQ=^Gb^[[2Jc d\ufffd2Jef', 'the title, escaped');
    // A program's declared message with a bidi override (msg = base64 of "ship U+202E it").
    await home.rpc('surface.send_text', { surface_id: sh, text: `printf '\\033]7501;state=blocked:kind=permission:msg=c2hpcCDigK4gaXQ=\\033\\\\'`, submit: true });
    const declared = page.locator(`.pane[data-surface="${sh}"] header .declared`);
    await until(async () => (await declared.textContent()) === 'blocked: permission · ship  it', 'the header, the override removed');

    // An agent's declared message in the sidebar and its Needs input notice; the Stop hook's result in its Finished notice.
    expect(home.run(['send', String(agent), 'ship \u202e it permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await rowMark(agent)) === 'need_you', 'Need you');
    expect(await page.locator(`.agent[data-surface="${agent}"] .message`).textContent()).toBe('approve Bash: ship  it permission');
    expect(await hook('ai.stop', { last_result: NASTY })).toEqual({ accepted: true });
    expect(home.run(['answer', String(agent), 'yes']).code).toBe(0);
    const mine = () => desktop.notices.filter((n) => n.surface_id === agent);
    await until(() => mine().length === 2, 'two notices');
    expect(mine().map((n) => n.body)).toEqual(['approve Bash: ship  it permission', 'a^[]52;c;cHduZWQ=^Gb^[[2Jc^Md\ufffd2Jef']);
    for (const text of [...mine().flatMap((n) => [n.title, n.body]), await page.locator('.agents').textContent(), await page.locator(`.pane[data-surface="${agent}"] header`).textContent()]) {
      expect(text).not.toMatch(UNSAFE);
    }
  });
  test('closing a pane: × closes an idle shell at once; a waiting agent asks first (Cancel keeps it, Close ends it); Ctrl+Shift+W closes the focused pane', async () => {
    const up = await home.rpc('workspace.up', { name: 'closing', layout: 'even_h', panes: [pane('idle-sh', SH), pane('asker', 'claude --work-ms 1500'), pane('keys-sh', SH)] });
    const [sh, asker, keys] = up.surfaces.map((s) => s.surface_id);
    const listed = async () => (await home.rpc('surface.list', { workspace_id: up.workspace.id })).surfaces.map((s) => s.surface_id);
    await page.locator('.tab', { hasText: 'closing' }).click();
    for (const id of [sh, keys]) await until(async () => (await paneText(id)).includes('ready$'), 'the shell’s prompt');
    await until(async () => (await rowMark(asker)) === 'none', 'the agent row, declared idle');
    const dialog = page.locator('.confirm');

    // Nothing runs in the shell: gone on the click, no question.
    await page.locator(`.pane[data-surface="${sh}"] header .close-button`).click();
    await until(async () => !(await listed()).includes(sh), 'the idle shell closed');
    expect(await dialog.count()).toBe(0);
    await until(async () => (await page.locator(`.pane[data-surface="${sh}"]`).count()) === 0, 'its pane gone from the page');

    // An agent waiting on you: asked first, with serve's reason; Cancel (and Escape) keep it.
    expect(home.run(['send', 'asker', 'please ask permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await rowMark(asker)) === 'need_you', 'Need you');
    const closeAsker = page.locator(`.pane[data-surface="${asker}"] header .close-button`);
    await closeAsker.click();
    await dialog.waitFor({ timeout: 5000 });
    expect(await dialog.locator('.message').textContent()).toContain(`surface ${asker} (asker): its agent is waiting_for_input`);
    await shot('close-confirm');
    await dialog.locator('.cancel').click();
    expect(await dialog.count()).toBe(0);
    await closeAsker.click();
    await dialog.waitFor({ timeout: 5000 });
    await page.keyboard.press('Escape');
    expect(await dialog.count()).toBe(0);
    expect(await listed()).toContain(asker);
    // Close ends it.
    await closeAsker.click();
    await dialog.locator('.confirm-close').click();
    await until(async () => !(await listed()).includes(asker), 'the agent pane closed on Close');

    // The shortcut closes the pane the keyboard is in.
    await page.locator(`.pane[data-surface="${keys}"] .term-host`).click();
    await page.keyboard.press('Control+Shift+W');
    await until(async () => !(await listed()).includes(keys), 'the focused shell closed by Ctrl+Shift+W');
  });

  test('a workspace tab’s × closes every pane in it by the same rule: asked while an agent waits (Cancel keeps all), closed at once when nothing runs', async () => {
    const names = async () => (await home.rpc('workspace.list', {})).workspaces.map((w) => w.name);
    const up = await home.rpc('workspace.up', { name: 'whole', layout: 'even_h', panes: [pane('whole-sh', SH), pane('whole-asker', 'claude --work-ms 1500')] });
    const [sh, asker] = up.surfaces.map((s) => s.surface_id);
    const row = page.locator('.tab-row', { has: page.locator('.tab', { hasText: 'whole' }) });
    await row.locator('.tab').click();
    await until(async () => (await paneText(sh)).includes('ready$'), 'the shell’s prompt');
    expect(home.run(['send', 'whole-asker', 'please ask permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await rowMark(asker)) === 'need_you', 'Need you');
    const dialog = page.locator('.confirm');
    await row.hover();
    await row.locator('.tab-close').click();
    await dialog.waitFor({ timeout: 5000 });
    expect(await dialog.locator('.message').textContent()).toContain(`surface ${asker} (whole-asker): its agent is waiting_for_input`);
    await dialog.locator('.cancel').click();
    expect(await names()).toContain('whole');
    expect((await home.rpc('surface.list', { workspace_id: up.workspace.id })).surfaces).toHaveLength(2);
    await row.hover();
    await row.locator('.tab-close').click();
    await dialog.locator('.confirm-close').click();
    await until(async () => !(await names()).includes('whole') || null, 'the workspace closed on Close');
    await until(async () => (await page.locator('.tab', { hasText: 'whole' }).count()) === 0, 'its tab gone');

    // Nothing running: no question.
    const quiet = await home.rpc('workspace.up', { name: 'quiet', layout: 'even_h', panes: [pane('quiet-sh', SH)] });
    const quietRow = page.locator('.tab-row', { has: page.locator('.tab', { hasText: 'quiet' }) });
    await quietRow.locator('.tab').click();
    await until(async () => (await paneText(quiet.surfaces[0].surface_id)).includes('ready$'), 'the shell’s prompt');
    await quietRow.hover();
    await quietRow.locator('.tab-close').click();
    await until(async () => !(await names()).includes('quiet') || null, 'closed at once');
    expect(await dialog.count()).toBe(0);
  });
  test('the new-pane menu offers a shell and the runtimes’ presets; a preset opens a pane running its command with its env', async () => {
    const shell = await openShell('launch');
    const before = (await home.rpc('surface.list', { scope: 'all' })).surfaces.map((s) => s.surface_id);
    await page.locator(`.pane[data-surface="${shell}"] header .new-pane-button`).click();
    const menu = page.locator('.new-pane-menu');
    expect(await menu.locator('.launcher').allTextContents()).toEqual(['Shell', 'Claude Code team', 'OpenClaw TUI']);
    expect(await menu.locator('[data-preset="claude_code_team"]').getAttribute('title')).toBe('Claude Code: claude --teammate-mode tmux');
    await shot('new-pane-menu');
    // Escape closes it; nothing opened.
    await page.keyboard.press('Escape');
    expect(await menu.count()).toBe(0);
    await page.locator(`.pane[data-surface="${shell}"] header .new-pane-button`).click();
    await menu.locator('[data-preset="claude_code_team"]').click();
    expect(await menu.count()).toBe(0);
    const made = await until(async () => (await home.rpc('surface.list', { scope: 'all' })).surfaces.find((s) => !before.includes(s.surface_id)), 'the preset’s pane');
    const status = await until(async () => {
      const s = await home.rpc('surface.status', { surface_id: made.surface_id });
      return s.runtime_id === 'claude-code' && s.pid ? s : null;
    }, 'its agent running');
    // The preset's argv and env reached the agent's process.
    expect(readFileSync(`/proc/${status.pid}/cmdline`, 'utf8').split('\0')).toEqual(expect.arrayContaining(['--teammate-mode', 'tmux']));
    expect(readFileSync(`/proc/${status.pid}/environ`, 'utf8').split('\0')).toContain('CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1');
    await until(async () => (await page.locator(`.pane[data-surface="${made.surface_id}"]`).count()) === 1, 'its pane on the page');
  });

  test('Done clears when its pane comes in front by any means: a tab switch, `paneflow focus`, the window’s focus', async () => {
    const up = await home.rpc('workspace.up', { name: 'front', layout: 'even_h', panes: [pane('fronted', 'claude --work-ms 200')] });
    const agent = up.surfaces[0].surface_id;
    const unread = async () => (await home.rpc('surface.status', { surface_id: agent })).unread;
    await until(async () => (await rowMark(agent)) === 'none', 'the agent row, declared idle');
    const turnEndsAway = async () => {
      expect(home.run(['send', 'fronted', 'a quick task', '--submit', '--scope', 'all']).code).toBe(0);
      await until(async () => (await rowMark(agent)) === 'done', 'Done');
      expect(await unread()).toBe(true);
    };

    // A tab switch to its workspace (no click on the pane).
    await page.locator('.tab', { hasText: 'shells' }).click();
    await turnEndsAway();
    await page.locator('.tab', { hasText: 'front' }).click();
    await until(async () => (await rowMark(agent)) === 'none' && !(await unread()), 'Done seen on the tab switch');

    // `paneflow focus` from elsewhere.
    await page.locator('.tab', { hasText: 'shells' }).click();
    await turnEndsAway();
    expect(home.run(['focus', 'fronted', '--scope', 'all']).code).toBe(0);
    await until(async () => (await rowMark(agent)) === 'none' && !(await unread()), 'Done seen when focused from the CLI');

    // In front, but the window is not focused: Done waits for the window to come forward.
    await page.evaluate(() => (document.hasFocus = () => false));
    try {
      await turnEndsAway();
    } finally {
      await page.evaluate(() => {
        delete (document as unknown as { hasFocus?: unknown }).hasFocus;
        window.dispatchEvent(new Event('focus'));
      });
    }
    await until(async () => (await rowMark(agent)) === 'none' && !(await unread()), 'Done seen on the window’s focus');
  });

  test('a notification names its reason, pane and workspace, comes once per wait, and a click on it brings the pane forward', async () => {
    const up = await home.rpc('workspace.up', { name: 'notify', layout: 'even_h', panes: [pane('pinger', 'claude --work-ms 200')] });
    const agent = up.surfaces[0].surface_id;
    await until(async () => (await rowMark(agent)) === 'none', 'the agent row, declared idle');
    await page.locator('.tab', { hasText: 'shells' }).click();
    const mine = () => desktop.notices.filter((n) => n.surface_id === agent);
    expect(home.run(['send', 'pinger', 'please ask permission', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await rowMark(agent)) === 'need_you', 'Need you');
    expect(home.run(['answer', 'pinger', 'yes', '--scope', 'all']).code).toBe(0);
    await until(async () => (await rowMark(agent)) === 'done', 'Done');
    await until(() => mine().length >= 2, 'two notices');
    // The click: the main process pushes `focus` with the notice's pane, as main.ts does.
    await page.evaluate((id) => (window as unknown as { __paneflowDeliver(c: string, a: unknown[]): void }).__paneflowDeliver('focus', [id]), agent);
    await until(async () => (await page.locator('.tab.active').textContent()) === 'notify', 'its workspace in front');
    await until(async () => (await rowMark(agent)) === 'none', 'its Done seen');
    expect((await home.rpc('workspace.list', {})).workspaces.find((w) => w.name === 'notify')?.focus).toBe(agent);
    expect(mine().map((n) => [n.title, n.body])).toEqual([
      ['Needs input: pinger in notify', 'approve Bash: please ask permission'],
      ['Finished: pinger in notify', expect.any(String)],
    ]);
  });

  test('reduce_motion applies live: the spinner stops and starts again as the config changes', async () => {
    const up = await home.rpc('workspace.up', { name: 'motion', layout: 'even_h', panes: [pane('mover', 'claude --work-ms 30000')] });
    const agent = up.surfaces[0].surface_id;
    const clock = () => page.evaluate(() => (window.paneflowApp as unknown as { clock: { running: boolean } }).clock.running);
    const mark = () => page.locator(`.agent[data-surface="${agent}"] .mark`).textContent();
    await until(async () => (await rowMark(agent)) === 'none', 'the agent row, declared idle');
    expect(home.run(['send', 'mover', 'a long task', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await rowMark(agent)) === 'working' && (await clock()), 'the spinner turning');
    try {
      home.writeConfig({ reduce_motion: true });
      await until(async () => !(await clock()) && (await mark()) === '●', 'a static mark and no clock, in the same page');
      home.writeConfig({});
      await until(async () => (await clock()) && (await mark()) !== '●', 'the spinner again');
    } finally {
      home.writeConfig({});
      // The fixture takes Ctrl-C as a key like any other: closed, it works no more (the spinners' test wants none working).
      await home.rpc('surface.close', { surface_id: agent });
    }
  });

  test('an agent hidden by the config’s visibility key leaves the sidebar, and comes back when the key is set again', async () => {
    const up = await home.rpc('workspace.up', { name: 'seen', layout: 'even_h', panes: [pane('visible-one', 'claude --work-ms 100')] });
    const agent = up.surfaces[0].surface_id;
    const row = page.locator(`.agent[data-surface="${agent}"]`);
    await until(async () => (await rowMark(agent)) === 'none', 'the agent row, declared idle');
    try {
      home.writeConfig({ show_agent_claude_code: false });
      await row.waitFor({ state: 'detached' });
      expect(home.run(['ps']).stdout).not.toContain('visible-one');
      home.writeConfig({});
      await row.waitFor();
      expect(home.run(['ps']).stdout).toContain('visible-one');
    } finally {
      home.writeConfig({});
      await home.rpc('surface.close', { surface_id: agent });
    }
  });

  test("an agent's running subagents are counted in its sidebar row and its pane header, in the same words", async () => {
    const up = await home.rpc('workspace.up', { name: 'helpers', layout: 'even_h', panes: [pane('chief', 'claude --work-ms 60000')] });
    const chief = up.surfaces[0].surface_id;
    await page.locator('.tab', { hasText: 'helpers' }).click();
    await until(async () => (await rowMark(chief)) === 'none', 'the agent row, declared idle');
    const agent = await home.rpc('surface.status', { surface_id: chief });
    expect(home.run(['send', 'chief', 'a long task', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await rowMark(chief)) === 'working', 'the spinner');
    // What paneflow-ai-hook sends for Claude Code's SubagentStart and SubagentStop.
    const subagent = (agent_id: string, phase: 'start' | 'stop') =>
      home.rpc('ai.subagent', { tool: 'claude', session: agent.session, surface_id: chief, workspace_id: up.workspace.id, pid: agent.pid!, emitted_at_ms: Date.now(), payload: { agent_id, phase } });
    const shown = async () => ({
      row: (await page.locator(`.agent[data-surface="${chief}"] .subagents`).allTextContents()).join('|'),
      header: await page.locator(`.pane[data-surface="${chief}"] header .subagents:visible`).allTextContents(),
    });
    try {
      expect(await shown()).toEqual({ row: '', header: [] });
      await subagent('explore-1', 'start');
      await subagent('plan-2', 'start');
      await until(async () => JSON.stringify(await shown()) === JSON.stringify({ row: '2 subagents', header: ['2 subagents'] }), 'two subagents, row and header');
      await subagent('explore-1', 'stop');
      await until(async () => JSON.stringify(await shown()) === JSON.stringify({ row: '1 subagent', header: ['1 subagent'] }), 'one left');
      await subagent('plan-2', 'stop');
      await until(async () => JSON.stringify(await shown()) === JSON.stringify({ row: '', header: [] }), 'none left, nothing shown');
    } finally {
      // Its turn would go on for a minute: closed, it works no more.
      await home.rpc('surface.close', { surface_id: chief });
    }
  });

  test('closing a pane whose managed worktree holds uncommitted work keeps the worktree and says so', async () => {
    const repo = join(home.dir, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { encoding: 'utf8' });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'README'), 'hello\n');
    git('add', '.');
    git('commit', '-q', '-m', 'initial');
    const spec = join(repo, 'keep.toml');
    writeFileSync(spec, 'name = "worktrees"\n[[panes]]\nname = "wt-keep"\ncwd = "."\nworktree = "feat/desk-keep"\n');
    expect(home.run(['up', spec]).code).toBe(0);
    const worktree = `${repo}.worktrees/feat-desk-keep`;
    writeFileSync(join(worktree, 'scratch.txt'), 'work in progress\n');
    const surface = (await home.rpc('surface.list', { scope: 'all' })).surfaces.find((s) => s.name === 'wt-keep')!.surface_id;
    await page.locator('.tab', { hasText: 'worktrees' }).click();
    await page.locator(`.pane[data-surface="${surface}"] header .close-button`).click();
    const notice = page.locator('.notice', { hasText: 'Worktree kept' });
    await notice.waitFor({ timeout: 15_000 });
    expect(await notice.textContent()).toBe(`Worktree kept: ${worktree} (uncommitted changes)`);
    expect(existsSync(join(worktree, 'scratch.txt'))).toBe(true);
    await shot('worktree-kept');
  });
});

describe('closing while the host does not answer (stopped with SIGSTOP)', () => {
  let stuck: Home;
  let face: Harness;
  let surface: number;
  beforeAll(async () => {
    // Serve gives up on the host after 2 s here, not 10 s (read at serve's start).
    stuck = makeHome({ PANEFLOW_SERVE_HOST_TIMEOUT_MS: '2000' });
    expect(stuck.run(['start']).code).toBe(0);
    surface = (await stuck.rpc('workspace.create', { cwd: stuck.dir, name: 'stuck' })).surface_id;
    face = await openDesktop(stuck.env);
  }, scaled(60_000));
  afterAll(async () => {
    await face?.close();
    stuck?.cleanup();
  });


  test('× on an idle shell asks with a warning that nothing can be stopped: Cancel keeps it, Close takes it out, and the host stops its program once it answers', async () => {
    const { page: stuckPage } = face;
    const listed = async () => (await stuck.rpc('surface.list', { scope: 'all' })).surfaces.map((s) => s.surface_id);
    const terminal = stuckPage.locator(`.pane[data-surface="${surface}"] .term-host`);
    await terminal.waitFor();
    // A program in the background: the shell holds the terminal, so a host that answers would close it unasked.
    const sleeper = ['sleep', `8${surface}88`];
    await terminal.click();
    await stuckPage.keyboard.type(`${sleeper.join(' ')} &`);
    await stuckPage.keyboard.press('Enter');
    await until(() => runsExactly(sleeper), 'the background sleep');
    const dialog = stuckPage.locator('.confirm');
    const closeButton = stuckPage.locator(`.pane[data-surface="${surface}"] header .close-button`);

    const hostPid = stuck.run(['host', 'status']).json<{ pid: number }>().pid;
    process.kill(hostPid, 'SIGSTOP');
    try {
      await closeButton.click();
      await dialog.waitFor({ timeout: 15_000 });
      expect(await dialog.getAttribute('data-reason')).toBe('host_unreachable');
      expect(await dialog.locator('.message').textContent()).toBe(
        `close needs confirmation: the host does not answer (it died or hangs), so surface ${surface} cannot be stopped: closing only takes it out of the workspace, and what runs there may keep running`,
      );
      await dialog.locator('.cancel').click();
      expect(await dialog.count()).toBe(0);
      expect(await listed()).toEqual([surface]);

      await closeButton.click();
      await dialog.waitFor({ timeout: 15_000 });
      await dialog.locator('.confirm-close').click();
      await until(async () => (await listed()).length === 0, 'the pane out of the model on Close');
      await until(async () => (await stuckPage.locator(`.pane[data-surface="${surface}"]`).count()) === 0, 'its pane gone from the page');
      expect(runsExactly(sleeper)).toBe(true);
    } finally {
      process.kill(hostPid, 'SIGCONT');
    }
    await until(() => !runsExactly(sleeper), 'the closed pane’s program stopped once the host answers');
    expect(await listed()).toEqual([]);
    expect(face.errors.splice(0)).toEqual([]);
  }, scaled(60_000));
});
