// The preload: the renderer's only door, one narrow API (api.ts) with contextIsolation on.
import { contextBridge, ipcRenderer } from 'electron';
import { createApi } from '../api';

contextBridge.exposeInMainWorld(
  'paneflow',
  createApi(
    (channel, ...args) => ipcRenderer.invoke(`paneflow:${channel}`, ...args),
    (channel, listener) => void ipcRenderer.on(`paneflow:${channel}`, (_event, ...args) => listener(...args)),
  ),
);
