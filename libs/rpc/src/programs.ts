import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The bundled programs, by name, with where each is built in the repository. */
const PROGRAMS = {
  'paneflow-host': 'host/dist/paneflow-host.cjs',
  'paneflow-serve': 'serve/dist/paneflow-serve.cjs',
  'paneflow-ai-hook': 'ai-hook/dist/paneflow-ai-hook.cjs',
  'paneflow-mcp': 'mcp/dist/paneflow-mcp.cjs',
} as const;

export type ProgramName = keyof typeof PROGRAMS;

/**
 * Where another Paneflow program's bundle is: `PANEFLOW_<NAME>_BIN` if set, else beside this one
 * (all bundles live in apps/<app>/dist/, or side by side once installed). Each is executable.
 */
export function programPath(name: ProgramName, env: Record<string, string | undefined> = process.env): string {
  const variable = `PANEFLOW_${name.slice('paneflow-'.length).toUpperCase().replaceAll('-', '_')}_BIN`;
  const override = env[variable];
  if (override) return override;
  // The bundle's real place: run through a bin link (node_modules/.bin, npx), argv[1] is the link.
  const here = dirname(realpathSync(process.argv[1] ?? '.'));
  const candidates = [join(here, '../..', PROGRAMS[name]), join(here, `${name}.cjs`)];
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`cannot find ${name} (looked for ${candidates.join(', ')}); set ${variable}`);
  return found;
}

/** The command that runs another Paneflow program with this Node. */
export function programCommand(name: ProgramName, env: Record<string, string | undefined> = process.env): string[] {
  return [process.execPath, programPath(name, env)];
}

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
