import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Endpoints } from './endpoints';
import LAYOUT from './layout.json';

// Where the bundles a program loads at run time are (layout.json, the one place that says it):
// another program's, and the web face's server, which the CLI loads and the desktop builds.

export type ProgramName = keyof typeof LAYOUT.programs;

/** One bundle's place: under apps/ in a checkout, beside the running bundle once installed. */
interface Place {
  checkout: string;
  installed: string;
}

/** The first of a bundle's places that exists, seen from the running bundle (apps/<app>/dist/ in a checkout). */
function locate(place: Place): string | null {
  // The bundle's real place: run through a bin link (node_modules/.bin, npx), argv[1] is the link.
  const here = dirname(realpathSync(process.argv[1] ?? '.'));
  return [join(here, '../..', place.checkout), join(here, place.installed)].find((path) => existsSync(path)) ?? null;
}

/**
 * Where another Paneflow program's bundle is: `PANEFLOW_<NAME>_BIN` if set, else where layout.json
 * puts it. Each is executable.
 */
export function programPath(name: ProgramName, env: Record<string, string | undefined> = process.env): string {
  const variable = `PANEFLOW_${name.slice('paneflow-'.length).toUpperCase().replaceAll('-', '_')}_BIN`;
  const override = env[variable];
  if (override) return override;
  const found = locate(LAYOUT.programs[name]);
  if (!found) throw new Error(`cannot find ${name} (looked for ${LAYOUT.programs[name].checkout} and ${LAYOUT.programs[name].installed}); set ${variable}`);
  return found;
}

/** The command that runs another Paneflow program with this Node. */
export function programCommand(name: ProgramName, env: Record<string, string | undefined> = process.env): string[] {
  return [process.execPath, programPath(name, env)];
}

/**
 * What the web face's server bundle exports (apps/desktop/src/web/server.ts declares it so): the
 * contract between the CLI, which loads the bundle, and the desktop, which builds it — an app
 * cannot import another's sources.
 */
export interface WebFace {
  startWeb(options: {
    endpoints: Endpoints;
    /** The address to listen on (127.0.0.1 unless said otherwise). */
    bind: string;
    /** 0: a free port. */
    port: number;
    /** The renderer's files (default: beside the bundle). */
    assets?: string;
  }): Promise<{
    /** The address to open, token included. */
    url: string;
    port: number;
    close(): Promise<void>;
  }>;
}

/** The web face's server bundle, or null when it is not built (or not installed). */
export function webFacePath(): string | null {
  return locate(LAYOUT.web.server);
}
