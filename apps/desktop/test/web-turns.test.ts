// The turn ledger in the renderer, through `paneflow web` (the real process on a real instance) in
// Debian's Chromium at a desktop's size and at a phone's: a pane's turns, a turn opened on its
// prompt, questions, tokens and git's diff (files, then hunks, coloured, controls shown as text),
// the list following new turns, and the digest of what happened while you were away (first on a
// phone), which the page reads before it marks that you looked.
import type { TurnRecord } from '@paneflow/protocol';
import { gitRepo, holdingGit, makeHome, scaled, turnThatEdits, until, type Home } from '@paneflow/testing';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { shot, startWebFace, type WebFace } from './harness';

let home: Home;
let face: WebFace;
let agent: number;

const turns = async (surface: number): Promise<TurnRecord[]> => (await home.rpc('turn.list', { surface_id: surface })).turns;

/** Sends a prompt to the agent and waits for that turn's whole record (its end snapshot taken). */
async function turn(surface: number, prompt: string): Promise<TurnRecord> {
  const before = (await turns(surface)).length;
  expect(home.run(['send', String(surface), prompt, '--submit', '--scope', 'all']).code).toBe(0);
  return until(async () => (await turns(surface)).find((t) => t.turn === before + 1 && t.ended !== null && (t.change === null || t.change.end_commit !== null)), `turn ${before + 1} of ${surface} recorded`);
}

beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  face = await startWebFace(home);
  const repo = join(home.dir, 'repo');
  gitRepo(repo);
  const up = await home.rpc('workspace.up', { name: 'ledger', layout: 'even_h', panes: [{ name: 'coder', command: 'claude --work-ms 200', cwd: repo, focus: true, env: {} }] });
  agent = up.surfaces[0].surface_id;
  await until(async () => (await home.rpc('surface.status', { surface_id: agent })).reason === 'declared' || null, 'the agent declares');
  // A turn behind a permission question, answered from the inbox, that edits three files (one holds an ESC, one is binary).
  await turnThatEdits(home.rpc, agent, 'permission to edit\n@write src/app.js console.log("\\x1b[31mred")\n@write notes.md one\n@bytes img.bin');
}, scaled(90_000));
afterEach(() => {
  expect(face.errors.splice(0)).toEqual([]);
});
afterAll(async () => {
  if (face) expect(await face.stop()).toBe(0);
  home?.cleanup();
});

const open: WebFace['open'] = (...args) => face.open(...args);

const colour = (page: Page, selector: string) => page.locator(selector).first().evaluate((node) => getComputedStyle(node).color);

test('at a desktop’s size: the digest in the sidebar, a pane’s turns, and a turn opened on its record and its diff; the list follows new turns', async () => {
  const openedAt = Date.now();
  const { context, page } = await open({ viewport: { width: 1400, height: 900 } });
  try {
    // Nobody had looked: the digest covers the last day, and opening the page is looking.
    const row = page.locator(`.sidebar .digest .digest-row[data-surface="${agent}"]`);
    expect(await row.locator('.what').textContent()).toMatch(/^1 turn, 1 finished · 3 files \+2 -0 · .* in · .* out · \$\d/);
    expect(await page.locator('.sidebar .digest .digest-since').textContent()).toBe('in the last day');
    await until(async () => ((await home.rpc('fleet.digest', {})).looked_at_ms ?? 0) >= openedAt || null, 'the page marked that you looked');

    await page.locator(`.pane[data-surface="${agent}"] header .turns-button`).click();
    const panel = page.locator(`.turns-panel[data-surface="${agent}"][data-view="list"]`);
    await panel.waitFor();
    expect(await panel.locator('header .title').textContent()).toBe('Turns · coder');
    const first = panel.locator('.turn-row[data-turn="1"]');
    expect(await first.locator('.ending').textContent()).toBe('finished');
    expect(await first.locator('.change').textContent()).toBe('3 files +2 -0');
    // The prompt's first line; the whole of it is in the turn's record.
    expect(await first.locator('.prompt').textContent()).toBe('permission to edit');

    await first.click();
    const opened = page.locator(`.turns-panel[data-view="turn"]`);
    await opened.locator('.diff-file').first().waitFor();
    expect(await opened.locator('header .title').textContent()).toBe('Turn #1 · coder');
    expect(await opened.locator('.turn-prompt').textContent()).toBe('permission to edit\n@write src/app.js console.log("\\x1b[31mred")\n@write notes.md one\n@bytes img.bin');
    expect(await opened.locator('.turn-questions li').allTextContents()).toEqual([expect.stringMatching(/^permission · approve Bash: permission to edit → "yes", by answer, after \d/)]);
    expect(await opened.locator('.turn-messages li').allTextContents()).toEqual(['editing 3 file(s)']);
    expect(await opened.locator('.turn-tokens').textContent()).toMatch(/ in · .* out · \$.* — input 12, cache read 2000, cache write 100, output \d+ · claude-opus-5-5$/);
    expect(await opened.locator('.turn-files li').allTextContents()).toEqual(['Aimg.binbinary', 'Anotes.md+1 -0', 'Asrc/app.js+1 -0']);
    // The file's ESC is shown as ^[, in the added lines' colour; the binary file is summarised.
    const app = opened.locator('.diff-file[data-path="src/app.js"]');
    expect(await app.locator('.diff-line.add').allTextContents()).toEqual(['+console.log("^[[31mred")']);
    expect(await app.locator('.diff-line.hunk-head').textContent()).toBe('@@ -0,0 +1 @@');
    expect(await colour(page, '.diff-file[data-path="src/app.js"] .diff-line.add')).toBe('rgb(124, 200, 127)');
    expect(await opened.locator('.diff-file[data-path="img.bin"] .diff-meta').allTextContents()).toContain('Binary files /dev/null and b/img.bin differ');
    expect(await opened.locator('.diff-file').evaluateAll((nodes) => nodes.map((n) => n.textContent).join(''))).not.toContain('\x1b');
    await shot(page, 'turn-diff');

    // Back to the list, which gains the next turn as it ends.
    await opened.locator('.turns-back').click();
    await panel.waitFor();
    await turnThatEdits(home.rpc, agent, 'permission to append\n@append notes.md two');
    // The row comes with the turn's start (running); its end follows in a frame of its own.
    await panel.locator('.turn-row[data-turn="2"] .change').filter({ hasNotText: 'running' }).waitFor();
    expect(await panel.locator('.turn-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.turn))).toEqual(['2', '1']);
    expect(await panel.locator('.turn-row[data-turn="2"] .change').textContent()).toBe('1 file +1 -0');
    await page.keyboard.press('Escape');
    await page.locator('.turns-panel').waitFor({ state: 'hidden' });
  } finally {
    await context.close();
  }
}, scaled(60_000));

test('a turn outside git shows its record and says why there is no diff', async () => {
  const plain = join(home.dir, 'plain');
  mkdirSync(plain);
  const up = await home.rpc('workspace.up', { name: 'nogit', layout: 'even_h', panes: [{ name: 'thinker', command: 'claude --work-ms 200', cwd: plain, focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await until(async () => (await home.rpc('surface.status', { surface_id: surface })).reason === 'declared' || null, 'the agent declares');
  await turn(surface, 'just think');
  const { context, page } = await open({ viewport: { width: 1280, height: 800 } });
  try {
    await page.locator(`.pane[data-surface="${surface}"] header .turns-button`).click();
    const first = page.locator('.turns-panel .turn-row[data-turn="1"]');
    expect(await first.locator('.change').textContent()).toBe('no git');
    await first.click();
    const note = page.locator('.turns-panel[data-view="turn"] .turns-note');
    await note.waitFor();
    expect(await note.textContent()).toMatch(/its pane was not in a git work tree/);
    expect(await page.locator('.turns-panel .turn-prompt').textContent()).toBe('just think');
  } finally {
    await context.close();
  }
}, scaled(60_000));

test('a turn whose start snapshot came late (git slow to answer) says that what changed before it is not in its diff', async () => {
  // A repository serve has not looked at yet, and a git first on serve's PATH that can hold the
  // look for a work tree.
  const repo = join(home.dir, 'late-repo');
  gitRepo(repo);
  const git = holdingGit(join(home.dir, 'bin', 'git'), '--is-inside-work-tree');
  const up = await home.rpc('workspace.up', { name: 'late', layout: 'even_h', panes: [{ name: 'slow', command: 'claude --work-ms 200', cwd: repo, focus: true, env: {} }] });
  const slow = up.surfaces[0].surface_id;
  await until(async () => (await home.rpc('surface.status', { surface_id: slow })).reason === 'declared' || null, 'the agent declares');
  git.hold();
  try {
    expect(home.run(['send', String(slow), 'permission to wait\n@write late.txt late', '--submit', '--scope', 'all']).code).toBe(0);
    await until(() => git.began(), 'serve looking for the work tree, held');
    const started = (await until(async () => (await turns(slow)).find((t) => t.ended === null), 'the turn begun')).started_at_ms;
    // Late is a matter of time: the hold lasts past the second after the turn's start.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 1500 - Date.now())));
  } finally {
    git.release();
  }
  git.remove();
  await until(async () => (await home.rpc('surface.status', { surface_id: slow })).state === 'waiting_for_input' || null, 'the question');
  expect(home.run(['answer', String(slow), 'yes', '--scope', 'all']).code).toBe(0);
  const late = await until(async () => (await turns(slow)).find((t) => t.ended !== null && t.change?.end_commit), 'the late turn recorded');
  expect(late.change!.start_at_ms! - late.started_at_ms).toBeGreaterThan(1000);
  const { context, page } = await open({ viewport: { width: 1280, height: 800 } });
  try {
    await page.locator(`.pane[data-surface="${slow}"] header .turns-button`).click();
    await page.locator(`.turns-panel .turn-row[data-turn="${late.turn}"]`).click();
    const note = page.locator('.turns-panel[data-view="turn"] .turns-note').first();
    await note.waitFor();
    expect(await note.textContent()).toMatch(/^Its start snapshot was taken \ds into the turn: what changed before then is not in its diff\.$/);
  } finally {
    await context.close();
    await home.rpc('workspace.close', { workspace_id: up.workspace.id });
  }
}, scaled(60_000));

test('at a phone’s size: the digest comes first, a tap opens the agent’s turns full-screen, a turn its diff; the bar opens them too', async () => {
  // The desktop's page marked that you looked: the digest now holds only what came after.
  const phoneTurn = await turnThatEdits(home.rpc, agent, 'permission to write from the phone\n@write phone.txt from the phone');
  const { context, page } = await open({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  try {
    const home_ = page.locator('.phone-home');
    expect(await home_.evaluate((node) => node.firstElementChild?.className)).toBe('phone-digest');
    const row = page.locator(`.phone-digest .digest-row[data-surface="${agent}"]`);
    expect(await row.locator('.what').textContent()).toMatch(/^1 turn, 1 finished · 1 file \+1 -0/);
    expect(await row.locator('.prompt').textContent()).toBe('permission to write from the phone');
    await shot(page, 'phone-digest');

    await row.tap();
    const panel = page.locator(`.turns-panel[data-surface="${agent}"][data-view="list"]`);
    await panel.waitFor();
    expect((await panel.boundingBox())!.width).toBe(390);
    await panel.locator(`.turn-row[data-turn="${phoneTurn.turn}"]`).tap();
    const opened = page.locator('.turns-panel[data-view="turn"]');
    await opened.locator('.diff-file[data-path="phone.txt"]').waitFor();
    expect(await opened.locator('.diff-line.add').allTextContents()).toEqual(['+from the phone']);
    await shot(page, 'phone-turn-diff');
    await opened.locator('.turns-close').tap();
    await page.locator('.turns-panel').waitFor({ state: 'hidden' });

    // From the agent's own screen: the bar's Turns.
    await page.locator(`.phone-agents .phone-row[data-surface="${agent}"]`).tap();
    await page.locator(`.pane.solo[data-surface="${agent}"]`).waitFor();
    await page.locator('.phone-bar .turns-button').tap();
    await page.locator(`.turns-panel[data-surface="${agent}"] .turn-row[data-turn="${phoneTurn.turn}"]`).waitFor();
    expect(await page.locator(`.turns-panel[data-surface="${agent}"] .turn-row`).count()).toBe(phoneTurn.turn);
  } finally {
    await context.close();
  }
}, scaled(60_000));
