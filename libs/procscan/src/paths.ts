import { join } from 'node:path';
import type { Runtime } from './match';

/**
 * The first of a descriptor's path candidates that resolves in `env` (`[integration]`): `$VAR` or
 * `$VAR/…` while the variable is set and not empty, `~/…` under `env.HOME`, any other path under
 * `base` (as it is, with no base); null when none does.
 */
export function resolvePath(candidates: readonly string[], env: Record<string, string | undefined>, base: string | null = null): string | null {
  for (const candidate of candidates) {
    const variable = /^\$(\w+)(?:\/(.*))?$/.exec(candidate);
    if (variable) {
      const value = env[variable[1]];
      if (value) return variable[2] ? join(value, variable[2]) : value;
    } else if (candidate.startsWith('~/')) {
      if (env.HOME) return join(env.HOME, candidate.slice(2));
    } else return base === null ? candidate : join(base, candidate);
  }
  return null;
}

/** Where the agent keeps its configuration, for a process with this environment; null when the runtime names no place or none resolves. */
export function configDir(runtime: Runtime, env: Record<string, string | undefined>): string | null {
  const candidates = runtime.integration.config_dir;
  return candidates ? resolvePath(candidates, env) : null;
}
