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

/** The IPC channel of a call of api.ts. */
export const channel = (call: string) => `paneflow:${call}`;
