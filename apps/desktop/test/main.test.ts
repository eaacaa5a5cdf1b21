// Electron's main process and preload, loaded by plain Node with `electron` mocked: no Electron
// runtime can be installed here, so what they decide is checked as calls on the mock.
import { windowOptions, CALLS, channel } from '../src/main/window';

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
const ensureServe = jest.fn(async () => ({ pid: 1 }));
jest.mock('@paneflow/instance/bootstrap', () => ({ ensureServe }));

beforeEach(() => jest.clearAllMocks());

describe('the preload', () => {
  test('exposes one narrow API as window.paneflow, every call an invoke on a paneflow: channel', async () => {
    jest.isolateModules(() => require('../src/main/preload'));
    expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [name, api] = electron.contextBridge.exposeInMainWorld.mock.calls[0] as unknown as [string, Record<string, (...args: unknown[]) => unknown>];
    expect(name).toBe('paneflow');
    expect(Object.keys(api).sort()).toEqual(['attach', 'input', 'notify', 'onFocusSurface', 'request', 'resize', 'subscribe']);
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

  test('a second instance quits at once and opens nothing', async () => {
    electron.app.requestSingleInstanceLock.mockReturnValue(false);
    const { start } = jest.requireActual('../src/main/main') as typeof import('../src/main/main');
    await start();
    expect(electron.app.quit).toHaveBeenCalled();
    expect(electron.BrowserWindow).not.toHaveBeenCalled();
    expect(ensureServe).not.toHaveBeenCalled();
  });

  test('the first instance starts Paneflow if none runs, opens the window, handles every call of the API, and shows notices', async () => {
    electron.app.requestSingleInstanceLock.mockReturnValue(true);
    const window = { isDestroyed: () => false, webContents: { send: jest.fn(), on: jest.fn() }, loadFile: jest.fn(async () => undefined), show: jest.fn(), focus: jest.fn(), isMinimized: () => false, restore: jest.fn() };
    electron.BrowserWindow.mockImplementation(() => window);
    const { start } = jest.requireActual('../src/main/main') as typeof import('../src/main/main');
    await start();
    expect(ensureServe).toHaveBeenCalledTimes(1);
    expect(electron.BrowserWindow).toHaveBeenCalledWith(expect.objectContaining({ webPreferences: expect.objectContaining({ contextIsolation: true, nodeIntegration: false }) }));
    expect(electron.ipcMain.handle.mock.calls.map((c) => (c as unknown[])[0])).toEqual(CALLS.map(channel));
    expect(window.webContents.on.mock.calls.map((c) => (c as unknown[])[0]).sort()).toEqual(['did-start-loading', 'render-process-gone']);
    expect(window.loadFile).toHaveBeenCalledWith(expect.stringMatching(/renderer\/index\.html$/));
    expect(electron.app.on.mock.calls.map((c) => (c as unknown[])[0]).sort()).toEqual(['second-instance', 'window-all-closed']);

    // A notice from the renderer becomes a native notification; clicking it brings the pane forward.
    const shown = { on: jest.fn(), show: jest.fn() };
    electron.Notification.mockImplementation(() => shown);
    const notify = (electron.ipcMain.handle.mock.calls as unknown as Array<[string, (...args: unknown[]) => Promise<unknown>]>).find(([name]) => name === 'paneflow:notify')![1];
    await notify({}, { title: 'agent', body: 'Tests pass.', surface_id: 3 });
    expect(electron.Notification).toHaveBeenCalledWith({ title: 'agent', body: 'Tests pass.' });
    expect(shown.show).toHaveBeenCalled();
    (shown.on.mock.calls[0] as unknown as [string, () => void])[1]();
    expect(window.webContents.send).toHaveBeenCalledWith('paneflow:focus', 3);
  });
});
