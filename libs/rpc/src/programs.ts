import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The bundled programs, by name, with where each is built in the repository. */
const PROGRAMS = {
  'paneflow-host': 'host/dist/paneflow-host.cjs',
  'paneflow-serve': 'serve/dist/paneflow-serve.cjs',
} as const;

export type ProgramName = keyof typeof PROGRAMS;

/**
 * The command that runs another Paneflow program: `PANEFLOW_<NAME>_BIN` if set, else its bundle
 * beside this one (all bundles live in apps/<app>/dist/, or side by side once installed).
 */
export function programCommand(name: ProgramName, env: Record<string, string | undefined> = process.env): string[] {
  const override = env[`PANEFLOW_${name.slice('paneflow-'.length).toUpperCase()}_BIN`];
  if (override) return [process.execPath, override];
  // The bundle's real place: run through a bin link (node_modules/.bin, npx), argv[1] is the link.
  const here = dirname(realpathSync(process.argv[1] ?? '.'));
  const candidates = [join(here, '../..', PROGRAMS[name]), join(here, `${name}.cjs`)];
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error(`cannot find ${name} (looked for ${candidates.join(', ')}); set PANEFLOW_${name.slice(9).toUpperCase()}_BIN`);
  return [process.execPath, found];
}
