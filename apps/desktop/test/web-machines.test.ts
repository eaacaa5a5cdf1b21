// Another machine's agents in the renderer (issue 32), through `paneflow web` (the real process on
// a real instance) in Debian's Chromium at a desktop's size and at a phone's. The far machine is a
// second instance on this machine, reached by the local serve through `fakeSsh` on its PATH, which
// runs the remote command (`paneflow rpc --stdio`) in the far home: its agents in the sidebar under its name and in the
// phone's inbox, answered from here and seen to move in the far instance itself; its link's state
// when the link drops; a far pane with the local pane's id kept a row of its own.
import { fakeSsh, homeDestination, makeHome, scaled, until, type FakeSsh, type Home } from '@paneflow/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { keepNotifications, notificationsShown, shot, startWebFace, type WebFace } from './harness';

const GATES = { PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' };
const REFUSED = 'ssh: connect to host devbox port 22: Connection refused';

let local: Home;
let far: Home;
let face: WebFace;
/** The agent of each machine: the same surface id on both. */
let here: number;
let there: number;
let ssh: FakeSsh;

/**
 * Drops the running link: its ssh (the fake's process, found by its script's path) is killed, as
 * a network that went away would end it. Only processes of this test's fake ssh are touched.
 */
function dropLink(): void {
  const killed = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(ssh.path);
      } catch {
        return false;
      }
    });
  expect(killed.length).toBeGreaterThan(0);
  for (const pid of killed) process.kill(Number(pid), 'SIGKILL');
}

/** An agent in a workspace of its own, declaring, busy `workMs` per turn. */
async function agentIn(home: Home, workspace: string, name: string): Promise<number> {
  const up = await home.rpc('workspace.up', { name: workspace, layout: 'even_h', panes: [{ name, command: 'claude --work-ms 200', cwd: home.dir, focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await until(async () => (await home.rpc('surface.status', { surface_id: surface })).reason === 'declared' || null, `${name} declares`);
  return surface;
}

const farState = async () => (await far.rpc('surface.status', { surface_id: there })).state;
const localState = async () => (await local.rpc('surface.status', { surface_id: here })).state;

/** The far agent stops at a permission prompt (asked of the far instance itself), and this side sees it wait. */
async function farAsks(prompt: string): Promise<void> {
  // Each test stands alone: a wait another test left is answered there first, and its turn let end.
  if ((await farState()) === 'waiting_for_input') expect(far.run(['answer', String(there), 'yes']).code).toBe(0);
  await until(async () => ['idle', 'finished'].includes(await farState()) || null, 'the far agent between turns');
  expect(far.run(['send', String(there), `${prompt} permission`, '--submit', '--scope', 'all']).code).toBe(0);
  await until(async () => (await farState()) === 'waiting_for_input' || null, 'the far agent asking');
  await until(async () => (await local.rpc('fleet.inbox', {})).items.some((item) => item.machine === 'devbox') || null, 'the far wait in the local inbox');
}

beforeAll(async () => {
  far = makeHome(GATES);
  local = makeHome(GATES);
  // The far machine is a second instance: the local serve finds this `ssh` first on its PATH.
  ssh = fakeSsh(join(local.dir, 'bin'), { devbox: homeDestination(far) });
  expect(far.run(['start']).code).toBe(0);
  there = await agentIn(far, 'remote', 'builder');
  local.writeConfig({ machines: { devbox: { destination: 'devbox' } } });
  face = await startWebFace(local);
  here = await agentIn(local, 'local', 'lead');
  // The pane in front is another: bringing the local pane of the far agent's id forward would show.
  await local.rpc('workspace.up', { name: 'other', layout: 'even_h', panes: [{ name: 'shell', command: 'exec bash --norc --noprofile -i', cwd: local.dir, focus: true, env: {} }] });
  await local.rpc('workspace.select', { index: 1 });
  await until(async () => (await local.rpc('machine.list', {})).machines.find((m) => m.name === 'devbox' && m.state === 'connected'), 'devbox connected');
}, scaled(90_000));
afterEach(() => {
  expect(face.errors.splice(0)).toEqual([]);
});
afterAll(async () => {
  if (face) expect(await face.stop()).toBe(0);
  local?.cleanup();
  far?.cleanup();
});

test('at a desktop’s size: the far agent is under its machine in the sidebar, a row apart from the local pane of the same id; a click says where it is; its wait is answered from its row and notified naming its machine', async () => {
  // Both instances are fresh: their first panes have the same id.
  expect(there).toBe(here);
  const { context, page } = await face.open({ viewport: { width: 1280, height: 800 } }, face.url, (context) => keepNotifications(context, face.url.origin));
  const front = await context.newPage();
  const cdp = await context.newCDPSession(page);
  try {
    const farRow = page.locator(`.machine[data-machine="devbox"] .agent.far[data-surface="${there}"]`);
    const localRow = page.locator(`.agent:not(.far)[data-surface="${here}"]`);
    await farRow.waitFor();
    expect(await page.locator(`.agent[data-surface="${here}"]`).count()).toBe(2);
    expect(await farRow.locator('.name').textContent()).toBe('builder');
    expect(await localRow.locator('.name').textContent()).toBe('lead');
    expect(await page.locator('.machine[data-machine="devbox"] .machine-name').textContent()).toBe('devbox');
    // Connected: no word about the link.
    expect(await page.locator('.machine[data-machine="devbox"] .machine-link').count()).toBe(0);

    // Another window in front: the far wait is a browser notification naming its machine.
    await front.bringToFront();
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
    expect(await page.evaluate(() => document.hasFocus())).toBe(false);
    await farAsks('deploy');
    await until(async () => (await farRow.getAttribute('data-mark')) === 'need_you' || null, 'the far row waiting');
    const shown = () => notificationsShown(page);
    expect(await until(async () => (await shown()).find((n) => n.title.startsWith('Needs input')) ?? null, 'the notification')).toMatchObject({ title: 'Needs input: builder on devbox' });
    await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
    await page.bringToFront();
    // A click on the far row opens nothing here, and never the local pane with its id.
    const inFront = async () => (await local.rpc('workspace.list', {})).workspaces.filter((w) => w.active).map((w) => [w.name, w.focus]);
    const before = await inFront();
    expect(before[0][0]).toBe('other');
    await farRow.locator('.name').click();
    await page.locator('.notice', { hasText: 'builder is on devbox — use `paneflow attach --machine devbox`' }).waitFor();
    expect(await inFront()).toEqual(before);

    // The local agent with the same id did not move.
    expect(await localRow.getAttribute('data-mark')).not.toBe('need_you');
    expect(await localState()).not.toBe('waiting_for_input');
    const yes = farRow.locator('.far-answers button[data-answer="yes"]');
    await yes.waitFor();
    await shot(page, 'machines');
    await yes.click();
    await until(async () => (await farState()) !== 'waiting_for_input' || null, 'the far agent answered');
    await until(async () => (await farRow.getAttribute('data-mark')) !== 'need_you' || null, 'the far row moved on');
    expect(await localState()).not.toBe('waiting_for_input');
  } finally {
    await cdp.detach().catch(() => undefined);
    await context.close();
  }
}, scaled(90_000));

test('at a phone’s size: the far wait is in the inbox with its machine; a tap opens its answers (no terminal), and Yes moves the far agent', async () => {
  const { context, page } = await face.open({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  try {
    await farAsks('ship');
    const item = page.locator(`.phone-inbox .phone-row[data-machine="devbox"][data-surface="${there}"]`);
    await item.waitFor();
    expect(await item.locator('.name').textContent()).toBe('builder');
    expect(await item.locator('.workspace.machine').textContent()).toBe('devbox');
    // The local agent with the same id is its own row, among the agents.
    expect(await page.locator(`.phone-agents .phone-row:not([data-machine])[data-surface="${here}"] .name`).textContent()).toBe('lead');
    await shot(page, 'phone-machines');
    await item.tap();
    await page.locator('body[data-phone-view="far"]').waitFor();
    expect(await page.locator('.phone-bar .title').textContent()).toBe('builder');
    expect(await page.locator('.phone-bar .machine').textContent()).toBe('devbox');
    expect(await page.locator('.phone-far').textContent()).toBe('on devbox — use `paneflow attach --machine devbox`');
    // No terminal is shown for it, and no key row.
    expect(await page.locator('.panes').isVisible()).toBe(false);
    expect(await page.locator('.phone-keys').isVisible()).toBe(false);
    await shot(page, 'phone-machine-answer');
    await page.locator('.phone-answers[data-machine="devbox"] button[data-answer="yes"]').tap();
    await until(async () => (await farState()) !== 'waiting_for_input' || null, 'the far agent answered from the phone');
    await page.locator(`.phone-inbox .phone-row[data-machine="devbox"]`).waitFor({ state: 'detached' });
    expect(await localState()).not.toBe('waiting_for_input');
  } finally {
    await context.close();
  }
}, scaled(90_000));

test('the digest names a far agent’s machine, and its turns open from that machine’s ledger', async () => {
  // A far turn since the last look: asked, answered there, ended.
  await farAsks('report');
  expect(far.run(['answer', String(there), 'yes']).code).toBe(0);
  await until(async () => ['idle', 'finished'].includes(await farState()) || null, 'the far turn ended');
  const { context, page } = await face.open({ viewport: { width: 1280, height: 800 } });
  try {
    const row = page.locator(`.digest .digest-row[data-machine="devbox"][data-surface="${there}"]`);
    await row.waitFor();
    expect(await row.locator('.name').textContent()).toBe('builder on devbox');
    await row.click();
    const panel = page.locator(`.turns-panel[data-machine="devbox"][data-surface="${there}"]`);
    await panel.waitFor();
    expect(await panel.locator('.title').textContent()).toBe('Turns · builder on devbox');
    // The far agent's turns, not those of the local pane with its id (which has none).
    await panel.locator('.turn-row .prompt', { hasText: 'report permission' }).waitFor();
    await panel.locator('.turn-row', { hasText: 'report permission' }).click();
    await until(async () => (await panel.getAttribute('data-view')) === 'turn' || null, 'the far turn opened');
    await panel.locator('.turns-body', { hasText: 'report permission' }).waitFor();
  } finally {
    await context.close();
  }
}, scaled(90_000));

test('a link that drops shows its machine’s state, ssh’s reason and the age of its rows, in the sidebar and on the phone; back when it is', async () => {
  const desk = await face.open({ viewport: { width: 1280, height: 800 } });
  const phone = await face.open({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const linkLine = (page: Page) => page.locator('.phone-home .machine-link');
  try {
    await desk.page.locator(`.machine[data-machine="devbox"][data-state="connected"] .agent.far[data-surface="${there}"]`).waitFor();
    // The far host is gone for ssh; the running link drops.
    ssh.set('devbox', { behaviour: 'refuse' });
    dropLink();
    const group = desk.page.locator('.machine[data-machine="devbox"]:not([data-state="connected"])');
    await group.waitFor();
    await until(async () => ((await group.locator('.machine-link').textContent()) ?? '').includes(REFUSED) || null, 'ssh’s reason in the sidebar');
    expect(await group.locator('.machine-link').textContent()).toMatch(/^devbox — (reconnecting|offline) \d+s: ssh: connect to host devbox port 22: Connection refused · as of \d+s ago$/);
    // Its agent is still listed, as last seen.
    expect(await group.locator(`.agent.far[data-surface="${there}"] .name`).textContent()).toBe('builder');
    await until(async () => ((await linkLine(phone.page).textContent()) ?? '').includes(REFUSED) || null, 'ssh’s reason on the phone');
    expect(await linkLine(phone.page).getAttribute('data-machine')).toBe('devbox');
    await shot(desk.page, 'machine-reconnecting');

    ssh.set('devbox', homeDestination(far));
    await desk.page.locator('.machine[data-machine="devbox"][data-state="connected"]').waitFor({ timeout: scaled(60_000) });
    expect(await desk.page.locator('.machine[data-machine="devbox"] .machine-link').count()).toBe(0);
    await phone.page.locator('.phone-home .machine-link').waitFor({ state: 'detached' });
  } finally {
    ssh.set('devbox', homeDestination(far));
    await desk.context.close();
    await phone.context.close();
  }
}, scaled(120_000));
