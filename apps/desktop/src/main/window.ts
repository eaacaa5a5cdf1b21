// What the main process decides, apart from Electron itself, so that plain Node tests can hold it.
import { join } from 'node:path';

/** The window: the renderer sandboxed, no Node in it, the preload its only door. */
export function windowOptions(distDir: string) {
  return {
    width: 1280,
    height: 800,
    title: 'Paneflow',
    backgroundColor: '#101317',
    webPreferences: {
      preload: join(distDir, 'preload.cjs'),
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
    },
  };
}

/** IPC channels, each `paneflow:<call>` (api.ts). */
export const CALLS = ['request', 'subscribe', 'unsubscribe', 'attach', 'detach', 'input', 'resize', 'notify'] as const;
export const channel = (call: string) => `paneflow:${call}`;
