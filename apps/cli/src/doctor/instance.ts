// `paneflow doctor`, the instance: where it lives, whether it runs, what runs against what is
// installed, its sockets, gates, logs and allocator.
import { hostStatus, serveStatus } from '@paneflow/instance/bootstrap';
import { hostJemalloc, MALLOC_TRIM_MODULE } from '@paneflow/instance/allocator';
import { BUILD_ID } from '@paneflow/instance/build-id';
import { checkPrivateDirectory, type Endpoints } from '@paneflow/instance/endpoints';
import { LOG_CAP_BYTES, LOG_GENERATIONS } from '@paneflow/instance/files';
import { programCommand, programPath, type ProgramName } from '@paneflow/instance/programs';
import { PUBLIC_PROTOCOL_VERSION } from '@paneflow/protocol/versions';
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { check, type Check } from './report';

const group = 'instance' as const;
const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** The state directory takes every change (layouts, manifests, turn records): a file is made there and removed. */
function homeCheck(home: string): Check {
  if (!existsSync(home)) return check(group, 'home', 'info', `${home} is not made yet (the first start makes it)`);
  const probe = join(home, `.doctor-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe);
    return check(group, 'home', 'ok', `${home} is writable`);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    return check(group, 'home', 'fail', `${home} cannot be written (${code}): nothing that changes is saved, a crash loses it`, `make it writable (a full disk, a read-only mount, chmod), or set PANEFLOW_HOME to one that is`);
  }
}

function runtimeDirCheck(dir: string): Check {
  if (!existsSync(dir)) return check(group, 'runtime dir', 'info', `${dir} is not made yet (the first start makes it)`);
  try {
    checkPrivateDirectory(dir);
    return check(group, 'runtime dir', 'ok', `${dir}, private (0700)`);
  } catch (error) {
    return check(group, 'runtime dir', 'fail', `${(error as Error).message}: clients refuse to connect through it`, `chmod 700 ${dir} (and make sure you own it)`);
  }
}

/** A socket is the user's own and no one else's to connect to; serve and the host make them 0600. */
function socketCheck(name: string, path: string, running: boolean): Check {
  let stat;
  try {
    stat = lstatSync(path);
  } catch {
    return check(group, name, running ? 'fail' : 'info', running ? `${path} is missing although the daemon answers` : `${path}: none (nothing runs)`);
  }
  const uid = process.getuid!();
  if (!stat.isSocket()) return check(group, name, 'fail', `${path} is not a socket`, `paneflow stop, remove ${path}, paneflow start`);
  if (stat.uid !== uid) return check(group, name, 'fail', `${path} is owned by uid ${stat.uid}, not you (${uid}): clients refuse it`, `remove it; only your own daemons may listen there`);
  if (stat.mode & 0o077) return check(group, name, 'fail', `${path} has mode ${octal(stat.mode)}: other users may connect`, `chmod 600 ${path}, or restart the daemon (it makes the socket 0600)`);
  return check(group, name, running ? 'ok' : 'warn', running ? `${path} (0600)` : `${path} is left behind: nothing answers on it`, running ? null : 'paneflow start replaces it');
}

/** The build of a program as installed: what the next start would run. */
function installedBuild(program: ProgramName): string | null {
  try {
    const [node, script] = programCommand(program);
    const result = spawnSync(node, [script, '--version'], { encoding: 'utf8', timeout: 10_000 });
    return /^paneflow-\S+ (\S+)$/m.exec(result.stdout)?.[1] ?? null;
  } catch {
    return null;
  }
}

function buildCheck(name: 'host' | 'serve', running: string, fix: string): Check {
  const installed = installedBuild(`paneflow-${name}`);
  if (installed === null) return check(group, `${name} build`, 'warn', `runs build ${running}; the installed paneflow-${name} does not say its build`);
  if (installed === running) return check(group, `${name} build`, 'ok', `runs build ${running}, the installed one`);
  return check(group, `${name} build`, 'warn', `runs build ${running}, but the installed paneflow-${name} is ${installed}: the running one is older or newer code`, fix);
}

/** A daemon's log and its rotated generations: rotation keeps each under the cap; more means it is failing. */
function logCheck(home: string, name: 'host' | 'serve'): Check | null {
  const path = join(home, name, `${name}.log`);
  const sizes = [path, ...Array.from({ length: LOG_GENERATIONS }, (_, n) => `${path}.${n + 1}`)].flatMap((file) => {
    try {
      return [statSync(file).size];
    } catch {
      return [];
    }
  });
  if (sizes.length === 0) return null;
  const total = sizes.reduce((a, b) => a + b, 0);
  if (sizes[0] > 2 * LOG_CAP_BYTES) return check(group, `${name} log`, 'warn', `${path} is ${megabytes(sizes[0])}, past its ${megabytes(LOG_CAP_BYTES)} cap: rotation fails`, `look at the file's permissions; remove it while ${name} is stopped`);
  return check(group, `${name} log`, 'ok', `${megabytes(total)} in ${sizes.length} file(s), rotated at ${megabytes(LOG_CAP_BYTES)}`);
}

/** The host's malloc_trim module, where the installed host's build made it; null if it did not. */
function trimModule(): string | null {
  try {
    const path = join(dirname(programPath('paneflow-host')), MALLOC_TRIM_MODULE);
    return existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

/**
 * What gives the host's freed memory back: jemalloc where the system has it, else glibc's heap
 * trimmed by the module the host's build makes (apps/host/native); with neither, a host keeps what
 * many busy panes once held.
 */
function allocatorCheck(hostPid: number | null): Check {
  const library = hostJemalloc(process.env);
  if (library === null) {
    const trim = trimModule();
    if (trim !== null) return check(group, 'allocator', 'ok', `glibc malloc, its heap trimmed after panes close (${trim})`);
    return check(group, 'allocator', 'warn', `no libjemalloc2 and no ${MALLOC_TRIM_MODULE} (the host's build makes it with a C compiler): after many busy panes close, the host keeps more memory than it needs`, 'sudo apt-get install libjemalloc2, then restart the host');
  }
  let used: boolean | null = null;
  try {
    if (hostPid !== null) used = readFileSync(`/proc/${hostPid}/maps`, 'utf8').includes('libjemalloc');
  } catch {
    used = null;
  }
  if (used === false) return check(group, 'allocator', 'warn', `${library} is there, but the running host was started without it`, 'restart the host to use it (paneflow stop --force; paneflow start)');
  return check(group, 'allocator', 'ok', `jemalloc (${library})${used ? ', in use by the host' : ''}`);
}

/** The instance's checks, and whether serve answers (then the rest may ask it more). */
export async function instanceChecks(endpoints: Endpoints): Promise<{ checks: Check[]; serving: boolean }> {
  const checks: Check[] = [check(group, 'paneflow', 'info', `build ${BUILD_ID} (this CLI)`), homeCheck(endpoints.home), runtimeDirCheck(endpoints.runtimeDir)];
  // A socket behind a directory that is not private is refused before anything is sent.
  const ask = async <T>(probe: () => Promise<T>): Promise<T | Error | null> => probe().catch((error: Error) => error);
  const [serve, host] = await Promise.all([ask(() => serveStatus(endpoints)), ask(() => hostStatus(endpoints, 'doctor'))]);

  if (serve instanceof Error) checks.push(check(group, 'serve', 'fail', `serve could not be asked: ${serve.message}`));
  else if (serve === null) checks.push(check(group, 'serve', 'warn', 'not running: nothing answers the CLI, the faces or notifications', 'paneflow start'));
  else {
    const degraded = serve.health.state === 'degraded';
    checks.push(check(group, 'serve', degraded ? 'fail' : 'ok', `pid ${serve.pid}, ${serve.sessions} session(s)${degraded ? `, degraded: ${serve.health.problems.join('; ')}` : ''}`, degraded ? 'see the problems above; serve keeps working but does not save' : null));
    if (serve.protocol !== PUBLIC_PROTOCOL_VERSION) {
      checks.push(check(group, 'serve protocol', 'fail', `serve speaks protocol ${serve.protocol}, this paneflow ${PUBLIC_PROTOCOL_VERSION}`, 'paneflow serve stop; paneflow serve start'));
    }
    checks.push(buildCheck('serve', serve.build_id, 'paneflow serve stop; paneflow serve start (panes keep running in the host)'));
    const gates = serve.capabilities;
    const on = (Object.keys(gates) as Array<keyof typeof gates>).filter((gate) => gates[gate]);
    checks.push(check(group, 'gates', 'info', on.length === 0 ? 'read-only: scripts cannot write to panes (PANEFLOW_IPC_SCRIPTING=1 in serve\'s environment lets them)' : `on: ${on.join(', ')}`));
  }

  const serving = serve !== null && !(serve instanceof Error);
  const hosting = host !== null && !(host instanceof Error);
  if (host instanceof Error) checks.push(check(group, 'host', 'fail', `the host could not be asked: ${host.message}`));
  else if (host === null) checks.push(check(group, 'host', serving ? 'fail' : 'warn', 'not running: no pane runs', 'paneflow start'));
  else checks.push(check(group, 'host', 'ok', `pid ${host.pid}, ${host.sessions.live} live session(s)`), buildCheck('host', host.build_id, 'the host keeps running panes; the new build runs after paneflow stop --force; paneflow start'));

  checks.push(socketCheck('public socket', endpoints.publicSocket, serving));
  checks.push(socketCheck('host socket', endpoints.hostSocket, hosting));
  checks.push(...[logCheck(endpoints.home, 'host'), logCheck(endpoints.home, 'serve')].flatMap((c) => c ?? []));
  checks.push(allocatorCheck(hosting ? host.pid : null));
  return { checks, serving };
}
