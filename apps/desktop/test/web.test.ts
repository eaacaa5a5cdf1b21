// `paneflow web`, the real process (the built CLI) on a real instance, in Debian's Chromium at a
// desktop's size and at a phone's (device emulation): the same renderer, its API over a WebSocket.
import { makeHome, scaled, until, type Home } from '@paneflow/testing';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { dragScrollbar, keepNotifications, notificationsShown, screenRows, shot, startWebFace, type WebFace } from './harness';

const SHELL = 'PS1="ready$ " exec bash --norc --noprofile -i';

let home: Home;
let face: WebFace;
let url: URL;
let token: string;

beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  // No instance runs yet: `paneflow web` starts one, as the other verbs do.
  face = await startWebFace(home);
  ({ url } = face);
  token = url.searchParams.get('token')!;
}, scaled(60_000));
afterEach(() => {
  // A renderer exception fails the test it happened in.
  expect(face.errors.splice(0)).toEqual([]);
});
afterAll(async () => {
  if (face) expect(await face.stop()).toBe(0);
  home?.cleanup();
});

const open: WebFace['open'] = (...args) => face.open(...args);
const paneText = (page: Page, surface: number) => page.evaluate((id) => window.paneflowApp.paneText(id), surface);

/** One plain HTTP request to the server, with exactly these headers. */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, path, headers: { host: url.host, ...headers } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A WebSocket upgrade with these headers: the status it was refused with, or an open socket. */
function upgrade(path: string, headers: Record<string, string>): Promise<{ refused: number } | { socket: WebSocket }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://${url.host}${path}`, { headers });
    socket.once('unexpected-response', (_req, response) => {
      resolve({ refused: response.statusCode! });
      socket.terminate();
    });
    socket.once('open', () => resolve({ socket }));
    socket.once('error', (error) => reject(error));
  });
}

describe('paneflow web', () => {
  const cookieName = () => `paneflow-web-${url.port}`;
  const cookie = () => `${cookieName()}=${token}`;

  test('the token is needed for every request and upgrade; a foreign Origin or Host is refused', async () => {
    // No token, a wrong one (same length, and not), and the right one once: moved into a cookie.
    expect((await get('/')).status).toBe(403);
    expect((await get('/renderer.js')).status).toBe(403);
    expect((await get(`/?token=${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).status).toBe(403);
    expect((await get('/?token=short')).status).toBe(403);
    expect((await get('/', { cookie: `${cookieName()}=wrong` })).status).toBe(403);
    const first = await get(`/?token=${token}`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    expect(first.headers['set-cookie']).toEqual([`${cookie()}; Path=/; HttpOnly; SameSite=Strict`]);
    const page = await get('/', { cookie: cookie() });
    expect(page.status).toBe(200);
    expect(page.body).toContain('<script src="web.js"></script>');
    // With the token, but named by another host (DNS rebinding) or asked from another origin.
    expect((await get('/', { cookie: cookie(), host: `rebound.example:${url.port}` })).status).toBe(403);
    expect((await get('/renderer.js', { cookie: cookie(), origin: 'http://evil.example' })).status).toBe(403);
    expect((await get('/renderer.js', { cookie: cookie(), origin: `http://${url.host}` })).status).toBe(200);

    // The WebSocket: no token, a wrong one, another origin; then the right one, which answers.
    expect(await upgrade('/ws', { origin: `http://${url.host}` })).toEqual({ refused: 403 });
    expect(await upgrade('/ws', { origin: `http://${url.host}`, cookie: `${cookieName()}=${token.toUpperCase()}` })).toEqual({ refused: 403 });
    expect(await upgrade('/ws', { origin: 'http://evil.example', cookie: cookie() })).toEqual({ refused: 403 });
    expect(await upgrade('/ws', { origin: `http://localhost:${Number(url.port) + 1}`, cookie: cookie() })).toEqual({ refused: 403 });
    const opened = await upgrade('/ws', { origin: `http://${url.host}`, cookie: cookie() });
    if (!('socket' in opened)) throw new Error(`refused: ${JSON.stringify(opened)}`);
    const answer = new Promise<{ id: number; result: { protocol: number } }>((resolve) => opened.socket.once('message', (data) => resolve(JSON.parse(data.toString()))));
    opened.socket.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'request', params: ['serve.status', {}] }));
    expect(await answer).toMatchObject({ id: 7, result: { protocol: expect.any(Number) } });
    opened.socket.close();
  });

  test('--bind takes an IP address and --port 0-65535: anything else is a usage error (exit 2); a port in use is refused (exit 1)', () => {
    const name = home.run(['web', '--bind', 'rebound.example']);
    expect({ code: name.code, stderr: name.stderr }).toEqual({ code: 2, stderr: "paneflow: --bind needs an IP address (such as 127.0.0.1 or ::1), not 'rebound.example'\n" });
    const port = home.run(['web', '--port', '70000']);
    expect({ code: port.code, stderr: port.stderr }).toEqual({ code: 2, stderr: 'paneflow: --port is 0-65535, not 70000\nusage: paneflow web [--bind ADDR] [--port N]\n' });
    const taken = home.run(['web', '--port', url.port]);
    expect({ code: taken.code, stderr: taken.stderr }).toEqual({ code: 1, stderr: `paneflow: cannot listen on 127.0.0.1 port ${url.port}: it is in use\n` });
  });

  test('a page of another origin on the same host cannot open the socket, even with the cookie in the browser', async () => {
    const { context, page } = await open();
    // A page served from another port of 127.0.0.1 is the same site: the browser sends the cookie along.
    const other = await new Promise<{ server: import('node:http').Server; origin: string }>((resolve) => {
      const server = require('node:http').createServer((_: unknown, res: import('node:http').ServerResponse) => res.end('<!doctype html><title>other</title>')) as import('node:http').Server;
      server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` }));
    });
    try {
      const foreign = await context.newPage();
      await foreign.goto(other.origin);
      const outcome = await foreign.evaluate(
        (target) =>
          new Promise<string>((resolve) => {
            const ws = new window.WebSocket(`ws://${target}/ws`);
            ws.onopen = () => resolve('opened');
            ws.onclose = () => resolve('refused');
          }),
        url.host,
      );
      expect(outcome).toBe('refused');
      // The page of the web face itself, in the same browser, is connected.
      expect(await page.evaluate(() => document.body.dataset.socket)).toBe('open');
    } finally {
      other.server.close();
      await context.close();
    }
  });

  test('at a desktop’s size: the renderer as in the app, and typing into a shell', async () => {
    const { context, page } = await open({ viewport: { width: 1280, height: 800 } });
    try {
      // The address bar no longer holds the token.
      expect(page.url()).toBe(`http://${url.host}/`);
      const up = await home.rpc('workspace.up', { name: 'web-shells', layout: 'even_h', panes: [{ name: 'sh', command: SHELL, cwd: home.dir, focus: true, env: {} }] });
      const shell = up.surfaces[0].surface_id;
      await until(async () => (await paneText(page, shell)).includes('ready$'), 'the prompt in the mirror');
      expect(await page.locator('.sidebar').isVisible()).toBe(true);
      expect(await page.locator('.phone-home').isVisible()).toBe(false);
      await page.locator(`.pane[data-surface="${shell}"] .term-host`).click();
      await page.keyboard.type('echo web-$((6*7))');
      await page.keyboard.press('Enter');
      await until(async () => /^web-42$/m.test(await paneText(page, shell)), 'the output in the mirror');
      expect((await home.rpc('surface.read', { surface_id: shell, fenced: false })).text).toMatch(/^web-42$/m);
    } finally {
      await context.close();
    }
  });

  test('at a desktop’s size, a waiting agent’s answers show under its pane’s header: clicking Yes answers a permission prompt, a typed answer a question', async () => {
    const { context, page } = await open({ viewport: { width: 1280, height: 800 } });
    try {
      const up = await home.rpc('workspace.up', { name: 'desk-agent', layout: 'even_h', panes: [{ name: 'lead', command: 'claude --work-ms 300', cwd: home.dir, focus: true, env: {} }] });
      const agent = up.surfaces[0].surface_id;
      const answers = page.locator(`.pane[data-surface="${agent}"] .pane-answers`);
      const state = async () => (await home.rpc('surface.status', { surface_id: agent })).state;
      await until(async () => (await home.rpc('surface.status', { surface_id: agent })).reason === 'declared' || null, 'the agent declares');
      expect(await answers.isHidden()).toBe(true);

      expect(home.run(['send', String(agent), 'deploy permission', '--submit', '--scope', 'all'])).toMatchObject({ code: 0 });
      await answers.locator('button[data-answer="yes"]').waitFor();
      expect(await answers.locator('.message').textContent()).toBe('permission · approve Bash: deploy permission');
      expect(await answers.locator('button.answer').allTextContents()).toEqual(['Yes', 'Always', 'No']);
      await until(async () => (await paneText(page, agent)).includes('1. Yes'), 'the menu in the terminal');
      await answers.locator('button[data-answer="yes"]').click();
      await until(async () => (await paneText(page, agent)).includes('allowed'), 'the menu answered with yes');
      await until(async () => (await state()) === 'finished' || null, 'the turn over');
      await answers.waitFor({ state: 'hidden' });

      expect(home.run(['send', String(agent), 'ship it question', '--submit', '--scope', 'all'])).toMatchObject({ code: 0 });
      const field = answers.locator('.text-answer input');
      await field.waitFor();
      expect(await answers.locator('.message').textContent()).toBe('question · which name? (ship it question)');
      await field.fill('use the name atlas');
      await field.press('Enter');
      await until(async () => /^answer: use the name atlas$/m.test(await paneText(page, agent)), 'the typed answer reached the agent');
      await answers.waitFor({ state: 'hidden' });
      await home.rpc('surface.close', { surface_id: agent });
    } finally {
      await context.close();
    }
  });

  test('at a desktop’s size, the host’s deeper history comes over the socket when the view reaches the top of the mirror', async () => {
    const { context, page } = await open({ viewport: { width: 1280, height: 800 } });
    try {
      const up = await home.rpc('workspace.up', { name: 'web-deep', layout: 'even_h', panes: [{ name: 'deep', command: `seq -f 'web-%06g' 1 25000; ${SHELL}`, cwd: home.dir, focus: true, env: {} }] });
      const deep = up.surfaces[0].surface_id;
      await until(async () => /^web-025000$[\s\S]*ready\$/m.test(await paneText(page, deep)), 'the last line and the prompt in the mirror');
      const box = page.locator(`.pane[data-surface="${deep}"] .term-host`);
      await dragScrollbar(page, box.locator(':scope > .xterm'), 'top');
      const history = box.locator('.term-history');
      await history.waitFor({ state: 'visible' });
      await dragScrollbar(page, history, 'top');
      await until(async () => (await screenRows(history))[0] === 'web-000001', 'the first line, 25,000 lines back');
      await history.locator('.history-bar button').click();
      await history.waitFor({ state: 'detached' });
      await home.rpc('surface.close', { surface_id: deep });
    } finally {
      await context.close();
    }
  });

  test('a dropped socket is opened again: terminals attach again and the model comes back (through a forwarded port, as with ssh -L)', async () => {
    // A TCP forwarder on another port, as `ssh -L` is: the browser's Host and Origin name its port.
    const links = new Set<Socket>();
    const forwarder: Server = createServer((client) => {
      const upstream = require('node:net').connect(Number(url.port), '127.0.0.1') as Socket;
      links.add(client).add(upstream);
      client.pipe(upstream).pipe(client);
      const end = () => {
        client.destroy();
        upstream.destroy();
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
    });
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
    const via = new URL(url.href);
    via.port = String((forwarder.address() as { port: number }).port);
    const { context, page } = await open({ viewport: { width: 1280, height: 800 } }, via);
    try {
      const up = await home.rpc('workspace.up', { name: 'web-drop', layout: 'even_h', panes: [{ name: 'drop-sh', command: SHELL, cwd: home.dir, focus: true, env: {} }] });
      const shell = up.surfaces[0].surface_id;
      await until(async () => (await paneText(page, shell)).includes('ready$'), 'the prompt in the mirror');
      for (const link of links) link.destroy();
      await page.waitForSelector('body[data-socket="closed"]');
      await page.waitForSelector('body[data-socket="open"]', { timeout: 15_000 });
      await page.waitForSelector('body[data-serve="up"]', { timeout: 15_000 });
      await page.locator(`.pane[data-surface="${shell}"] .term-host`).click();
      await page.keyboard.type('echo back-$((40+2))');
      await page.keyboard.press('Enter');
      await until(async () => /^back-42$/m.test(await paneText(page, shell)), 'output after the reconnect');
    } finally {
      await context.close();
      forwarder.close();
      for (const link of links) link.destroy();
    }
  });

  describe('at a phone’s size', () => {
    let context: BrowserContext;
    let page: Page;
    beforeAll(async () => {
      const options = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
      ({ context, page } = await open(options, url, (context) => keepNotifications(context, url.origin)));
    });
    afterAll(async () => {
      await context?.close();
    });

    test('a full agent turn from the inbox: its row first, one tap opens its terminal, tapping Yes answers it', async () => {
      const up = await home.rpc('workspace.up', {
        name: 'phone',
        layout: 'even_h',
        panes: [
          { name: 'helper', command: SHELL, cwd: home.dir, focus: true, env: {} },
          { name: 'asker', command: 'claude --work-ms 1500', cwd: home.dir, focus: false, env: {} },
        ],
      });
      const agent = up.surfaces[1].surface_id;
      // The lists, not the sidebar and the split tree.
      expect(await page.locator('.sidebar').isVisible()).toBe(false);
      expect(await page.locator('.panes').isVisible()).toBe(false);
      await page.locator(`.phone-agents .phone-row[data-surface="${agent}"][data-mark="none"]`).waitFor();
      await shot(page, 'phone-agents');
      expect(home.run(['send', String(agent), 'please ask permission', '--submit', '--scope', 'all'])).toMatchObject({ code: 0 });
      const item = page.locator(`.phone-inbox .inbox-item[data-surface="${agent}"]`);
      await item.waitFor();
      expect(await item.locator('.message').textContent()).toBe('permission · approve Bash: please ask permission');
      expect(await item.locator('.workspace').textContent()).toBe('phone');
      expect(await page.locator(`.phone-agents .phone-row[data-surface="${agent}"]`).count()).toBe(0);
      await shot(page, 'phone-inbox');

      await item.tap();
      await page.locator(`.pane.solo[data-surface="${agent}"]`).waitFor();
      expect(await page.locator(`.phone-bar .title`).textContent()).toBe('asker');
      expect(await page.locator('.pane:visible').count()).toBe(1);
      await until(async () => (await paneText(page, agent)).includes('1. Yes'), 'the permission menu in the terminal');
      const yes = page.locator('.phone-answers button[data-answer="yes"]');
      await yes.waitFor();
      await shot(page, 'phone-answer');
      await yes.tap();
      await until(async () => (await home.rpc('surface.status', { surface_id: agent })).state !== 'waiting_for_input', 'the agent no longer waiting');
      await until(async () => (await paneText(page, agent)).includes('allowed'), 'its menu answered with yes');
      // Serve's inbox, read again once the wait has ended, takes the buttons away.
      await until(async () => (await page.locator('.phone-answers button').count()) === 0, 'the answer buttons gone');
      // Back to the lists: the inbox is empty, the agent's turn goes on to its end.
      await page.locator('.phone-bar .back').tap();
      await page.locator('.phone-inbox .empty').waitFor();
      await until(async () => (await home.rpc('surface.status', { surface_id: agent })).state === 'finished', 'the turn over');
    });

    test('typing into a shell, and the key row: Ctrl-C stops a program, ↑ recalls the last line, Tab completes, ← and → edit, Esc', async () => {
      const { surfaces } = await home.rpc('surface.list', { scope: 'all' });
      const shell = surfaces.find((s) => s.name === 'helper')!.surface_id;
      await page.locator(`.phone-panes .phone-row[data-surface="${shell}"]`).tap();
      await page.locator(`.pane.solo[data-surface="${shell}"]`).waitFor();
      await until(async () => (await paneText(page, shell)).includes('ready$'), 'the prompt');
      await page.locator(`.pane[data-surface="${shell}"] .term-host`).tap();
      await page.keyboard.type('echo phone-$((6*7))');
      await page.keyboard.press('Enter');
      await until(async () => /^phone-42$/m.test(await paneText(page, shell)), 'the output');
      // Short enough not to wrap on a phone's width.
      await page.keyboard.type('echo started; sleep 600');
      await page.keyboard.press('Enter');
      await until(async () => /^started$/m.test(await paneText(page, shell)), 'sleep running');
      await shot(page, 'phone-shell');
      await page.locator('.phone-keys button[data-key="ctrl-c"]').tap();
      await until(async () => /\^C\s*ready\$$/.test((await paneText(page, shell)).trimEnd()), 'the prompt again after Ctrl-C');
      await page.locator('.phone-keys button[data-key="up"]').tap();
      await until(async () => /ready\$ echo started; sleep 600$/.test((await paneText(page, shell)).trimEnd()), 'the last line recalled by ↑');
      await page.locator('.phone-keys button[data-key="ctrl-c"]').tap();
      await until(async () => /\^C\s*ready\$$/.test((await paneText(page, shell)).trimEnd()), 'the recalled line dropped by Ctrl-C');
      // Tab completes as a keyboard's Tab does in bash; ← and → move along the line.
      await page.keyboard.type('ech');
      await page.locator('.phone-keys button[data-key="tab"]').tap();
      await until(async () => /ready\$ echo $/.test((await paneText(page, shell)).trimEnd() + ' '), 'bash completed echo');
      await page.keyboard.type('ac');
      await page.locator('.phone-keys button[data-key="left"]').tap();
      await page.keyboard.type('b');
      await page.locator('.phone-keys button[data-key="right"]').tap();
      await page.keyboard.type('d');
      await page.keyboard.press('Enter');
      await until(async () => /^abcd$/m.test(await paneText(page, shell)), 'the line edited with ← and →');
      // A program in application cursor-key mode gets ESC O A for ↑, as a keyboard's would send (the tty echoes it as ^[OA).
      // The word printed with the mode shows the page has the mode before ↑ is tapped.
      await page.keyboard.type("printf '\\033[?1hkeys\\n'; cat");
      await page.keyboard.press('Enter');
      await until(async () => /^keys$/m.test(await paneText(page, shell)), 'the mode set');
      await page.locator('.phone-keys button[data-key="up"]').tap();
      await until(async () => /^\^\[OA$/m.test(await paneText(page, shell)), 'ESC O A', 10_000);
      await page.locator('.phone-keys button[data-key="escape"]').tap();
      await until(async () => /^\^\[OA\^\[$/m.test(await paneText(page, shell)), 'ESC after it', 10_000);
      await page.locator('.phone-keys button[data-key="ctrl-c"]').tap();
      await page.keyboard.type("printf '\\033[?1l'");
      await page.keyboard.press('Enter');
    }, scaled(60_000));

    test('a wait while the page is not in front raises one browser notification; clicking it opens the pane', async () => {
      const shown = () => notificationsShown(page);
      await page.locator('.phone-bar .back').tap();
      const agent = (await home.rpc('surface.list', { scope: 'all' })).surfaces.find((s) => s.name === 'asker')!.surface_id;
      const before = (await shown()).length;
      // Another window in front: the page loses the focus Playwright otherwise pretends it has.
      const front = await context.newPage();
      await front.bringToFront();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
      try {
        expect(await page.evaluate(() => document.hasFocus())).toBe(false);
        expect(home.run(['send', String(agent), 'again permission', '--submit', '--scope', 'all'])).toMatchObject({ code: 0 });
        await page.locator(`.phone-inbox .inbox-item[data-surface="${agent}"]`).waitFor();
        const mine = await until(async () => {
          const notices = (await shown()).slice(before).filter((n) => n.tag === `paneflow-${agent}`);
          return notices.length > 0 ? notices : null;
        }, 'a notification');
        expect(mine).toEqual([{ title: 'Needs input: asker in phone', body: expect.stringContaining('approve Bash: again permission'), tag: `paneflow-${agent}` }]);
        await page.evaluate(() => {
          const { shown } = window as unknown as { shown: Array<{ notification: Notification }> };
          shown.at(-1)!.notification.onclick!(new Event('click'));
        });
        await page.locator(`.pane.solo[data-surface="${agent}"]`).waitFor({ timeout: 10_000 });
        expect(await page.locator('.phone-answers button[data-answer="yes"]').count()).toBe(1);
        await page.locator('.phone-answers button[data-answer="no"]').tap();
        await until(async () => (await home.rpc('surface.status', { surface_id: agent })).state !== 'waiting_for_input', 'answered no');
        // One notification for the one wait.
        expect((await shown()).slice(before).filter((n) => n.tag === `paneflow-${agent}`)).toHaveLength(1);
      } finally {
        await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: true });
        await cdp.detach();
        await front.close();
      }
    });
  });
});
