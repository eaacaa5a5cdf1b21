import { existsSync, realpathSync } from 'node:fs';
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
