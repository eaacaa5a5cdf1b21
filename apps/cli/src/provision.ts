import { PORT_STRIDE, type WorktreePlan } from '@paneflow/spec';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { CliError } from './errors';

const MAX_SETUP_OUTPUT = 256 * 1024;

function bindable(port: number, host: string): Promise<boolean | 'unavailable'> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'EADDRNOTAVAIL' || error.code === 'EAFNOSUPPORT' ? 'unavailable' : false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * The first ports of `count` free strides of 10 from `base` (REFERENCE.md §5.3): every port of a
 * stride must bind on 127.0.0.1 and on ::1 (unless IPv6 is unavailable); busy strides are skipped.
 */
export async function freeStrides(base: number, count: number): Promise<number[]> {
  const strides: number[] = [];
  for (let start = base; strides.length < count; start += PORT_STRIDE) {
    if (start + PORT_STRIDE - 1 > 65535) throw new CliError(`no free stride of ${PORT_STRIDE} ports left below 65535 (from ${base})`, 1);
    let free = true;
    for (let port = start; port < start + PORT_STRIDE && free; port++) {
      free = (await bindable(port, '127.0.0.1')) === true && (await bindable(port, '::1')) !== false;
    }
    if (free) strides.push(start);
  }
  return strides;
}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Git-ignored env files at the top of the repository: `.worktreeinclude`'s entries, or `.env*` and AGENTS.override.md. */
function envFiles(repo: string): string[] {
  const include = join(repo, '.worktreeinclude');
  if (existsSync(include)) {
    return readFileSync(include, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#') && existsSync(join(repo, l)));
  }
  const candidates = readdirSync(repo).filter((name) => name.startsWith('.env') || name === 'AGENTS.override.md');
  return candidates.filter((name) => {
    try {
      git(repo, ['check-ignore', '-q', name]);
      return true;
    } catch {
      return false;
    }
  });
}

function runSetup(command: string, cwd: string, timeoutSecs: number): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const take = (chunk: Buffer) => {
      if (output.length < MAX_SETUP_OUTPUT) output += chunk.toString('utf8').slice(0, MAX_SETUP_OUTPUT - output.length);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // gone
      }
    }, timeoutSecs * 1000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

/**
 * Makes a planned worktree real (REFERENCE.md §5.4): `git worktree add` (creating the branch from
 * `from` when it does not exist), the env files copied, then `setup` run with its timeout. A
 * reused worktree is left as it is. A failing setup is a warning, never an error.
 */
export async function provisionWorktree(plan: WorktreePlan): Promise<string[]> {
  if (plan.action === 'reuse') return [];
  mkdirSync(dirname(plan.path), { recursive: true });
  try {
    git(plan.repo_root, plan.branch_exists ? ['worktree', 'add', plan.path, plan.branch] : ['worktree', 'add', '-b', plan.branch, plan.path, plan.from]);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new CliError(`git worktree add for '${plan.branch}' failed: ${stderr || (error as Error).message}`, 1);
  }
  const warnings: string[] = [];
  if (plan.copy_env) {
    for (const file of envFiles(plan.repo_root)) {
      mkdirSync(dirname(join(plan.path, file)), { recursive: true });
      copyFileSync(join(plan.repo_root, file), join(plan.path, file));
    }
  }
  if (plan.setup) {
    const result = await runSetup(plan.setup, plan.path, plan.setup_timeout_secs);
    if (result.timedOut) warnings.push(`worktree ${plan.branch}: setup timed out after ${plan.setup_timeout_secs} s`);
    else if (result.code !== 0) warnings.push(`worktree ${plan.branch}: setup exited ${result.code}: ${result.output.trim().split('\n').slice(-5).join(' | ')}`);
  }
  return warnings;
}
