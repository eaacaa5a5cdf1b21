import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export type Git = (...args: string[]) => string;

/** git in `repo`, its output as text. */
export const gitIn =
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
