import { resolveAgent, runtimeCatalog } from '@paneflow/procscan';
import type { SpecHost } from '@paneflow/spec';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { onPath } from './path';

function git(cwd: string, args: string[]): string | null {
  try {
    return execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return null;
  }
}

/** The machine as the spec sees it: read-only (`git worktree list`, `rev-parse`, PATH). */
export function realSpecHost(): SpecHost {
  const catalog = runtimeCatalog();
  return {
    cwd: process.cwd(),
    home: homedir(),
    isDirectory: (path) => {
      try {
        return statSync(path).isDirectory();
      } catch {
        return false;
      }
    },
    realpath: (path) => {
      try {
        return realpathSync(path);
      } catch {
        return path;
      }
    },
    onPath,
    gitRoot: (path) => git(path, ['rev-parse', '--show-toplevel'])?.trim() || null,
    worktrees: (root) => {
      const out = git(root, ['worktree', 'list', '--porcelain']) ?? '';
      return out
        .split('\n\n')
        .filter((block) => block.startsWith('worktree '))
        .map((block) => ({
          path: /^worktree (.*)$/m.exec(block)![1],
          branch: /^branch refs\/heads\/(.*)$/m.exec(block)?.[1] ?? null,
        }));
    },
    branchExists: (root, branch) => git(root, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]) !== null,
    resolveAgent: (name) => {
      const runtime = resolveAgent(catalog, name);
      return runtime ? { slug: runtime.slug, tool: runtime.tool } : null;
    },
    agentNames: () => catalog.runtimes.map((r) => r.slug),
    sha256Hex: (text) => createHash('sha256').update(text).digest('hex'),
  };
}
