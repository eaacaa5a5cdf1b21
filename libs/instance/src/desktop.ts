import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * How to open the desktop app here: Electron's binary and the desktop's main script, or why it
 * cannot open (no display on Linux, no Electron runtime installed, no desktop build).
 */
export function desktopLaunch(env: Record<string, string | undefined> = process.env, platform: NodeJS.Platform = process.platform): { command: string[] } | { unavailable: string } {
  if (platform === 'linux' && !env.DISPLAY && !env.WAYLAND_DISPLAY) return { unavailable: 'no display (DISPLAY and WAYLAND_DISPLAY are unset)' };
  const here = dirname(realpathSync(process.argv[1] ?? '.'));
  const main = [join(here, '../../desktop/dist/main.cjs'), join(here, 'desktop/main.cjs')].find((path) => existsSync(path));
  if (!main) return { unavailable: 'the desktop app is not built (npx nx build desktop)' };
  // The electron package keeps its binary's place in path.txt once the binary is there.
  const electronDir = [join(here, '../../../node_modules/electron'), join(here, 'node_modules/electron')].find((dir) => existsSync(join(dir, 'path.txt')));
  if (!electronDir) return { unavailable: 'no Electron runtime is installed' };
  const binary = join(electronDir, 'dist', readFileSync(join(electronDir, 'path.txt'), 'utf8').trim());
  if (!existsSync(binary)) return { unavailable: 'no Electron runtime is installed' };
  return { command: [binary, main] };
}

/**
 * `PANEFLOW_STARTUP_TRACE=1` (REFERENCE.md §10): each start-up phase of `paneflow` with no verb
 * and of the desktop, with its time since the process started, one line on stderr each. Without
 * it, a function that does nothing.
 */
export function startupTrace(env: Record<string, string | undefined> = process.env, write = (line: string) => void process.stderr.write(line)): (phase: string) => void {
  if (env.PANEFLOW_STARTUP_TRACE !== '1') return () => undefined;
  let last = 0;
  return (phase) => {
    const now = performance.now();
    write(`paneflow startup: ${phase} at ${now.toFixed(1)} ms (+${(now - last).toFixed(1)} ms)\n`);
    last = now;
  };
}
