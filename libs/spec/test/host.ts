import { createHash } from 'node:crypto';
import type { SpecHost } from '../src';

/** A fake machine for spec tests: directories, a PATH, git repositories with worktrees. */
export function fakeHost(options: { dirs?: string[]; onPath?: string[]; repos?: Record<string, Array<{ path: string; branch: string | null }>>; branches?: string[] } = {}): SpecHost {
  const dirs = new Set(['/home/me', '/work', '/work/specs', ...(options.dirs ?? [])]);
  const onPath = new Set(options.onPath ?? ['claude', 'codex']);
  const repos = options.repos ?? {};
  const agents: Record<string, { slug: string; tool: string }> = {
    claude: { slug: 'claude-code', tool: 'claude' },
    'claude-code': { slug: 'claude-code', tool: 'claude' },
    claude_code: { slug: 'claude-code', tool: 'claude' },
    codex: { slug: 'codex', tool: 'codex' },
  };
  return {
    cwd: '/work',
    home: '/home/me',
    isDirectory: (path) => dirs.has(path),
    realpath: (path) => path,
    onPath: (command) => onPath.has(command),
    gitRoot: (path) => Object.keys(repos).find((root) => path === root || path.startsWith(root + '/')) ?? null,
    worktrees: (root) => repos[root] ?? [],
    branchExists: (_root, branch) => (options.branches ?? []).includes(branch),
    resolveAgent: (name) => agents[name.toLowerCase()] ?? null,
    agentNames: () => ['claude-code', 'codex'],
    sha256Hex: (text) => createHash('sha256').update(text).digest('hex'),
  };
}
