// The supervisor in the renderer, through `paneflow web` (the real process on a real instance) in
// Debian's Chromium at a desktop's size and at a phone's: the Queue box (`queue.add`) from the
// sidebar, the pane header and the phone's lists; `queued 1` under the agent until its turn ends and
// the prompt goes; serve's refusal kept in the box, escaped; notices of the supervisor's kinds
// raised like the others; what a rule answered after the phone's inbox; a stall and a usage
// limit under their agents.
import { makeHome, scaled, until, type Home } from '@paneflow/testing';
import type { Page } from 'playwright-core';
import { keepNotifications, notificationsShown, shot, startWebFace, type WebFace } from './harness';

let home: Home;
let face: WebFace;

beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  // A rule that answers one prompt only (no other test's matches it), at once; a test-short stall threshold (no other test's agent works in silence).
  home.writeConfig({ answer_rules: [{ name: 'tests', kind: 'permission', pattern: '^approve Bash: run the tests', answer: 'yes' }], supervisor: { answer_delay_ms: 0 }, agent_stall_threshold_secs: 2 });
  face = await startWebFace(home);
}, scaled(60_000));
afterEach(() => {
  expect(face.errors.splice(0)).toEqual([]);
});
afterAll(async () => {
  if (face) expect(await face.stop()).toBe(0);
  home?.cleanup();
});

const paneText = (page: Page, surface: number) => page.evaluate((id) => window.paneflowApp.paneText(id), surface);
const state = async (surface: number) => (await home.rpc('surface.status', { surface_id: surface })).state;
const queued = async (surface: number) => (await home.rpc('queue.list', { surface_id: surface })).queues.flatMap((q) => q.items);

/** An agent in a workspace of its own, declaring, busy `workMs` per turn. */
async function agentIn(workspace: string, name: string, workMs: number): Promise<number> {
  const up = await home.rpc('workspace.up', { name: workspace, layout: 'even_h', panes: [{ name, command: `claude --work-ms ${workMs}`, cwd: home.dir, focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await until(async () => (await home.rpc('surface.status', { surface_id: surface })).reason === 'declared' || null, `${name} declares`);
  return surface;
}

/** Starts a turn that stops at a permission prompt, and waits until the agent asks: its turn lasts until answered. */
async function asking(surface: number, prompt: string): Promise<void> {
  expect(home.run(['send', String(surface), `${prompt} permission`, '--submit', '--scope', 'all']).code).toBe(0);
  await until(async () => (await state(surface)) === 'waiting_for_input' || null, 'the agent asking');
}

test('at a desktop’s size: Queue in the sidebar keeps a prompt for an agent in its turn, shown as queued 1 until the turn ends and the prompt goes', async () => {
  const lead = await agentIn('queueing', 'lead', 200);
  const { context, page } = await face.open({ viewport: { width: 1280, height: 800 } });
  try {
    await asking(lead, 'first task');
    const row = page.locator(`.agent[data-surface="${lead}"]`);
    await row.locator('.queue-button').click();
    const box = page.locator(`.queue-box[data-surface="${lead}"]`);
    await box.waitFor();
    expect(await box.locator('.queue-title').textContent()).toBe('Queue a prompt for lead');
    await box.locator('.queue-text').fill('second task');
    await box.locator('.queue-send').click();
    await box.waitFor({ state: 'hidden' });
    await page.locator('.notice', { hasText: /^Queued for lead \(q\d+, number 1 in line\)\.$/ }).waitFor();
    expect(await queued(lead)).toMatchObject([{ text: 'second task', position: 1 }]);
    // Beside the declared state, in the sidebar and the pane's header.
    await row.locator('.supervision .sup[data-kind="queued"]').waitFor();
    expect(await row.locator('.supervision').textContent()).toBe('queued 1');
    expect(await row.getAttribute('data-mark')).toBe('need_you');
    expect(await page.locator(`.pane[data-surface="${lead}"] header .supervision`).textContent()).toBe('queued 1');
    await shot(page, 'queued');

    // The turn ends (its question answered): the queued prompt is the next one, and nothing is counted any more.
    expect(home.run(['answer', String(lead), 'yes']).code).toBe(0);
    await until(async () => (await paneText(page, lead)).includes('thinking about: second task'), 'the queued prompt delivered');
    await row.locator('.supervision').waitFor({ state: 'detached' });
    expect(await page.locator(`.pane[data-surface="${lead}"] header .supervision`).textContent()).toBe('');
  } finally {
    await context.close();
  }
}, scaled(60_000));

test('what serve refuses stays in the box, escaped, with the text; Escape closes it', async () => {
  const gone = await agentIn('refused', 'gone', 200);
  const { context, page } = await face.open({ viewport: { width: 1280, height: 800 } });
  try {
    await page.locator(`.pane[data-surface="${gone}"] header .queue-button`).click();
    const box = page.locator(`.queue-box[data-surface="${gone}"]`);
    await box.locator('.queue-text').fill('a prompt for nobody');
    // The pane closes before the prompt is sent: serve refuses it.
    await home.rpc('surface.close', { surface_id: gone });
    await until(async () => (await page.locator(`.pane[data-surface="${gone}"]`).count()) === 0 || null, 'the pane gone from the page');
    await box.locator('.queue-send').click();
    const refusal = box.locator('.queue-refusal');
    await until(async () => /^Not queued: .+/.test((await refusal.textContent()) ?? '') || null, 'the refusal in the box');
    expect(await refusal.textContent()).not.toMatch(/[\x00-\x1f\x7f]/); // eslint-disable-line no-control-regex
    expect(await box.locator('.queue-text').inputValue()).toBe('a prompt for nobody');
    await box.locator('.queue-text').press('Escape');
    await box.waitFor({ state: 'hidden' });
  } finally {
    await context.close();
  }
}, scaled(60_000));

test('at a phone’s size: Queue beside a waiting agent in the inbox; the badge there and on the full-screen bar', async () => {
  const helper = await agentIn('phone-queue', 'helper', 200);
  const options = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
  const { context, page } = await face.open(options);
  try {
    await asking(helper, 'long task');
    const line = page.locator('.phone-inbox .phone-line', { has: page.locator(`.phone-row[data-surface="${helper}"]`) });
    await line.locator('.phone-queue').tap();
    const box = page.locator(`.queue-box[data-surface="${helper}"]`);
    await box.locator('.queue-text').fill('then this');
    await box.locator('.queue-send').tap();
    await box.waitFor({ state: 'hidden' });
    const badge = line.locator('.phone-row .supervision .sup[data-kind="queued"]');
    await badge.waitFor();
    expect(await badge.textContent()).toBe('queued 1');
    await shot(page, 'phone-queued');
    await line.locator('.phone-row').tap();
    await page.locator(`.pane.solo[data-surface="${helper}"]`).waitFor();
    // While the turn lasts, the bar says so too; once answered, the prompt goes and the badge with it.
    await page.locator('.phone-bar .supervision').waitFor();
    expect(await page.locator('.phone-bar .supervision').textContent()).toBe('queued 1');
    await page.locator('.phone-answers button[data-answer="yes"]').tap();
    await until(async () => (await paneText(page, helper)).includes('thinking about: then this'), 'the queued prompt delivered');
    await page.locator('.phone-bar .supervision').waitFor({ state: 'detached' });
    expect(await page.locator('.phone-bar .queue-button').count()).toBe(1);
  } finally {
    await context.close();
  }
}, scaled(60_000));

test('a notice of the supervisor (queue held) is raised like the others while the page is not in front, worded as every face words it', async () => {
  const broken = await agentIn('holding', 'broken', 200);
  const { context, page } = await face.open({ viewport: { width: 1280, height: 800 } }, face.url, (context) => keepNotifications(context, face.url.origin));
  // Another window in front: the page loses the focus Playwright otherwise pretends it has.
  const front = await context.newPage();
  await front.bringToFront();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
  try {
    expect(await page.evaluate(() => document.hasFocus())).toBe(false);
    // The agent declares an error (no turn starts, so the submit is not confirmed); a prompt queued for it is held, not sent.
    await home.rpc('surface.send_text', { surface_id: broken, text: 'error', submit: true }).catch(() => undefined);
    await until(async () => (await state(broken)) === 'errored' || null, 'the agent errored');
    await home.rpc('queue.add', { surface_id: broken, text: 'try again' });
    const held = page.locator(`.agent[data-surface="${broken}"] .supervision .sup[data-kind="queue_held"]`);
    await held.waitFor();
    expect(await held.textContent()).toBe('queue held: errored (1 waiting)');
    expect(await held.getAttribute('title')).toBe('the fixture failed on purpose');
    const shown = async () => (await notificationsShown(page)).map(({ title, body }) => ({ title, body }));
    const notice = await until(async () => (await shown()).find((n) => n.title.startsWith('Queue held')) ?? null, 'the notification');
    expect(notice).toEqual({ title: 'Queue held: broken in holding', body: expect.stringContaining('the fixture failed on purpose') });
  } finally {
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
    await cdp.detach();
    await context.close();
  }
}, scaled(60_000));

test('at a phone’s size: what a rule answered follows the inbox, and its badge is under the agent', async () => {
  const tester = await agentIn('ruled', 'tester', 200);
  const options = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
  const { context, page } = await face.open(options);
  try {
    expect(home.run(['send', String(tester), 'run the tests permission', '--submit', '--scope', 'all']).code).toBe(0);
    const item = page.locator(`.phone-answered .answered-item[data-surface="${tester}"]`);
    await item.waitFor();
    expect(await item.locator('.head').textContent()).toMatch(/^\d\d:\d\d tester: answered 'yes' by rule 'tests'$/);
    expect(await item.locator('.message').textContent()).toBe('approve Bash: run the tests permission');
    const badge = page.locator(`.phone-agents .phone-row[data-surface="${tester}"] .sup[data-kind="answered"]`);
    await badge.waitFor();
    expect(await badge.textContent()).toMatch(/^answered 'yes' by rule 'tests' \d+s ago$/);
    expect(await badge.getAttribute('title')).toBe('approve Bash: run the tests permission');
    await shot(page, 'phone-answered-by-rule');
  } finally {
    await context.close();
  }
}, scaled(60_000));

test('a stall and a usage limit under their agents: in the sidebar with their facts in the tooltip, and in the phone’s rows', async () => {
  const silent = await agentIn('watching', 'silent', 200);
  const capped = await agentIn('capping', 'capped', 200);
  const { context, page } = await face.open({ viewport: { width: 1280, height: 800 } });
  const phone = await face.open({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  try {
    // The fixture's `stall`: working, then nothing at all.
    await home.rpc('surface.send_text', { surface_id: silent, text: 'stall', submit: true });
    const stalled = page.locator(`.agent[data-surface="${silent}"] .sup[data-kind="stalled"]`);
    await stalled.waitFor();
    expect(await stalled.textContent()).toMatch(/^stalled \d+s$/);
    expect(await stalled.getAttribute('title')).toMatch(/^no output \d+s, no CPU \d+s, no hook seen, no record \d+s$/);
    expect(await stalled.getAttribute('class')).toBe('sup warn');
    await shot(page, 'stalled');
    // Its output clears it.
    await home.rpc('surface.send_text', { surface_id: silent, text: 'x' });
    await stalled.waitFor({ state: 'detached' });

    // The fixture's `limit`: Claude Code's usage-limit line, its reset two minutes ahead, on the page's clock.
    await home.rpc('surface.send_text', { surface_id: capped, text: 'limit 120', submit: true }).catch(() => undefined);
    const limit = (await until(async () => (await home.rpc('surface.status', { surface_id: capped })).supervision?.limit ?? null, 'the limit seen'))!;
    const words = await page.evaluate((at) => {
      const reset = new Date(at);
      const clock = `${String(reset.getHours()).padStart(2, '0')}:${String(reset.getMinutes()).padStart(2, '0')}`;
      return reset.getDate() === new Date().getDate() ? `limit — resets ${clock}` : null;
    }, limit.resets_at_ms!);
    for (const where of [page.locator(`.agent[data-surface="${capped}"]`), phone.page.locator(`.phone-agents .phone-row[data-surface="${capped}"]`)]) {
      const badge = where.locator('.sup[data-kind="limit"]');
      await badge.waitFor();
      // Past midnight the weekday comes first: the words are then checked by their form alone.
      expect(await badge.textContent()).toMatch(words ? new RegExp(`^${words}$`) : /^limit — resets \w{3} \d\d:\d\d$/);
      expect(await badge.getAttribute('title')).toMatch(/You've hit your session limit · resets /);
    }
    await shot(phone.page, 'phone-limit');
  } finally {
    await context.close();
    await phone.context.close();
  }
}, scaled(60_000));
