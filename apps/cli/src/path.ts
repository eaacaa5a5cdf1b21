import { accessSync, constants, statSync } from 'node:fs';
import { join } from 'node:path';

/** Whether `path` is a file this process may execute. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where a shell would find `command`: itself when it names a path, else the first executable of that name in PATH; or null. */
export function which(command: string): string | null {
  if (command.includes('/')) return isExecutable(command) ? command : null;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const path = join(dir || '.', command);
    if (isExecutable(path)) return path;
  }
  return null;
}

/** Whether `command` is an executable file in a directory of PATH. */
export const onPath = (command: string) => which(command) !== null;
