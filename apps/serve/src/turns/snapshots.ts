import { TURN_FILES_KEPT, TURN_SNAPSHOT_FILE_BYTES } from '@paneflow/protocol';
import { randomUUID } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { lstat, mkdir, open, rm, utimes } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { join, resolve } from 'node:path';
import { Git, GitError, splitNul, text } from './git';
import { parseSummary, type ChangeSummary } from './summary';

/** A working tree as a tree object, with the untracked files left out of it. */
export interface Tree {
  tree: string;
  /** When git began to read the working tree for it. */
  at_ms: number;
  /**
   * Untracked files left out (the first TURN_FILES_KEPT of them), as git names them: over
   * TURN_SNAPSHOT_FILE_BYTES each, or past the snapshot's bound of untracked files in all.
   */
  skipped: { path: string; bytes: number }[];
}

/** A snapshot of a working tree: a commit (and its tree) under a private ref. */
export interface Snapshot extends Tree {
  repo: string;
  commit: string;
}


export interface SnapshotsOptions {
  /** Where temporary index files live (created when missing). */
  tempDir: string;
  log: (message: string) => void;
  /** The git program; 'git' on PATH by default. */
  git?: string;
  bounds?: Partial<SnapshotBounds>;
}

/** The bounds of one snapshot (tests set smaller ones). */
export interface SnapshotBounds {
  /**
   * How long one git command may run: a clean filter that hangs (LFS, a crypt filter, a stalled
   * network file system) fails its snapshot instead of stopping its repository's queue for good.
   */
  commandTimeoutMs: number;
  /** Untracked files one snapshot takes at most, in git's order: an unignored dependency folder must not fill `.git`. */
  untrackedMaxFiles: number;
  untrackedMaxBytes: number;
}

/** How long `workTree` keeps an answer: a directory made a repository (git init) is seen that much later. */
const WORK_TREE_KEPT_MS = 5000;

const BOUNDS: SnapshotBounds = { commandTimeoutMs: 120_000, untrackedMaxFiles: 20_000, untrackedMaxBytes: 256 * 1024 * 1024 };
/**
 * Snapshots of git working trees for the turn ledger, taken without changing anything of the
 * user's repository but the snapshot's own ref (and objects): git runs as child processes with a
 * temporary index, never the user's, and commits through `commit-tree`.
 */
export class Snapshots {
  private readonly tempDir: string;
  private readonly log: (message: string) => void;
  private readonly git: Git;
  private readonly bounds: SnapshotBounds;
  /** Per repository, the end of its queue of trees. */
  private readonly queues = new Map<string, Promise<unknown>>();
  /** `workTree`'s recent answers, per directory. */
  private readonly workTrees = new Map<string, { top: Promise<string | null>; atMs: number }>();
  /** Per repository, a tree asked for that has not begun: whoever asks meanwhile shares it. */
  private readonly waitingTrees = new Map<string, Promise<Tree>>();
  /** The trees asked for and not yet taken (waiting or under way). */
  private readonly pendingTrees = new Set<Promise<Tree>>();

  constructor(options: SnapshotsOptions) {
    this.tempDir = options.tempDir;
    this.log = options.log;
    this.bounds = { ...BOUNDS, ...options.bounds };
    this.git = new Git(options.git ?? 'git', this.bounds.commandTimeoutMs);
  }

  /**
   * The top directory of the git work tree `cwd` is inside, or null (not in a work tree, a bare
   * repo, inside .git, git missing, cwd missing). An answer holds for WORK_TREE_KEPT_MS: an agent
   * that turns many times a second in one directory asks git once.
   */
  workTree(cwd: string): Promise<string | null> {
    const known = this.workTrees.get(cwd);
    const now = Date.now();
    if (known && now - known.atMs < WORK_TREE_KEPT_MS) return known.top;
    const top = this.findWorkTree(cwd);
    this.workTrees.set(cwd, { top, atMs: now });
    // Bounded: the directories of the last while only.
    for (const [dir, entry] of this.workTrees) if (now - entry.atMs >= WORK_TREE_KEPT_MS) this.workTrees.delete(dir);
    return top;
  }

  private async findWorkTree(cwd: string): Promise<string | null> {
    try {
      const out = text(await this.git.run(['rev-parse', '--is-inside-work-tree', '--show-toplevel'], { cwd }));
      // The top directory is all the rest, whatever it holds (a newline too).
      const newline = out.indexOf('\n');
      return out.slice(0, newline) === 'true' && newline + 1 < out.length ? out.slice(newline + 1) : null;
    } catch {
      return null;
    }
  }

  /**
   * A snapshot of the whole working tree of `repo` (tracked files and untracked files that are not
   * ignored) as a commit — parent `parent`, else HEAD where HEAD exists, else none — and `ref`
   * pointed at it.
   */
  async take(repo: string, ref: string, message: string, parent: string | null): Promise<Snapshot> {
    return this.commit(repo, ref, message, parent, await this.treeNow(repo));
  }

  /**
   * A tree (`treeNow`'s, asked for at the moment it stands for) as a commit — parent `parent`, else
   * HEAD where HEAD exists, else none — and `ref` pointed at it.
   */
  async commit(repo: string, ref: string, message: string, parent: string | null, { tree, at_ms, skipped }: Tree): Promise<Snapshot> {
    const base = parent ?? (await this.head(repo));
    const parentArgs = base === null ? [] : ['-p', base];
    // The message goes in on stdin: no size limit of argv, and commit-tree runs no hooks.
    const commit = text(await this.git.run(['commit-tree', '--no-gpg-sign', ...parentArgs, '--end-of-options', tree], { cwd: repo, input: message }));
    await this.git.run(['update-ref', '--no-deref', ref, commit], { cwd: repo });
    return { repo, commit, tree, at_ms, skipped };
  }

  /** The same snapshot as a tree only: no commit, no ref (for a diff against the working tree now). */
  async tree(repo: string): Promise<string> {
    return (await this.treeNow(repo)).tree;
  }

  /**
   * The working tree as a tree, taken after every tree asked for before it (one at a time per
   * repository). Asks that come while one waits its turn share it: both want the tree as it is
   * after everything before them, so turns that come faster than git can snapshot cost one tree
   * each wait, not one each — except `apartFrom`, the start of the turn whose end asks: an end is
   * never its own start. `continuing`, the last turn's end, is taken as it is while not yet taken,
   * even under way: a turn that begins as the last one ended starts from that one's end.
   */
  treeNow(repo: string, options: { continuing?: Promise<Tree> | null; apartFrom?: Promise<Tree> | null } = {}): Promise<Tree> {
    if (options.continuing && this.pendingTrees.has(options.continuing)) return options.continuing;
    const waiting = this.waitingTrees.get(repo);
    if (waiting && waiting !== options.apartFrom) return waiting;
    const tree: Promise<Tree> = this.queued(repo, () => {
      if (this.waitingTrees.get(repo) === tree) this.waitingTrees.delete(repo);
      return this.writeTree(repo);
    });
    this.pendingTrees.add(tree);
    void tree.catch(() => undefined).finally(() => this.pendingTrees.delete(tree));
    this.waitingTrees.set(repo, tree);
    // A failed tree stops being shared with its failure as soon as it settles.
    void tree.catch(() => undefined).finally(() => this.waitingTrees.get(repo) === tree && this.waitingTrees.delete(repo));
    return tree;
  }

  /** git's summary of the difference between two commits or trees (renames detected), `files` cut to TURN_FILES_KEPT. */
  async summary(repo: string, from: string, to: string): Promise<ChangeSummary> {
    return parseSummary(await this.git.run(['diff-tree', '-r', '-z', '-M', '--raw', '--numstat', '--no-ext-diff', '--no-textconv', '--end-of-options', from, to], { cwd: repo }));
  }

  /**
   * git's unified diff between two commits or trees (`stat`: git's --stat instead), plain, at most
   * `maxBytes` (cut at a line end; `truncated` when cut). Git is killed once past the limit, so a
   * huge diff is never held whole.
   */
  async diff(repo: string, from: string, to: string, options: { stat: boolean; maxBytes: number }): Promise<{ text: string; truncated: boolean }> {
    const format = options.stat ? '--stat' : '--patch';
    const { stdout, cut } = await this.git.read(['diff-tree', '-r', '-M', format, '--no-color', '--no-ext-diff', '--no-textconv', '--end-of-options', from, to], { cwd: repo, limit: options.maxBytes });
    if (!cut) return { text: stdout.toString('utf8'), truncated: false };
    // A cut at a newline never splits a UTF-8 sequence.
    const kept = stdout.subarray(0, options.maxBytes);
    return { text: kept.subarray(0, kept.lastIndexOf(0x0a) + 1).toString('utf8'), truncated: true };
  }

  /** Deletes these refs (missing ones are no error), in one transaction. */
  async deleteRefs(repo: string, refs: string[]): Promise<void> {
    if (refs.length === 0) return;
    await this.git.run(['update-ref', '--no-deref', '--stdin', '-z'], { cwd: repo, input: refs.map((ref) => `delete ${ref}\0\0`).join('') });
  }

  /** Every ref under `prefix` (e.g. 'refs/paneflow/turns/'). */
  async refsUnder(repo: string, prefix: string): Promise<string[]> {
    const out = text(await this.git.run(['for-each-ref', '--format=%(refname)', prefix], { cwd: repo }));
    return out === '' ? [] : out.split('\n');
  }

  /** Runs `work` once every earlier tree of `repo` has settled. */
  private queued<T>(repo: string, work: () => Promise<T>): Promise<T> {
    const result = (this.queues.get(repo) ?? Promise.resolve()).then(work);
    const settled = result.catch(() => undefined);
    this.queues.set(repo, settled);
    void settled.then(() => {
      if (this.queues.get(repo) === settled) this.queues.delete(repo);
    });
    return result;
  }

  /** The working tree as a tree object, built in a temporary index that is removed afterwards. */
  private async writeTree(repo: string): Promise<Tree> {
    const at_ms = Date.now();
    await mkdir(this.tempDir, { recursive: true });
    const index = join(this.tempDir, `index-${randomUUID()}`);
    try {
      // Seeded with the user's index, git's stat cache spares hashing unchanged files; a missing
      // index is an empty one, as git itself sees it.
      const userIndex = resolve(repo, text(await this.git.run(['rev-parse', '--git-path', 'index'], { cwd: repo })));
      const written = await copyRegularFile(userIndex, index);
      if (written) {
        // The copy keeps the time the index was written (to the microsecond, never later): git
        // takes a file whose time is not before its index's for changed ("racy git"), and a copy
        // made now would let an edit of that instant, of the same size, pass for unchanged.
        const seconds = Number(written.mtimeNs / 1000n - 1n) / 1e6;
        await utimes(index, seconds, seconds);
      }
      await this.git.run(['add', '--update'], { cwd: repo, index });
      const untracked = splitNul(await this.git.run(['ls-files', '-z', '--others', '--exclude-standard'], { cwd: repo, index }));
      const { kept, skipped } = await bySize(repo, untracked, this.bounds);
      if (skipped.length > 0) {
        const bounds = `over ${TURN_SNAPSHOT_FILE_BYTES} bytes each, or past ${this.bounds.untrackedMaxFiles} files or ${this.bounds.untrackedMaxBytes} bytes in all`;
        this.log(`snapshot of ${repo}: ${skipped.length} untracked file(s) left out (${bounds}): ${names(skipped.map((s) => s.path))}`);
      }
      const added = await this.withoutEmptyRepositories(repo, kept);
      if (added.length > 0) {
        // update-index takes each path literally (no pathspec magic); with --remove a file deleted
        // since the listing is passed over, where `git add` would fail on it.
        const input = Buffer.concat(added.flatMap((path) => [path.at(-1) === SLASH ? path.subarray(0, -1) : path, NUL]));
        await this.git.run(['update-index', '--add', '--remove', '-z', '--stdin'], { cwd: repo, index, input });
      }
      return { tree: text(await this.git.run(['write-tree'], { cwd: repo, index })), at_ms, skipped: skipped.slice(0, TURN_FILES_KEPT) };
    } finally {
      // A git killed mid-write leaves its lock file beside the index.
      await Promise.all([rm(index, { force: true }), rm(`${index}.lock`, { force: true })]);
    }
  }

  /**
   * Untracked nested repositories are listed as `dir/` and recorded as gitlinks to their HEAD; one
   * with no commit yet cannot be, and would fail the whole snapshot, so it is left out.
   */
  private async withoutEmptyRepositories(repo: string, paths: Buffer[]): Promise<Buffer[]> {
    const nested = paths.filter((path) => path.at(-1) === SLASH);
    if (nested.length === 0) return paths;
    const heads = await Promise.all(nested.map((path) => this.head(join(repo, path.toString('utf8'))).catch(() => null)));
    const empty = new Set(nested.filter((_, i) => heads[i] === null));
    if (empty.size > 0) this.log(`snapshot of ${repo}: nested repositories with no commit left out: ${names([...empty].map((path) => path.toString('utf8')))}`);
    return paths.filter((path) => !empty.has(path));
  }

  /** HEAD's commit, or null in a repository with no commits yet. */
  private async head(repo: string): Promise<string | null> {
    try {
      return text(await this.git.run(['rev-parse', '--verify', '--quiet', 'HEAD^{commit}'], { cwd: repo }));
    } catch (error) {
      // --verify --quiet says "no such commit" with exit 1 and nothing else.
      if (error instanceof GitError && error.exitCode === 1) return null;
      throw error;
    }
  }
}

const NUL = Buffer.from([0]);
const SLASH = 0x2f;

/** A few names for a log line. */
const names = (paths: string[]) => (paths.length > 5 ? `${paths.slice(0, 5).join(', ')} and ${paths.length - 5} more` : paths.join(', '));

/**
 * Untracked files split into those to snapshot and those left out: too big, or past the bounds of
 * one snapshot in all; a file gone meanwhile is in neither.
 */
async function bySize(repo: string, paths: Buffer[], bounds: SnapshotBounds): Promise<{ kept: Buffer[]; skipped: Tree['skipped'] }> {
  const top = Buffer.from(`${repo}/`);
  // Paths stay bytes: a name that is not UTF-8 still reaches lstat and git unchanged.
  const stats = await Promise.all(paths.slice(0, bounds.untrackedMaxFiles).map((path) => lstat(Buffer.concat([top, path])).catch(() => null)));
  const kept: Buffer[] = [];
  const skipped: Tree['skipped'] = [];
  let total = 0;
  paths.forEach((path, i) => {
    const stat = i < stats.length ? stats[i] : undefined;
    if (stat === null) return;
    const bytes = stat?.isFile() ? stat.size : 0;
    if (stat === undefined || bytes > TURN_SNAPSHOT_FILE_BYTES || total + bytes > bounds.untrackedMaxBytes) skipped.push({ path: path.toString('utf8'), bytes });
    else {
      total += bytes;
      kept.push(path);
    }
  });
  return { kept, skipped };
}

/**
 * Copies `from` to `to` if it is a regular file, and returns its stat; null if there is none. What
 * is checked is what is copied (one descriptor, opened without blocking): a FIFO or /dev/zero put
 * in its place between a check and a copy would make a copy that never ends.
 */
async function copyRegularFile(from: string, to: string) {
  const handle = await open(from, constants.O_RDONLY | constants.O_NONBLOCK).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (!handle) return null;
  try {
    const info = await handle.stat({ bigint: true });
    if (!info.isFile()) throw new Error(`${from} is not a regular file`);
    await pipeline(handle.createReadStream({ autoClose: false }), createWriteStream(to));
    return info;
  } finally {
    await handle.close();
  }
}
