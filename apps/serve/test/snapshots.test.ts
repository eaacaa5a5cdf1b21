import { TURN_SNAPSHOT_FILE_BYTES } from '@paneflow/protocol';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Snapshots } from '../src/turns/snapshots';
import { holdingGit, until } from '@paneflow/testing';

// Neither the developer's git config nor an identity reaches these repositories: snapshots need none.
const ISOLATED = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
// The test's own commands make commits as someone, and never refresh an index on the side.
const TEST_GIT_ENV = { ...ISOLATED, GIT_OPTIONAL_LOCKS: '0', GIT_AUTHOR_NAME: 'Tester', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'Tester', GIT_COMMITTER_EMAIL: 't@example.com' };

const savedEnv = { ...process.env };
beforeAll(() => Object.assign(process.env, ISOLATED));
afterAll(() => {
  for (const name of Object.keys(ISOLATED)) if (savedEnv[name] === undefined) delete process.env[name];
  Object.assign(process.env, savedEnv);
});

let dir: string;
let tempDir: string;
let logged: string[];
let snapshots: Snapshots;
beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'pf-snapshots-')));
  tempDir = join(dir, 'serve-tmp');
  logged = [];
  snapshots = new Snapshots({ tempDir, log: (message) => logged.push(message) });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function gitBytes(cwd: string, args: string[]): Buffer {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...TEST_GIT_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
}
const git = (cwd: string, ...args: string[]) => gitBytes(cwd, args).toString('utf8').trim();

/** A new repository whose config refuses to guess an identity, so a commit without one given fails. */
function init(name: string): string {
  const repo = join(dir, name);
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  git(repo, 'config', 'user.useConfigOnly', 'true');
  return repo;
}

function write(repo: string, path: string, content: string | Buffer) {
  mkdirSync(join(repo, path, '..'), { recursive: true });
  writeFileSync(join(repo, path), content);
}

const blobId = (content: Buffer) => createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');

/** `path → "<mode> <blob>"` of every file in a tree. */
function treeFiles(repo: string, tree: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of gitBytes(repo, ['ls-tree', '-r', '-z', '--full-tree', tree]).toString('utf8').split('\0')) {
    if (!entry) continue;
    const [meta, path] = [entry.slice(0, entry.indexOf('\t')), entry.slice(entry.indexOf('\t') + 1)];
    const [mode, , oid] = meta.split(' ');
    files[path] = `${mode} ${oid}`;
  }
  return files;
}

/** What `treeFiles` should say for these working files, from their bytes. */
function expectedFiles(repo: string, paths: string[]): Record<string, string> {
  const files: Record<string, string> = {};
  for (const path of paths) {
    const full = join(repo, path);
    if (lstatSync(full).isSymbolicLink()) files[path] = `120000 ${blobId(Buffer.from(readlinkSync(full)))}`;
    else files[path] = `${statSync(full).mode & 0o111 ? '100755' : '100644'} ${blobId(readFileSync(full))}`;
  }
  return files;
}

/**
 * A user's repository mid-work: two commits, a stash entry, a staged change with an unstaged one
 * over it, a staged new file, an unstaged change, a deleted file, untracked files with awkward
 * names, ignored files, a binary file, a symlink and a UTF-8 name.
 */
function userRepo(): { repo: string; working: string[] } {
  const repo = init('user');
  write(repo, 'a.txt', 'one\ntwo\nthree\n');
  write(repo, 'b.txt', 'b1\n');
  write(repo, 'keep.txt', 'k1\nk2\nk3\n');
  write(repo, 'old name.txt', '1\n2\n3\n4\n5\n');
  write(repo, 'bin.dat', Buffer.from([0, 1, 2, 0, 255]));
  write(repo, 'gone.txt', 'gone\n');
  write(repo, '.gitignore', '*.log\nbuild/\n');
  write(repo, 'dir/ünïcode.txt', 'u\n');
  symlinkSync('a.txt', join(repo, 'link'));
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'first');
  write(repo, 'b.txt', 'b1\nb2\n');
  git(repo, 'commit', '-q', '-am', 'second');
  write(repo, 'keep.txt', 'k1\nk2\nk3\nstashed\n');
  git(repo, 'stash', '-q');
  write(repo, 'b.txt', 'b staged\n');
  write(repo, 'staged-new.txt', 'sn\n');
  git(repo, 'add', 'b.txt', 'staged-new.txt');
  write(repo, 'b.txt', 'b working\n');
  write(repo, 'a.txt', 'one\nTWO\nthree\n');
  rmSync(join(repo, 'gone.txt'));
  write(repo, 'new file.txt', 'nf\n');
  write(repo, 'we*ird:name.txt', 'w\n');
  write(repo, 'line\nbreak.txt', 'l\n');
  write(repo, 'dir/ü untracked.txt', 'ü\n');
  write(repo, 'debug.log', 'ignored\n');
  write(repo, 'build/out.js', 'ignored\n');
  const working = ['.gitignore', 'a.txt', 'b.txt', 'keep.txt', 'old name.txt', 'bin.dat', 'dir/ünïcode.txt', 'link', 'staged-new.txt', 'new file.txt', 'we*ird:name.txt', 'line\nbreak.txt', 'dir/ü untracked.txt'];
  return { repo, working };
}

/** Everything of the user's that a snapshot must leave as it was. */
function userState(repo: string) {
  const index = join(repo, '.git/index');
  const files: Record<string, { content: string; mtimeNs: bigint }> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (full === join(repo, '.git')) continue;
      const stat = lstatSync(full, { bigint: true });
      if (stat.isDirectory()) walk(full);
      else files[relative(repo, full)] = { content: (stat.isSymbolicLink() ? Buffer.from(readlinkSync(full)) : readFileSync(full)).toString('base64'), mtimeNs: stat.mtimeNs };
    }
  };
  walk(repo);
  return {
    index: readFileSync(index).toString('base64'),
    indexMtimeNs: statSync(index, { bigint: true }).mtimeNs,
    headFile: readFileSync(join(repo, '.git/HEAD'), 'utf8'),
    head: git(repo, 'rev-parse', 'HEAD'),
    refs: git(repo, 'for-each-ref', '--format=%(refname) %(objectname)')
      .split('\n')
      .filter((line) => !line.startsWith('refs/paneflow/')),
    stash: git(repo, 'stash', 'list'),
    staged: git(repo, 'diff', '--cached', '--binary'),
    config: readFileSync(join(repo, '.git/config'), 'utf8'),
    files,
  };
}

describe('Snapshots: the working tree as private commits (the turn ledger)', () => {
  test('a snapshot holds the working tree exactly; summary and diff of agent-like edits', async () => {
    const { repo, working } = userRepo();
    const head = git(repo, 'rev-parse', 'HEAD');
    const start = await snapshots.take(repo, 'refs/paneflow/turns/s/1', 'start', null);
    expect(treeFiles(repo, start.tree)).toEqual(expectedFiles(repo, working));
    expect(start).toMatchObject({ repo, skipped: [] });
    expect(git(repo, 'rev-parse', 'refs/paneflow/turns/s/1')).toBe(start.commit);
    expect(git(repo, 'rev-parse', `${start.commit}^{tree}`)).toBe(start.tree);
    expect(git(repo, 'rev-list', '--parents', '-n', '1', start.commit)).toBe(`${start.commit} ${head}`);
    expect(git(repo, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%B', start.commit)).toBe('Paneflow <paneflow@localhost>|Paneflow <paneflow@localhost>|start');

    // What an agent does in a turn: modify, add, delete, rename, change a binary file.
    write(repo, 'a.txt', 'zero\nTWO\nthree\nfour\n');
    write(repo, 'added.txt', 'x\ny\n');
    rmSync(join(repo, 'keep.txt'));
    renameSync(join(repo, 'old name.txt'), join(repo, 'dir/new name.txt'));
    write(repo, 'bin.dat', Buffer.from([0, 1, 2, 0, 254, 7]));
    write(repo, 'dir/ü untracked.txt', 'ü\nü2\n');
    const end = await snapshots.take(repo, 'refs/paneflow/turns/s/2', 'end', start.commit);
    expect(git(repo, 'rev-list', '--parents', '-n', '1', end.commit)).toBe(`${end.commit} ${start.commit}`);
    const nowWorking = working.filter((p) => p !== 'keep.txt' && p !== 'old name.txt').concat('added.txt', 'dir/new name.txt');
    expect(treeFiles(repo, end.tree)).toEqual(expectedFiles(repo, nowWorking));
    // The tree alone is the same tree, with no commit or ref.
    const refsBefore = git(repo, 'for-each-ref');
    expect(await snapshots.tree(repo)).toBe(end.tree);
    expect(git(repo, 'for-each-ref')).toBe(refsBefore);

    const summary = await snapshots.summary(repo, start.commit, end.commit);
    expect({ ...summary, files: [] }).toEqual({ files_changed: 6, added: 1, removed: 1, insertions: 5, deletions: 4, binary: 1, files: [] });
    expect([...summary.files].sort((x, y) => (x.path < y.path ? -1 : 1))).toEqual([
      { path: 'a.txt', from: null, status: 'modified', insertions: 2, deletions: 1, binary: false },
      { path: 'added.txt', from: null, status: 'added', insertions: 2, deletions: 0, binary: false },
      { path: 'bin.dat', from: null, status: 'modified', insertions: null, deletions: null, binary: true },
      { path: 'dir/new name.txt', from: 'old name.txt', status: 'renamed', insertions: 0, deletions: 0, binary: false },
      { path: 'dir/ü untracked.txt', from: null, status: 'modified', insertions: 1, deletions: 0, binary: false },
      { path: 'keep.txt', from: null, status: 'deleted', insertions: 0, deletions: 3, binary: false },
    ]);

    const full = await snapshots.diff(repo, start.commit, end.commit, { stat: false, maxBytes: 1 << 20 });
    expect(full.truncated).toBe(false);
    for (const part of [
      'diff --git a/a.txt b/a.txt\n',
      '-one\n+zero\n TWO\n three\n+four\n',
      'rename from old name.txt\nrename to dir/new name.txt\n',
      'Binary files a/bin.dat and b/bin.dat differ\n',
      'deleted file mode 100644\n',
      'diff --git a/dir/ü untracked.txt b/dir/ü untracked.txt\n',
      '@@ -1 +1,2 @@\n ü\n+ü2\n',
    ]) {
      expect(full.text).toContain(part);
    }
    expect(full.text).not.toContain('\x1b[');

    const stat = await snapshots.diff(repo, start.commit, end.commit, { stat: true, maxBytes: 1 << 20 });
    expect(stat.text).toMatch(/^ a\.txt +\| +3 \+\+-$/m);
    expect(stat.text).toMatch(/^ bin\.dat +\| Bin 5 -> 6 bytes$/m);
    expect(stat.text).toContain(' 6 files changed, 5 insertions(+), 4 deletions(-)\n');

    const cut = await snapshots.diff(repo, start.commit, end.commit, { stat: false, maxBytes: 200 });
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.text)).toBeLessThanOrEqual(200);
    expect(cut.text.length).toBeGreaterThan(0);
    expect(cut.text.endsWith('\n')).toBe(true);
    expect(full.text.startsWith(cut.text)).toBe(true);
    const exact = await snapshots.diff(repo, start.commit, end.commit, { stat: false, maxBytes: Buffer.byteLength(full.text) });
    expect(exact).toEqual(full);
  });

  test("nothing of the user's repository changes but the snapshot's ref", async () => {
    const { repo } = userRepo();
    const before = userState(repo);
    const first = await snapshots.take(repo, 'refs/paneflow/turns/s/1', 'one', null);
    const second = await snapshots.take(repo, 'refs/paneflow/turns/s/2', 'two', first.commit);
    await snapshots.take(repo, 'refs/paneflow/turns/s/3', 'three', second.commit);
    const tree = await snapshots.tree(repo);
    await snapshots.summary(repo, first.commit, tree);
    await snapshots.diff(repo, first.commit, tree, { stat: false, maxBytes: 100 });
    await expect(snapshots.take(repo, 'refs/paneflow/bad..name', 'fails', null)).rejects.toThrow();
    await snapshots.deleteRefs(repo, ['refs/paneflow/turns/s/1']);
    expect(userState(repo)).toEqual(before);
    expect(readdirSync(tempDir)).toEqual([]);
  });

  test('an edit of the same size in the instant the index was written is seen (git’s racy-index rule holds for the copy)', async () => {
    const repo = init('racy');
    // Whole seconds in the past, and no ctime: as far as git's stat cache can tell, the file is unchanged.
    git(repo, 'config', 'core.trustctime', 'false');
    const then = 1_000_000_000;
    write(repo, 'a.txt', 'one\n');
    utimesSync(join(repo, 'a.txt'), then, then);
    git(repo, 'add', 'a.txt');
    write(repo, 'a.txt', 'ONE\n');
    utimesSync(join(repo, 'a.txt'), then, then);
    // The index written in that same second: only its time says the entry may be stale.
    utimesSync(join(repo, '.git/index'), then, then);
    const snapshot = await snapshots.take(repo, 'refs/paneflow/turns/s/1', 'start', null);
    expect(gitBytes(repo, ['show', `${snapshot.tree}:a.txt`]).toString()).toBe('ONE\n');
  });

  test('an untracked file over the size limit is left out and reported', async () => {
    const repo = init('big');
    write(repo, 'small.txt', 'small\n');
    write(repo, 'big.bin', '');
    truncateSync(join(repo, 'big.bin'), TURN_SNAPSHOT_FILE_BYTES + 1); // sparse: no time spent writing it
    const snapshot = await snapshots.take(repo, 'refs/paneflow/turns/s/1', 'start', null);
    expect(snapshot.skipped).toEqual([{ path: 'big.bin', bytes: TURN_SNAPSHOT_FILE_BYTES + 1 }]);
    expect(Object.keys(treeFiles(repo, snapshot.tree))).toEqual(['small.txt']);
    expect(logged.join('\n')).toContain('big.bin');
  });

  test('past the bounds of untracked files in all (a count, bytes) the rest is left out, in git’s order, and reported', async () => {
    const repo = init('many');
    for (const name of ['a.txt', 'b.txt', 'c.txt', 'd.txt']) write(repo, name, `${name} holds ten\n`.slice(0, 10));
    const bounded = new Snapshots({ tempDir, log: (message) => logged.push(message), bounds: { untrackedMaxFiles: 3, untrackedMaxBytes: 25 } });
    const snapshot = await bounded.take(repo, 'refs/paneflow/turns/s/1', 'start', null);
    // Three files are looked at; the third would pass 25 bytes; the fourth is past three files.
    expect(Object.keys(treeFiles(repo, snapshot.tree))).toEqual(['a.txt', 'b.txt']);
    expect(snapshot.skipped).toEqual([
      { path: 'c.txt', bytes: 10 },
      { path: 'd.txt', bytes: 0 },
    ]);
    expect(logged.join('\n')).toMatch(/2 untracked file\(s\) left out .*c\.txt, d\.txt/);
  });

  test('a git that hangs (a clean filter that never ends) fails its snapshot after the bound, with the filter killed and nothing left; the next one runs', async () => {
    const repo = init('filtered');
    write(repo, 'a.txt', 'a\n');
    git(repo, 'add', 'a.txt');
    git(repo, 'commit', '-q', '-m', 'first');
    // A filter marked so that its processes can be found; the marker file says it began.
    const began = join(dir, 'filter-began');
    git(repo, 'config', 'filter.hang.clean', `touch ${began}; exec sleep 600 # pf-hang-${process.pid}`);
    write(repo, '.gitattributes', '*.txt filter=hang\n');
    write(repo, 'a.txt', 'changed\n');
    const bounded = new Snapshots({ tempDir, log: () => undefined, bounds: { commandTimeoutMs: 1500 } });
    await expect(bounded.take(repo, 'refs/paneflow/turns/s/1', 'start', null)).rejects.toThrow(/git add --update: no answer within 1500 ms/);
    expect(existsSync(began)).toBe(true);
    const left = execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(`pf-hang-${process.pid}`));
    expect(left).toEqual([]);
    expect(readdirSync(tempDir)).toEqual([]);
    git(repo, 'config', '--unset', 'filter.hang.clean');
    rmSync(join(repo, '.gitattributes'));
    const next = await bounded.take(repo, 'refs/paneflow/turns/s/1', 'start', null);
    expect(gitBytes(repo, ['show', `${next.tree}:a.txt`]).toString()).toBe('changed\n');
  });

  test('names git writes awkwardly: a file beginning with a tab, a work tree whose path holds a newline; mixed line endings under core.safecrlf', async () => {
    const repo = init('odd\nname');
    expect(await snapshots.workTree(repo)).toBe(repo);
    write(repo, '\tlead.txt', 'one\n');
    write(repo, 'crlf.txt', 'a\r\nb\n');
    git(repo, 'config', 'core.autocrlf', 'input');
    git(repo, 'config', 'core.safecrlf', 'true');
    const start = await snapshots.take(repo, 'refs/paneflow/turns/s/1', 'start', null);
    write(repo, '\tlead.txt', 'one\ntwo\n');
    write(repo, 'other.txt', 'x\n');
    const end = await snapshots.take(repo, 'refs/paneflow/turns/s/1', 'end', start.commit);
    const summary = await snapshots.summary(repo, start.commit, end.commit);
    expect(summary.files.map((f) => [f.path, f.status, f.insertions, f.deletions])).toEqual([
      ['\tlead.txt', 'modified', 1, 0],
      ['other.txt', 'added', 1, 0],
    ]);
    expect(summary).toMatchObject({ files_changed: 2, insertions: 2, deletions: 0 });
  });

  test('a symlink stays a link, a nested repository becomes a gitlink, one with no commit yet is left out', async () => {
    const repo = init('outer');
    write(repo, 'target.txt', 't\n');
    symlinkSync('target.txt', join(repo, 'link'));
    const inner = join(repo, 'inner');
    mkdirSync(inner);
    git(inner, 'init', '-q');
    write(inner, 'f.txt', 'f\n');
    git(inner, 'add', 'f.txt');
    git(inner, 'commit', '-q', '-m', 'inner');
    const empty = join(repo, 'empty');
    mkdirSync(empty);
    git(empty, 'init', '-q');
    write(empty, 'f.txt', 'f\n');
    const snapshot = await snapshots.take(repo, 'refs/paneflow/turns/s/1', 'start', null);
    expect(treeFiles(repo, snapshot.tree)).toEqual({ ...expectedFiles(repo, ['target.txt', 'link']), inner: `160000 ${git(inner, 'rev-parse', 'HEAD')}` });
    expect(logged.join('\n')).toContain('nested repositories with no commit left out: empty/');
  });

  test('an untracked file deleted while the snapshot runs is passed over', async () => {
    const repo = init('racing');
    write(repo, 'stays.txt', 's\n');
    write(repo, 'vanishes.txt', 'v\n');
    // A git that deletes the file once it has been listed, just before it would be added.
    const wrapper = join(dir, 'racing-git');
    writeFileSync(wrapper, `#!/bin/sh\ncase "$*" in *update-index*) rm -f '${join(repo, 'vanishes.txt')}';; esac\nexec git "$@"\n`);
    chmodSync(wrapper, 0o755);
    const racing = new Snapshots({ tempDir, log: () => undefined, git: wrapper });
    const snapshot = await racing.take(repo, 'refs/paneflow/turns/s/1', 'start', null);
    expect(treeFiles(repo, snapshot.tree)).toEqual(expectedFiles(repo, ['stays.txt']));
  });

  test('a repository with no commits and no index yet: the snapshot has no parent, and none appears', async () => {
    const repo = init('fresh');
    write(repo, 'first.txt', '1\n');
    expect(existsSync(join(repo, '.git/index'))).toBe(false);
    const first = await snapshots.take(repo, 'refs/paneflow/turns/s/1', 'start', null);
    expect(git(repo, 'rev-list', '--parents', '-n', '1', first.commit)).toBe(first.commit);
    expect(treeFiles(repo, first.tree)).toEqual(expectedFiles(repo, ['first.txt']));
    write(repo, 'second.txt', '2\n');
    const second = await snapshots.take(repo, 'refs/paneflow/turns/s/2', 'end', first.commit);
    expect(await snapshots.summary(repo, first.commit, second.commit)).toMatchObject({ files_changed: 1, added: 1, insertions: 1 });
    expect(existsSync(join(repo, '.git/index'))).toBe(false);
    expect(() => git(repo, 'rev-parse', '--verify', '--quiet', 'HEAD')).toThrow();
  });

  test('a linked worktree: its own index and working files, the ref in the common store', async () => {
    const main = init('main');
    write(main, 'a.txt', 'a\n');
    git(main, 'add', 'a.txt');
    git(main, 'commit', '-q', '-m', 'first');
    const linked = join(dir, 'linked');
    git(main, 'worktree', 'add', '-q', '-b', 'feature', linked);
    write(linked, 'a.txt', 'a changed\n');
    write(linked, 'sub/new.txt', 'new\n');
    const index = git(linked, 'rev-parse', '--path-format=absolute', '--git-path', 'index');
    const indexBefore = { bytes: readFileSync(index).toString('base64'), mtimeNs: statSync(index, { bigint: true }).mtimeNs };

    expect(await snapshots.workTree(join(linked, 'sub'))).toBe(linked);
    const snapshot = await snapshots.take(linked, 'refs/paneflow/turns/s/1', 'start', null);
    expect(treeFiles(linked, snapshot.tree)).toEqual(expectedFiles(linked, ['a.txt', 'sub/new.txt']));
    expect(git(main, 'rev-parse', 'refs/paneflow/turns/s/1')).toBe(snapshot.commit);
    expect(git(linked, 'rev-parse', `${snapshot.commit}^`)).toBe(git(linked, 'rev-parse', 'feature'));
    expect({ bytes: readFileSync(index).toString('base64'), mtimeNs: statSync(index, { bigint: true }).mtimeNs }).toEqual(indexBefore);
  });

  test('workTree: the top of a work tree, else null', async () => {
    const repo = init('repo');
    mkdirSync(join(repo, 'deep/er'), { recursive: true });
    const plain = join(dir, 'plain');
    mkdirSync(plain);
    const bare = join(dir, 'bare.git');
    git(dir, 'init', '-q', '--bare', bare);
    expect(await snapshots.workTree(join(repo, 'deep/er'))).toBe(repo);
    expect(await snapshots.workTree(repo)).toBe(repo);
    expect(await snapshots.workTree(plain)).toBeNull();
    expect(await snapshots.workTree(join(dir, 'missing'))).toBeNull();
    expect(await snapshots.workTree(join(repo, '.git'))).toBeNull();
    expect(await snapshots.workTree(bare)).toBeNull();
    expect(await new Snapshots({ tempDir, log: () => undefined, git: join(dir, 'no-git') }).workTree(repo)).toBeNull();
  });

  test('snapshots of one repository: asked at once they share one tree; one asked while a tree is written waits for it; another repository does not wait', async () => {
    const repo = init('queued');
    write(repo, 'a.txt', 'a\n');
    git(repo, 'add', 'a.txt');
    git(repo, 'commit', '-q', '-m', 'first');
    const other = init('other');
    write(other, 'b.txt', 'b\n');
    // A git that notes where and when each command starts and ends.
    const log = join(dir, 'git.log');
    const wrapper = join(dir, 'logging-git');
    writeFileSync(wrapper, `#!/bin/sh\necho "start $PWD $*" >> '${log}'\ngit "$@"\ncode=$?\necho "end $PWD $*" >> '${log}'\nexit $code\n`);
    chmodSync(wrapper, 0o755);
    const logging = new Snapshots({ tempDir, log: () => undefined, git: wrapper });
    const lines = () => readFileSync(log, 'utf8').split('\n').filter((line) => line.includes(` ${repo} `));
    const treeStarts = () => lines().flatMap((line, i) => (line.startsWith('start ') && line.endsWith(' rev-parse --git-path index') ? [i] : []));

    const [first, second, elsewhere] = await Promise.all([
      logging.take(repo, 'refs/paneflow/turns/s/1', 'one', null),
      logging.take(repo, 'refs/paneflow/turns/s/2', 'two', null),
      logging.take(other, 'refs/paneflow/turns/s/1', 'other', null),
    ]);
    // One tree, two commits (their messages differ), each under its own ref.
    expect(treeStarts()).toHaveLength(1);
    expect(second.tree).toBe(first.tree);
    expect(first.commit).not.toBe(second.commit);
    expect(git(repo, 'rev-parse', 'refs/paneflow/turns/s/2')).toBe(second.commit);
    expect(git(other, 'rev-parse', 'refs/paneflow/turns/s/1')).toBe(elsewhere.commit);

    // Asked once the tree before it is being written: it waits for that one to end, then takes its own.
    write(repo, 'a.txt', 'changed meanwhile\n');
    const third = logging.take(repo, 'refs/paneflow/turns/s/3', 'three', null);
    await until(() => treeStarts().length === 2, 'the third tree begun');
    write(repo, 'late.txt', 'after the third began\n');
    const fourth = logging.take(repo, 'refs/paneflow/turns/s/4', 'four', null);
    const [, last] = await Promise.all([third, fourth]);
    const starts = treeStarts();
    expect(starts).toHaveLength(3);
    const thirdTreeEnd = lines().findIndex((line, i) => i > starts[1] && line.startsWith('end ') && line.endsWith(' write-tree'));
    expect(starts[2]).toBeGreaterThan(thirdTreeEnd);
    expect(git(repo, 'show', `${last.commit}:late.txt`)).toBe('after the third began');
  });

  test('a turn that begins as the last one ended starts from that one’s end while it is not yet taken; an end never shares its own start', async () => {
    const repo = init('sharing');
    write(repo, 'a.txt', 'a\n');
    const git = holdingGit(join(dir, 'holding-git'), 'write-tree');
    git.hold();
    const holding = new Snapshots({ tempDir, log: () => undefined, git: join(dir, 'holding-git') });
    const lastEnd = holding.treeNow(repo);
    await until(() => git.began(), 'the last end under way');
    // Under way, it is still the next start's; anyone else waits for a tree of their own.
    expect(holding.treeNow(repo, { continuing: lastEnd })).toBe(lastEnd);
    const start = holding.treeNow(repo);
    expect(start).not.toBe(lastEnd);
    const end = holding.treeNow(repo, { apartFrom: start });
    expect(end).not.toBe(start);
    // Anyone else shares the newest waiting tree.
    expect(holding.treeNow(repo)).toBe(end);
    write(repo, 'a.txt', 'edited\n');
    git.release();
    const trees = await Promise.all([lastEnd, start, end]);
    expect(trees.map((t) => gitBytes(repo, ['show', `${t.tree}:a.txt`]).toString())).toEqual(['a\n', 'edited\n', 'edited\n']);
    expect(trees[1].at_ms).toBeLessThanOrEqual(trees[2].at_ms);
    // Once taken, a last end is not a start: what came after it would be lost.
    const next = holding.treeNow(repo, { continuing: lastEnd });
    expect(next).not.toBe(lastEnd);
    await next;
  });

  test('a git failure names the command and its error, and leaves no temporary index', async () => {
    const repo = init('failing');
    write(repo, 'a.txt', 'a\n');
    git(repo, 'add', 'a.txt');
    git(repo, 'commit', '-q', '-m', 'first');
    await expect(snapshots.take(repo, 'refs/paneflow/bad..name', 'start', null)).rejects.toThrow(/^git update-ref .*refs\/paneflow\/bad\.\.name.*: fatal: .*bad name/);
    expect(readdirSync(tempDir)).toEqual([]);

    // A failure while the temporary index exists.
    const wrapper = join(dir, 'failing-git');
    writeFileSync(wrapper, `#!/bin/sh\ncase "$*" in *write-tree*) echo 'warning: first' >&2; echo 'fatal: no tree today' >&2; exit 128;; esac\nexec git "$@"\n`);
    chmodSync(wrapper, 0o755);
    const failing = new Snapshots({ tempDir, log: () => undefined, git: wrapper });
    await expect(failing.take(repo, 'refs/paneflow/turns/s/1', 'start', null)).rejects.toThrow(/^git write-tree: warning: first$/);
    await expect(failing.tree(repo)).rejects.toThrow(/^git write-tree: /);
    expect(readdirSync(tempDir)).toEqual([]);
    expect(() => git(repo, 'rev-parse', '--verify', '--quiet', 'refs/paneflow/turns/s/1')).toThrow();

    const missing = new Snapshots({ tempDir, log: () => undefined, git: join(dir, 'no-git') });
    await expect(missing.take(repo, 'refs/paneflow/turns/s/1', 'start', null)).rejects.toThrow(/^git rev-parse --git-path index: .*ENOENT/);
    await expect(snapshots.take(join(dir, 'plain-missing'), 'refs/paneflow/turns/s/1', 'start', null)).rejects.toThrow(/^git rev-parse/);
  });

  test("a FIFO in the place of the repository's index fails the snapshot at once, never waited on, and leaves no temporary index", async () => {
    const repo = init('fifo-index');
    write(repo, 'a.txt', 'a\n');
    git(repo, 'add', 'a.txt');
    git(repo, 'commit', '-q', '-m', 'first');
    rmSync(join(repo, '.git/index'));
    execFileSync('mkfifo', [join(repo, '.git/index')]);
    await expect(snapshots.take(repo, 'refs/paneflow/turns/s/1', 'start', null)).rejects.toThrow(/\.git\/index is not a regular file$/);
    expect(readdirSync(tempDir)).toEqual([]);
  });

  test('refsUnder lists refs below a prefix; deleteRefs deletes them, missing ones and packed ones too', async () => {
    const repo = init('refs');
    write(repo, 'a.txt', 'a\n');
    const { commit } = await snapshots.take(repo, 'refs/paneflow/turns/s1/1', 'start', null);
    git(repo, 'update-ref', 'refs/paneflow/turns/s1/2', commit);
    git(repo, 'update-ref', 'refs/paneflow/turns/s2/1', commit);
    git(repo, 'update-ref', 'refs/paneflow/turnsother', commit);
    git(repo, 'pack-refs', '--all');
    expect(await snapshots.refsUnder(repo, 'refs/paneflow/turns/')).toEqual(['refs/paneflow/turns/s1/1', 'refs/paneflow/turns/s1/2', 'refs/paneflow/turns/s2/1']);
    expect(await snapshots.refsUnder(repo, 'refs/paneflow/turns/s1/')).toEqual(['refs/paneflow/turns/s1/1', 'refs/paneflow/turns/s1/2']);
    expect(await snapshots.refsUnder(repo, 'refs/paneflow/turns/none/')).toEqual([]);
    await snapshots.deleteRefs(repo, ['refs/paneflow/turns/s1/1', 'refs/paneflow/turns/s1/2', 'refs/paneflow/turns/missing/1']);
    await snapshots.deleteRefs(repo, []);
    expect(await snapshots.refsUnder(repo, 'refs/paneflow/')).toEqual(['refs/paneflow/turns/s2/1', 'refs/paneflow/turnsother']);
  });
});
