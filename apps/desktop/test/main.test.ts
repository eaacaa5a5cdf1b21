// Electron's main process and preload, loaded by plain Node: no Electron runtime can be installed
// here, so Electron alone is mocked and what they decide is checked as calls on the mock. The rest
// is real: the main process starts a real instance in a temp home and answers the renderer's calls
// from it.
import { resolveEndpoints } from '@paneflow/instance';
import { isListening } from '@paneflow/rpc';
import { makeHome, processesOfHome, ROOT, type Home } from '@paneflow/testing';
import { join } from 'node:path';
import { CALLS } from '../src/api';
import { windowOptions, channel } from '../src/main/window';

const electron = {
  contextBridge: { exposeInMainWorld: jest.fn() },
  ipcRenderer: { invoke: jest.fn(async () => 'answer'), on: jest.fn() },
  app: { requestSingleInstanceLock: jest.fn(), quit: jest.fn(), whenReady: jest.fn(async () => undefined), on: jest.fn() },
  ipcMain: { handle: jest.fn() },
  BrowserWindow: jest.fn(),
  Menu: { setApplicationMenu: jest.fn(), buildFromTemplate: jest.fn((t: unknown) => t) },
  Notification: jest.fn(),
};
jest.mock('electron', () => electron, { virtual: true });

let home: Home;
const saved = { ...process.env };
/** The handler the main process registered for an `app.on` event, or for an IPC channel. */
const appEvent = (name: string) => (electron.app.on.mock.calls as unknown as Array<[string, () => void]>).find(([event]) => event === name)?.[1];
const ipcHandler = (name: string) => (electron.ipcMain.handle.mock.calls as unknown as Array<[string, (...args: unknown[]) => Promise<unknown>]>).find(([event]) => event === name)![1];

beforeAll(() => {
  home = makeHome();
  // The main process reads its environment as Electron would give it: the temp home's, with
  // serve's bundle named (in a packaged app it would sit beside the main script; here argv[1] is jest).
  for (const key of Object.keys(process.env)) if (!(key in home.env)) delete process.env[key];
  Object.assign(process.env, home.env, { PANEFLOW_SERVE_BIN: join(ROOT, 'apps/serve/dist/paneflow-serve.cjs') });
});
beforeEach(() => jest.clearAllMocks());
afterAll(() => {
  // What the main process opened (its bridge to the instance) closes with its last window.
  appEvent('window-all-closed')?.();
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  Object.assign(process.env, saved);
  home?.cleanup();
});

describe('the preload', () => {
  test('exposes one narrow API as window.paneflow, every call an invoke on a paneflow: channel', async () => {
    jest.isolateModules(() => require('../src/main/preload'));
    expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [name, api] = electron.contextBridge.exposeInMainWorld.mock.calls[0] as unknown as [string, Record<string, (...args: unknown[]) => unknown>];
    expect(name).toBe('paneflow');
    expect(Object.keys(api).sort()).toEqual(['attach', 'history', 'input', 'notify', 'onFocusSurface', 'request', 'resize', 'settle', 'subscribe']);
    expect(await api.request('fleet.list', {})).toBe('answer');
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledWith('paneflow:request', 'fleet.list', {});
    await api.input('s-1', 'ls\r');
    expect(electron.ipcRenderer.invoke).toHaveBeenCalledWith('paneflow:input', 's-1', 'ls\r');
    expect(electron.ipcRenderer.on.mock.calls.map((c) => (c as unknown[])[0]).sort()).toEqual(['paneflow:end', 'paneflow:frame', 'paneflow:mirror']);
  });
});

describe('the main process', () => {
  test('the window isolates its renderer: contextIsolation on, nodeIntegration off, sandboxed, the preload its door', () => {
    expect(windowOptions('/app/dist').webPreferences).toEqual({ preload: '/app/dist/preload.cjs', contextIsolation: true, nodeIntegration: false, sandbox: true });
  });

  test('a second instance quits at once, opens nothing and starts nothing', async () => {
    electron.app.requestSingleInstanceLock.mockReturnValue(false);
    const { start } = jest.requireActual('../src/main/main') as typeof import('../src/main/main');
    await start();
    expect(electron.app.quit).toHaveBeenCalled();
    expect(electron.BrowserWindow).not.toHaveBeenCalled();
    expect(await isListening(resolveEndpoints(home.env).publicSocket)).toBe(false);
    expect(processesOfHome(home.dir, home.env.PANEFLOW_HOME!)).toEqual([]);
  });

  test('the first instance starts Paneflow if none runs, opens the window, handles every call of the API from that instance, and shows notices', async () => {
    expect(await isListening(resolveEndpoints(home.env).publicSocket)).toBe(false);
    electron.app.requestSingleInstanceLock.mockReturnValue(true);
    const window = { isDestroyed: () => false, webContents: { send: jest.fn(), on: jest.fn() }, loadFile: jest.fn(async () => undefined), show: jest.fn(), focus: jest.fn(), isMinimized: () => false, restore: jest.fn() };
    electron.BrowserWindow.mockImplementation(() => window);
    const { start } = jest.requireActual('../src/main/main') as typeof import('../src/main/main');
    await start();
    // A real serve (and through it a host) of this home, started by the main process.
    const serve = await home.rpc('serve.status', {});
    expect(serve.home).toBe(home.env.PANEFLOW_HOME);
    expect(processesOfHome(home.dir, home.env.PANEFLOW_HOME!).map((p) => p.cmdline)).toEqual(expect.arrayContaining([expect.stringMatching(/paneflow-serve/), expect.stringMatching(/paneflow-host/)]));
    expect(electron.BrowserWindow).toHaveBeenCalledWith(expect.objectContaining({ webPreferences: expect.objectContaining({ contextIsolation: true, nodeIntegration: false }) }));
    expect(electron.ipcMain.handle.mock.calls.map((c) => (c as unknown[])[0])).toEqual(CALLS.map(channel));
    expect(window.webContents.on.mock.calls.map((c) => (c as unknown[])[0]).sort()).toEqual(['did-start-loading', 'render-process-gone']);
    expect(window.loadFile).toHaveBeenCalledWith(expect.stringMatching(/renderer\/index\.html$/));
    expect(electron.app.on.mock.calls.map((c) => (c as unknown[])[0]).sort()).toEqual(['second-instance', 'window-all-closed']);

    // The renderer's request goes to that instance, through the main process's bridge.
    expect(await ipcHandler('paneflow:request')({}, 'serve.status', {})).toMatchObject({ pid: serve.pid, home: home.env.PANEFLOW_HOME });

    // A notice from the renderer becomes a native notification; clicking it brings the pane forward.
    const shown = { on: jest.fn(), show: jest.fn() };
    electron.Notification.mockImplementation(() => shown);
    await ipcHandler('paneflow:notify')({}, { title: 'agent', body: 'Tests pass.', surface_id: 3 });
    expect(electron.Notification).toHaveBeenCalledWith({ title: 'agent', body: 'Tests pass.' });
    expect(shown.show).toHaveBeenCalled();
    (shown.on.mock.calls[0] as unknown as [string, () => void])[1]();
    expect(window.webContents.send).toHaveBeenCalledWith('paneflow:focus', 3, null);
    // Another machine's pane (issue 32) is named with its machine: its id is not this machine's.
    await ipcHandler('paneflow:notify')({}, { title: 'Needs input: builder on devbox', body: '', surface_id: 3, machine: 'devbox' });
    (shown.on.mock.calls[1] as unknown as [string, () => void])[1]();
    expect(window.webContents.send).toHaveBeenLastCalledWith('paneflow:focus', 3, 'devbox');

    // The last window closed: the bridge closes and the app quits.
    appEvent('window-all-closed')!();
    expect(electron.app.quit).toHaveBeenCalled();
  });
});
