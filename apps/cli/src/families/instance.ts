// The instance: start and stop it, one daemon at a time, or the main job with no verb at all.
import { desktopLaunch, startupTrace } from '@paneflow/instance/desktop';
import { programCommand, type ProgramName } from '@paneflow/instance/programs';
import { spawn, spawnSync } from 'node:child_process';
import { CliError } from '../errors';
import { headless } from '../headless';
import { ensureInstance, instanceEndpoints, request } from '../instance';
import { printJson } from '../output';
import { flag, type Run } from './common';
import { loadFamily } from './load';

/** Runs another Paneflow program with these arguments, its output and exit code passed through. */
function delegate(program: ProgramName, args: string[]): number {
  const [node, script] = programCommand(program);
  const home = process.env.PANEFLOW_HOME;
  const result = spawnSync(node, [script, ...(home ? ['--home', home] : []), ...args], { stdio: 'inherit' });
  return result.status ?? 1;
}

const hostVerb = (sub: string): Run => async (p) => delegate('paneflow-host', [sub, ...(flag(p, 'force') ? ['--force'] : [])]);
const serveVerb = (sub: string): Run => async (p) => delegate('paneflow-serve', [sub, ...(flag(p, 'drain-ms') !== undefined ? ['--drain-ms', String(flag(p, 'drain-ms'))] : [])]);

export const run: Record<string, Run> = {
  /** `paneflow` alone: the desktop app where it can open, detached; else headless, saying why. */
  async ''() {
    const trace = startupTrace();
    const launch = desktopLaunch();
    trace('desktop or headless decided');
    if ('unavailable' in launch) return headless(launch.unavailable, trace, () => loadFamily('attach').run.attach({ args: { workspace: 'demo' }, flags: {} }));
    const [binary, ...args] = launch.command;
    // A traced desktop reports its own phases here.
    spawn(binary, args, { detached: true, stdio: process.env.PANEFLOW_STARTUP_TRACE === '1' ? ['ignore', 'ignore', 'inherit'] : 'ignore' }).unref();
    trace('desktop started');
    return 0;
  },
  async start() {
    const serve = await ensureInstance();
    printJson({ serve, home: instanceEndpoints().home });
    return 0;
  },
  async stop(p) {
    // This machine's sessions: stopping it stops no other machine's.
    const live = await request('session.list', { machine: null })
      .then((r) => r.sessions.filter((s) => s.live).map((s) => s.session))
      .catch(() => [] as string[]);
    if (live.length > 0 && !flag(p, 'force')) {
      throw new CliError(`refused: ${live.length} session(s) live (use --force to stop them):\n${live.map((s) => `  ${s}`).join('\n')}`, 1);
    }
    delegate('paneflow-serve', ['stop']);
    return delegate('paneflow-host', ['stop', ...(flag(p, 'force') ? ['--force'] : [])]);
  },
  ...Object.fromEntries(['start', 'status', 'stop'].map((sub) => [`host ${sub}`, hostVerb(sub)])),
  ...Object.fromEntries(['start', 'status', 'stop', 'run'].map((sub) => [`serve ${sub}`, serveVerb(sub)])),
};
