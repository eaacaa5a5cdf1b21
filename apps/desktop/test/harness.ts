// The renderer as a plain page: the built renderer served over HTTP to Debian's Chromium
// (playwright-core), and the preload's API bridged to an InstanceClient on a real instance.
import { resolveEndpoints } from '@paneflow/instance';
import { build } from 'esbuild';
import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { extname, join } from 'node:path';
import { ROOT, type Home } from '@paneflow/testing';
import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import type { Notice } from '../src/api';
import { InstanceClient } from '@paneflow/client';
import { dispatcher } from '../src/dispatch';

export const CHROMIUM = '/usr/bin/chromium';
// Paths from __dirname hold both here (test/) and in a bundle in dist/ (bench/desktop.mjs).
const RENDERER = join(__dirname, '../dist/renderer');
export const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json' };

function serveRenderer(): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = join(RENDERER, (request.url ?? '/').split('?')[0].replace(/^\/$/, '/index.html'));
    if (!path.startsWith(RENDERER) || !existsSync(path)) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
    createReadStream(path).pipe(response);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}/` })));
}

async function pageScript(): Promise<string> {
  const result = await build({ entryPoints: [join(__dirname, '../test/page-api.ts')], bundle: true, write: false, format: 'iife', platform: 'browser', target: 'chrome120', tsconfig: join(ROOT, 'tsconfig.base.json') });
  return result.outputFiles[0].text;
}

export interface Harness {
  page: Page;
  notices: Notice[];
  /** What went wrong in the page: renderer exceptions, pushes that failed. A test checks it is empty. */
  errors: string[];
  close(): Promise<void>;
}

/** Why Chromium at `path` did not start, in one line: Playwright's own message runs to dozens. */
function launchFailure(path: string, error: Error): Error {
  const reason = error.message.split('\n')[0].replace(/^browserType\.launch: /, '');
  // The browser's last complaint on stderr (a missing library, a bad flag) says most.
  const said = [...error.message.matchAll(/^\[pid=\d+\]\[err\] (.+)$/gm)].at(-1)?.[1];
  return new Error(`Chromium at ${path} did not start: ${reason}${said ? `; it said: ${said}` : ''}`);
}

/** The variable that marks the processes of one launch, so that a failed launch can end them. */
const MARK = 'PANEFLOW_HARNESS_BROWSER';

/**
 * Kills every process of a launch (the browser and what it started, all with `MARK=token` in their
 * environment). Playwright gives up a launch that hangs but waits 30 s more before it kills the
 * browser, and never if this process is killed first: the browser would outlive the test.
 */
function killLaunch(token: string): void {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (`\0${readFileSync(`/proc/${name}/environ`, 'utf8')}`.includes(`\0${MARK}=${token}\0`)) process.kill(Number(name), 'SIGKILL');
    } catch {
      // gone already, or not ours
    }
  }
}

/**
 * The renderer in a fresh Chromium page, on the instance of `env` (a test home's, a bench's). A
 * browser that has not started within `launchTimeoutMs` is killed and reported like any failed launch.
 */
export async function openDesktop(env: NodeJS.ProcessEnv, viewport = { width: 1280, height: 800 }, executablePath = CHROMIUM, launchTimeoutMs = 60_000): Promise<Harness> {
  const { server, url } = await serveRenderer();
  const bridge = new InstanceClient(resolveEndpoints(env));
  let browser: Browser | null = null;
  let closing = false;
  const close = async () => {
    closing = true;
    bridge.close();
    await browser?.close();
    server.close();
  };
  try {
    const token = randomUUID();
    // Playwright makes its temp directories before it looks for the program, and leaves them when there is none.
    if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: install Debian's chromium (apt-get install chromium)`);
    browser = await chromium.launch({ executablePath, args: FLAGS, timeout: launchTimeoutMs, env: { ...process.env, [MARK]: token } }).catch((error: Error) => {
      killLaunch(token);
      throw launchFailure(executablePath, error);
    });
    const page = await browser.newPage({ viewport });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const notices: Notice[] = [];
    const errors: string[] = [];
    // Pushes go in order, one evaluate after the other, as Electron's IPC keeps them.
    let queue = Promise.resolve();
    const push = (channel: string, ...args: unknown[]) => {
      queue = queue
        .then(() => page.evaluate(([c, a]) => (window as unknown as { __paneflowDeliver(c: string, a: unknown[]): void }).__paneflowDeliver(c, a), [channel, args] as const))
        .catch((error: Error) => {
          if (!closing) errors.push(`push ${channel}: ${error.message}`);
        });
    };
    const calls = dispatcher(bridge, push, (notice) => notices.push(notice));
    await page.exposeBinding('__paneflowInvoke', (_source, channel: string, args: unknown[]) => calls.call(channel, args));
    await page.addInitScript({ content: await pageScript() });
    page.on('pageerror', (error) => errors.push(`renderer: ${error.stack ?? error.message}`));
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]');
    return { page, notices, errors, close };
  } catch (error) {
    // A browser that failed to start or to load the page leaves nothing behind.
    await close().catch(() => undefined);
    throw error;
  }
}

/** The rows a terminal draws (xterm's DOM renderer), as the user sees them. */
export function screenRows(screen: Locator): Promise<string[]> {
  return screen.locator('.xterm-rows > div').allTextContents().then((texts) => texts.map((text) => text.trim()));
}

/** Drags a terminal's scrollbar to its top or bottom, as a person does through thousands of rows. */
export async function dragScrollbar(page: Page, screen: Locator, to: 'top' | 'bottom'): Promise<void> {
  const area = (await screen.boundingBox())!;
  // The scrollbar shows while the pointer is over the terminal.
  await page.mouse.move(area.x + area.width / 2, area.y + area.height / 2);
  const slider = (await screen.locator('.scrollbar.vertical > .slider').first().boundingBox())!;
  await page.mouse.move(slider.x + slider.width / 2, slider.y + slider.height / 2);
  await page.mouse.down();
  await page.mouse.move(slider.x + slider.width / 2, to === 'top' ? area.y - 40 : area.y + area.height + 40, { steps: 4 });
  await page.mouse.up();
}

// The screenshots in docs/ are written only when asked (`npx nx run desktop:screenshots`), so a
// test run leaves the work tree as it was.
const SCREENSHOTS = process.env.PANEFLOW_SCREENSHOTS === '1' ? join(ROOT, 'docs/screenshots') : null;

/** Saves what the page shows as docs/screenshots/<name>.png, only when asked (`PANEFLOW_SCREENSHOTS=1`). */
export async function shot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/**
 * The browser's notifications as the page makes them, kept on `window.shown` (each with its
 * `Notification`, to be clicked); `notificationsShown` reads them back.
 */
export async function keepNotifications(context: BrowserContext, origin: string): Promise<void> {
  await context.grantPermissions(['notifications'], { origin });
  await context.addInitScript(() => {
    const Real = window.Notification;
    const shown: Array<{ title: string; body: string; tag: string; notification: Notification }> = [];
    (window as unknown as { shown: typeof shown }).shown = shown;
    window.Notification = class extends Real {
      constructor(title: string, options: NotificationOptions = {}) {
        super(title, options);
        shown.push({ title, body: options.body ?? '', tag: options.tag ?? '', notification: this });
      }
    };
  });
}

/** The notifications `keepNotifications` kept so far, as data. */
export function notificationsShown(page: Page): Promise<Array<{ title: string; body: string; tag: string }>> {
  return page.evaluate(() => (window as unknown as { shown: Array<{ title: string; body: string; tag: string }> }).shown.map(({ title, body, tag }) => ({ title, body, tag })));
}

export interface WebFace {
  /** The URL `paneflow web` printed, its token included. */
  url: URL;
  /** The renderer's exceptions, in any page: a test checks it is empty. */
  errors: string[];
  /** A page of the web face in a fresh browser context, opened with the URL (through `via`, a forwarded port, if given). */
  open(options?: Parameters<Browser['newContext']>[0], via?: URL, prepare?: (context: BrowserContext) => Promise<void>): Promise<{ context: BrowserContext; page: Page }>;
  /** Closes the browser and ends `paneflow web` with SIGTERM: its exit code, or null if it had ended already. */
  stop(): Promise<number | null>;
}

/** The real `paneflow web` (the built CLI) on the home's instance (it starts one), and Debian's Chromium. */
export async function startWebFace(home: Home): Promise<WebFace> {
  const web = home.start(['web']);
  const url = new URL(await web.line((line) => line.startsWith('http://'), 30_000));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  const errors: string[] = [];
  return {
    url,
    errors,
    async open(options = {}, via = url, prepare) {
      const context = await browser.newContext(options);
      await prepare?.(context);
      const page = await context.newPage();
      page.on('pageerror', (error) => errors.push(`renderer: ${error.message}`));
      await page.goto(via.href);
      await page.waitForSelector('body[data-ready="true"]');
      return { context, page };
    },
    async stop() {
      await browser.close();
      if (web.child.exitCode !== null) return null;
      web.child.kill('SIGTERM');
      return web.exited;
    },
  };
}
