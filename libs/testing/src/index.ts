import { resolveEndpoints } from '@paneflow/instance';
import type { MethodName, ParamsOf, PublicMethods, ResultOf } from '@paneflow/protocol';
import { call } from '@paneflow/rpc';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export * from './faults';
export * from './tmux';

export const ROOT = join(__dirname, '../../..');
export const CLI = join(ROOT, 'apps/cli/dist/paneflow.cjs');
const FIXTURE_AGENT = join(ROOT, 'fixtures/agent.mjs');

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
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
        async line(test: (line: string) => boolean, timeoutMs = 20_000): Promise<string> {
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
    cleanup() {
      home.run(['stop', '--force']);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return home;
}
export type Home = ReturnType<typeof makeHome>;

/** Polls `read` until the pane shows the pattern. */
export async function screen(home: Home, target: string, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { stdout } = home.run(['read', target, '--raw', '--scope', 'all']);
    if (pattern.test(stdout)) return stdout;
    if (Date.now() > deadline) throw new Error(`never matched ${pattern}:\n${stdout}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls `probe` until it gives a value (not null, undefined or false); fails after `timeoutMs`, naming `what`. */
export async function until<T>(probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
