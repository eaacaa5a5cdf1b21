import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type Git = (...args: string[]) => string;

/** git in `repo`, its output as text. */
const gitIn =
  (repo: string): Git =>
  (...args) =>
    execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });

/**
 * A repository at `dir` (made if missing) on branch main with one commit of `files`, by an
 * identity of its own (the machine may have none); returns git bound to it.
 */
export function gitRepo(dir: string, files: Record<string, string> = { README: 'hello\n' }): Git {
  mkdirSync(dir, { recursive: true });
  const git = gitIn(dir);
  git('init', '-q', '-b', 'main');
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git('add', '.');
  git('-c', 'user.name=Me', '-c', 'user.email=me@example.com', 'commit', '-q', '-m', 'first');
  return git;
}

export interface HeldGit {
  /** From now on, a matching command waits until `release`. */
  hold(): void;
  release(): void;
  /** Whether a matching command has begun to wait. */
  began(): boolean;
  /** The wrapper goes: the real git again, for whoever looks it up on PATH. */
  remove(): void;
}

/**
 * A `git` at `path` (for a program's PATH, or Snapshots' `git`) that runs the real one, except
 * that while held a command whose words include `words` waits, and says it began: a test takes its
 * time over what git is in the middle of.
 */
export function holdingGit(path: string, words: string): HeldGit {
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const hold = `${path}.hold`;
  const began = `${path}.began`;
  writeFileSync(path, `#!/bin/sh\ncase "$*" in *'${words}'*) [ -e '${hold}' ] && touch '${began}'; while [ -e '${hold}' ]; do sleep 0.05; done;; esac\nexec '${real}' "$@"\n`, { mode: 0o755 });
  return {
    hold: () => writeFileSync(hold, ''),
    release: () => rmSync(hold, { force: true }),
    began: () => existsSync(began),
    remove: () => rmSync(path, { force: true }),
  };
}
