import { LockFile, resolveEndpoints } from '@paneflow/instance';
import { isSameProcess, processStartTime, readProcFile, readProcStat } from '@paneflow/proc';
import type { MethodName, ParamsOf, PublicMethods, ResultOf, TurnRecord } from '@paneflow/protocol';
import { call } from '@paneflow/rpc';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scaled } from './time';
import { until } from './until';

export * from './faults';
export * from './git';
export * from './manifests';
export * from './ssh';
export * from './sshd';
export * from './tmux';
export * from './until';
export * from './time';

export const ROOT = join(__dirname, '../../..');
export const CLI = join(ROOT, 'apps/cli/dist/paneflow.cjs');
const FIXTURE_AGENT = join(ROOT, 'fixtures/agent.mjs');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

/** A process still running, named for good by its pid and kernel start time. */
export interface HomeProcess {
  pid: number;
  startedAt: number;
  cmdline: string;
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** This process and its ancestors: never counted as a home's, whatever their environment says. */
function selfAndAncestors(): Set<number> {
  const chain = new Set<number>();
  for (let pid = process.pid; pid > 1 && !chain.has(pid); pid = readProcStat(pid)?.ppid ?? 0) chain.add(pid);
  return chain;
}

/**
 * The processes of a temp home that still run: its host and serve (by their owner.lock, pid and
 * start time), whatever has the home in its environment (`PANEFLOW_HOME`) or its directory on its
 * command line (a pane's `claude`, a `watch`), and every descendant of those.
 */
export function processesOfHome(dir: string, paneflowHome: string): HomeProcess[] {
  const excluded = selfAndAncestors();
  const owners = new Set<string>();
  for (const name of ['host', 'serve']) {
    const holder = new LockFile(join(paneflowHome, name, 'owner.lock')).holder();
    if (holder && isSameProcess(holder.pid, holder.started_at)) owners.add(`${holder.pid}:${holder.started_at}`);
  }
  const running: Array<HomeProcess & { ppid: number }> = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || excluded.has(pid)) continue;
    const stat = readProcStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    running.push({ pid, startedAt: stat.startTime, ppid: stat.ppid, cmdline: (readProcFile(`/proc/${pid}/cmdline`) ?? '').replaceAll('\0', ' ').trim() });
  }
  const mine = new Set<number>();
  for (const p of running) {
    const environ = `\0${readProcFile(`/proc/${p.pid}/environ`) ?? ''}`;
    if (owners.has(`${p.pid}:${p.startedAt}`) || environ.includes(`\0PANEFLOW_HOME=${paneflowHome}\0`) || p.cmdline.includes(`${dir}/`)) mine.add(p.pid);
  }
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of running) {
      if (!mine.has(p.pid) && mine.has(p.ppid)) {
        mine.add(p.pid);
        grew = true;
      }
    }
  }
  return running.filter((p) => mine.has(p.pid)).map(({ pid, startedAt, cmdline }) => ({ pid, startedAt, cmdline }));
}

/** Whether a process runs whose command line is exactly `argv` (by /proc), such as a pane's program. */
export function runsExactly(argv: string[]): boolean {
  const wanted = argv.join('\0') + '\0';
  return readdirSync('/proc').some((name) => /^\d+$/.test(name) && readProcFile(`/proc/${name}/cmdline`) === wanted);
}

/** Waits (up to `ms`) for `processes` to be gone; those still running. */
function stillRunning(processes: HomeProcess[], ms: number): HomeProcess[] {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = processes.filter((p) => processStartTime(p.pid) === p.startedAt);
    if (left.length === 0 || Date.now() > deadline) return left;
    sleepSync(50);
  }
}

/** A temp home with its own runtime dir, `claude` (the fixture agent) on PATH, and no instance yet. */
export function makeHome(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pf-cli-'));
  mkdirSync(join(dir, 'bin'));
  mkdirSync(join(dir, 'user'));
  symlinkSync(FIXTURE_AGENT, join(dir, 'bin/claude'));
  const base: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(dir, 'user'),
    PANEFLOW_HOME: join(dir, 'home'),
    XDG_RUNTIME_DIR: join(dir, 'run'),
    // The CLI's compiled code (apps/cli code-cache.ts) kept beside the user's home, not in it: tests read that home for what a verb changed.
    XDG_CACHE_HOME: join(dir, 'cache'),
    PANEFLOW_CONFIG: join(dir, 'config.json'),
    PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
    SHELL: '/bin/bash',
    NO_COLOR: '1',
    ...env,
  };
  for (const key of ['PANEFLOW_SOCKET_PATH', 'PANEFLOW_HOST_ENDPOINT', 'PANEFLOW_WORKSPACE_ID', 'PANEFLOW_SESSION_ID', 'PANEFLOW_SURFACE_ID']) delete base[key];
  const home = {
    dir,
    env: base,
    /** The bundled `paneflow`, as a script or an LLM runs it. */
    run(args: string[], options: { input?: string; env?: Record<string, string> } = {}): Run {
      const result = spawnSync(process.execPath, [CLI, ...args], { env: { ...base, ...options.env }, input: options.input, encoding: 'utf8', timeout: 60_000 });
      return {
        code: result.status,
        stdout: result.stdout,
        stderr: result.stderr,
        json: <T>() => JSON.parse(result.stdout) as T,
      };
    },
    /** A long-running verb (watch, wait): its lines as they come, and its exit. */
    start(args: string[]) {
      const child = spawn(process.execPath, [CLI, ...args], { env: base });
      const lines: string[] = [];
      let buffer = '';
      let stderr = '';
      const waiters: Array<() => void> = [];
      child.stdout.on('data', (chunk) => {
        buffer += chunk;
        for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
          lines.push(buffer.slice(0, nl));
          buffer = buffer.slice(nl + 1);
        }
        for (const w of waiters.splice(0)) w();
      });
      child.stderr.on('data', (chunk) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      return {
        child,
        lines,
        exited,
        get stderr() {
          return stderr;
        },
        async line(test: (line: string) => boolean, timeoutMs = scaled(20_000)): Promise<string> {
          const deadline = Date.now() + timeoutMs;
          for (;;) {
            const found = lines.find(test);
            if (found !== undefined) return found;
            if (Date.now() > deadline) throw new Error(`no matching line; got ${JSON.stringify(lines.slice(-5))} / ${stderr}`);
            await new Promise<void>((resolve) => {
              waiters.push(resolve);
              setTimeout(resolve, 100);
            });
          }
        },
      };
    },
    /** One request to this home's serve, as a client of the public socket. */
    rpc<M extends MethodName<PublicMethods>>(method: M, params: ParamsOf<PublicMethods, M>): Promise<ResultOf<PublicMethods, M>> {
      return call<PublicMethods, M>(resolveEndpoints(base).publicSocket, method, params);
    },
    writeConfig(config: unknown) {
      writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    },
    /**
     * Stops the home's instance (`stop --force`) and removes the directory. Whatever of the home
     * still runs after that (checked, not assumed) is killed by pid, and cleanup then throws,
     * naming it: a test that leaves processes behind fails loudly rather than leaking them.
     */
    cleanup() {
      const stop = home.run(['stop', '--force']);
      const paneflowHome = resolveEndpoints(base).home;
      // The daemons are gone when stop returns; a pane's processes end on their terminal's hangup.
      const left = stillRunning(processesOfHome(dir, paneflowHome), 10_000);
      for (const p of left) {
        try {
          if (processStartTime(p.pid) === p.startedAt) process.kill(p.pid, 'SIGKILL');
        } catch {
          // gone in between
        }
      }
      const survivors = stillRunning(left, 10_000);
      rmSync(dir, { recursive: true, force: true });
      if (left.length > 0) {
        const message =
          `makeHome cleanup: \`paneflow stop --force\` (exit ${stop.code}${stop.stderr.trim() ? `: ${stop.stderr.trim().split('\n')[0]}` : ''}) left ${left.length} process(es) of ${dir} running; ` +
          `killed them: ${left.map((p) => `${p.pid} ${p.cmdline}`).join('; ')}` +
          (survivors.length > 0 ? `; still running: ${survivors.map((p) => p.pid).join(', ')}` : '');
        console.error(message);
        throw new Error(message);
      }
    },
  };
  return home;
}
export type Home = ReturnType<typeof makeHome>;

/** Polls `read` until the pane shows the pattern. */
export async function screen(home: Home, target: string, pattern: RegExp, timeoutMs = scaled(20_000)): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { stdout } = home.run(['read', target, '--raw', '--scope', 'all']);
    if (pattern.test(stdout)) return stdout;
    if (Date.now() > deadline) throw new Error(`never matched ${pattern}:\n${stdout}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}


/** A request to serve's public socket, whichever way a test makes it (`home.rpc`, an instance's `call`). */
type Call = <M extends MethodName<PublicMethods>>(method: M, params: ParamsOf<PublicMethods, M>) => Promise<ResultOf<PublicMethods, M>>;

/**
 * A turn of the fixture agent whose edits come after serve has taken the turn's start snapshot,
 * on any machine however loaded: the prompt's first line asks for permission (so it holds
 * `permission`), and it is answered yes once the running turn has its start snapshot. Returns
 * the turn's record once it has ended with its end snapshot.
 */
export async function turnThatEdits(call: Call, surfaceId: number, prompt: string): Promise<TurnRecord> {
  if (!prompt.split('\n')[0].includes('permission')) throw new Error(`turnThatEdits: the prompt's first line must ask for permission: ${prompt}`);
  const before = (await call('turn.list', { surface_id: surfaceId })).turns.at(-1)?.turn ?? 0;
  await call('surface.send_text', { surface_id: surfaceId, text: prompt, submit: true, scope: 'all' });
  await until(async () => (await call('turn.list', { surface_id: surfaceId })).turns.find((t) => t.turn > before && t.change?.start_commit), 'the turn has its start snapshot');
  const waiting = await until(async () => {
    const status = await call('surface.status', { surface_id: surfaceId });
    return status.state === 'waiting_for_input' ? status : null;
  }, 'the permission question');
  await call('surface.answer', { surface_id: surfaceId, answer: 'yes', state_seq: waiting.state_seq, scope: 'all' });
  return until(async () => (await call('turn.list', { surface_id: surfaceId })).turns.find((t) => t.turn > before && t.ended !== null && t.change?.end_commit), 'the turn ended with its end snapshot');
}
