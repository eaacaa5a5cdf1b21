import { existsSync } from 'node:fs';

/**
 * The host's memory allocator. glibc's malloc keeps what a busy host frees in a fragmented heap
 * and does not give it back: after 32 busy panes were closed the host stayed at 2.5× its idle
 * size, while under jemalloc, which returns freed pages after a second, it drops to 1.2–1.4×
 * (apps/host README, `npm run bench:scale`). So the host runs with jemalloc preloaded wherever the
 * system has it (Debian and Ubuntu: `libjemalloc2`), and with glibc's malloc where it does not, or
 * where `PANEFLOW_HOST_JEMALLOC=0` says so (what `npm run bench:budgets` measures a machine without it by);
 * there it trims glibc's heap after sessions close, through MALLOC_TRIM_MODULE.
 */
const MULTIARCH: Partial<Record<NodeJS.Architecture, string>> = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };
const JEMALLOC_PATHS = [
  ...(MULTIARCH[process.arch] ? [`/usr/lib/${MULTIARCH[process.arch]}/libjemalloc.so.2`] : []),
  '/usr/lib64/libjemalloc.so.2',
  '/usr/lib/libjemalloc.so.2',
  '/usr/local/lib/libjemalloc.so.2',
];
/** The host's Node-API module around glibc's malloc_trim (apps/host/native), built beside the host's bundle. */
export const MALLOC_TRIM_MODULE = 'paneflow-malloc-trim.node';
/** Freed pages go back after 1 s, on jemalloc's own thread; two arenas for the host's few threads. */
const JEMALLOC_CONF = 'background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0,narenas:2';
/** The host's own copy of what the user had in the variables the allocator needs. */
const SAVED_ENV = 'PANEFLOW_HOST_SAVED_ENV';
const ALLOCATOR_VARIABLES = ['LD_PRELOAD', 'MALLOC_CONF'] as const;

/** The jemalloc library of this system, or null. */
export function findJemalloc(exists: (path: string) => boolean = existsSync): string | null {
  return process.platform === 'linux' ? (JEMALLOC_PATHS.find(exists) ?? null) : null;
}

/** The jemalloc the host starts on: this system's, unless `PANEFLOW_HOST_JEMALLOC=0` says none. */
export function hostJemalloc(env: NodeJS.ProcessEnv): string | null {
  return env.PANEFLOW_HOST_JEMALLOC === '0' ? null : findJemalloc();
}

/**
 * The environment to start the host in: `env` with jemalloc preloaded when the system has it, and
 * the user's own values of the variables that takes saved, so that the host puts them back
 * (`restoreUserEnvironment`) before it starts anything: a pane's programs never inherit the
 * host's allocator.
 */
export function hostEnvironment(env: NodeJS.ProcessEnv, jemalloc = hostJemalloc(env)): NodeJS.ProcessEnv {
  if (!jemalloc) return env;
  const saved = Object.fromEntries(ALLOCATOR_VARIABLES.map((name) => [name, env[name] ?? null]));
  return {
    ...env,
    LD_PRELOAD: env.LD_PRELOAD ? `${jemalloc} ${env.LD_PRELOAD}` : jemalloc,
    MALLOC_CONF: JEMALLOC_CONF,
    [SAVED_ENV]: JSON.stringify(saved),
  };
}

/** Puts back the variables `hostEnvironment` changed, as the user had them. */
export function restoreUserEnvironment(env: NodeJS.ProcessEnv): void {
  const saved = env[SAVED_ENV];
  if (saved === undefined) return;
  delete env[SAVED_ENV];
  let values: Record<string, unknown>;
  try {
    values = JSON.parse(saved) as Record<string, unknown>;
  } catch {
    values = {};
  }
  for (const name of ALLOCATOR_VARIABLES) {
    const value = values[name];
    if (typeof value === 'string') env[name] = value;
    else delete env[name];
  }
}
