// Electron's main process, kept thin: one window, a menu, native notifications, the
// single-instance lock, and an instance started if none runs. Everything else is the bridge.
import { ensureServe } from '@paneflow/instance/bootstrap';
import { startupTrace } from '@paneflow/instance/desktop';
import { resolveEndpoints } from '@paneflow/instance/endpoints';
import { app, BrowserWindow, ipcMain, Menu, Notification } from 'electron';
import { join } from 'node:path';
import { InstanceClient } from '@paneflow/client';
import { dispatcher } from '../dispatch';
import { CALLS } from '../api';
import { channel, windowOptions } from './window';

export async function start(): Promise<void> {
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return;
  }
  const trace = startupTrace();
  await app.whenReady();
  trace('electron ready');
  const endpoints = resolveEndpoints(process.env);
  await ensureServe(endpoints);
  trace('instance ready');
  const window = new BrowserWindow(windowOptions(__dirname));
  trace('window created');
  const bridge = new InstanceClient(endpoints);
  const push = (name: string, ...args: unknown[]) => {
    if (!window.isDestroyed()) window.webContents.send(channel(name), ...args);
  };
  const calls = dispatcher(bridge, push, (notice) => {
    const shown = new Notification({ title: notice.title, body: notice.body });
    shown.on('click', () => {
      window.show();
      window.focus();
      push('focus', notice.surface_id, notice.machine ?? null);
    });
    shown.show();
  });
  for (const call of CALLS) ipcMain.handle(channel(call), (_event, ...args: unknown[]) => calls.call(call, args));
  // A reloaded or crashed renderer starts over: what the old page followed ends with it.
  window.webContents.on('did-start-loading', () => bridge.reset());
  window.webContents.on('render-process-gone', () => bridge.reset());
  app.on('second-instance', () => {
    if (window.isMinimized()) window.restore();
    window.focus();
  });
  app.on('window-all-closed', () => {
    bridge.close();
    app.quit();
  });
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      { role: 'fileMenu' as const },
      { role: 'editMenu' as const },
      { label: 'View', submenu: [{ role: 'reload' as const }, { role: 'toggleDevTools' as const }, { role: 'togglefullscreen' as const }] },
    ]),
  );
  await window.loadFile(join(__dirname, 'renderer/index.html'));
  trace('renderer loaded');
}

if (require.main === module) void start();
