// git as the turn ledger runs it: a child process with settings that leave everything of the
// user's as it was, bounded in time and output, failing with the command and git's first words.
import { spawn } from 'node:child_process';

/**
 * Settings for every command, so that nothing of the user's runs or changes: no hooks (update-ref
 * would run `reference-transaction`), no fsmonitor program, no new shared index file beside the
 * user's (a split index is still read), no automatic gc or maintenance; paths in human-readable
 * output (the diff) are not octal-quoted.
 */
const CONFIG = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['core.splitIndex', 'false'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['core.quotePath', 'false'],
  // A file with mixed line endings must not fail the snapshot (`add` refuses it under `true`).
  ['core.safecrlf', 'false'],
].flatMap(([key, value]) => ['-c', `${key}=${value}`]);

/** Variables that would point git at another repository, index or ref namespace than `repo`'s. */
const REPOSITORY_VARIABLES = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_COMMON_DIR', 'GIT_NAMESPACE', 'GIT_PREFIX'];

const IDENTITY = { NAME: 'Paneflow', EMAIL: 'paneflow@localhost' };

/** Output a command that is not cut may give before it is taken for a failure. */
const OUTPUT_MAX_BYTES = 256 * 1024 * 1024;

/** Of stderr only the start is kept: its first line goes into the error. */
const STDERR_KEPT_BYTES = 64 * 1024;

export interface RunOptions {
  cwd: string;
  /** A temporary index (GIT_INDEX_FILE). */
  index?: string;
  input?: string | Buffer;
  /** Stop reading (and kill git) once stdout passes this many bytes; `cut` then says so. */
  limit?: number;
}

/** git in a process group of its own, with the ledger's settings, identity and environment. */
export class Git {
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    private readonly program: string,
    /** How long one command may run before it and what it started are killed. */
    private readonly timeoutMs: number,
  ) {
    const inherited = { ...process.env };
    for (const name of REPOSITORY_VARIABLES) delete inherited[name];
    this.env = {
      ...inherited,
      // No command may take the user's index lock to refresh it (status-like reads otherwise do).
      GIT_OPTIONAL_LOCKS: '0',
      GIT_TERMINAL_PROMPT: '0',
      GIT_PAGER: 'cat',
      LC_ALL: 'C',
      GIT_AUTHOR_NAME: IDENTITY.NAME,
      GIT_AUTHOR_EMAIL: IDENTITY.EMAIL,
      GIT_COMMITTER_NAME: IDENTITY.NAME,
      GIT_COMMITTER_EMAIL: IDENTITY.EMAIL,
    };
  }

  async run(args: string[], options: RunOptions): Promise<Buffer> {
    return (await this.read(args, options)).stdout;
  }

  /** Runs git; rejects with an Error naming the command and the first line of its stderr. */
  read(args: string[], options: RunOptions): Promise<{ stdout: Buffer; cut: boolean }> {
    return new Promise((resolvePromise, reject) => {
      const command = `git ${args.join(' ')}`;
      const child = spawn(this.program, [...CONFIG, ...args], {
        cwd: options.cwd,
        env: options.index ? { ...this.env, GIT_INDEX_FILE: options.index } : this.env,
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        // A group of its own: a timeout ends git and the filters it started.
        detached: true,
      });
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        killGroup(child.pid);
      }, this.timeoutMs);
      const limit = options.limit ?? OUTPUT_MAX_BYTES;
      const chunks: Buffer[] = [];
      let size = 0;
      let cut = false;
      const stderr: Buffer[] = [];
      let stderrSize = 0;
      child.stdout!.on('data', (chunk: Buffer) => {
        if (cut) return;
        chunks.push(chunk);
        size += chunk.length;
        if (size > limit) {
          cut = true;
          killGroup(child.pid);
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => {
        if (stderrSize < STDERR_KEPT_BYTES) stderr.push(chunk);
        stderrSize += chunk.length;
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new GitError(`${command}: ${error.message}`, null));
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        if (timedOut) reject(new GitError(`${command}: no answer within ${this.timeoutMs} ms`, null));
        else if (cut && options.limit !== undefined) resolvePromise({ stdout: Buffer.concat(chunks), cut: true });
        else if (cut) reject(new GitError(`${command}: more than ${OUTPUT_MAX_BYTES} bytes of output`, null));
        else if (code === 0) resolvePromise({ stdout: Buffer.concat(chunks), cut: false });
        else reject(new GitError(`${command}: ${firstLine(Buffer.concat(stderr)) ?? `exit ${code ?? signal}`}`, code));
      });
      if (options.input !== undefined) {
        // A git that exits before reading it all closes the pipe: its exit and stderr tell why.
        child.stdin!.on('error', () => undefined);
        child.stdin!.end(options.input);
      }
    });
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
  }
}

export function splitNul(out: Buffer): Buffer[] {
  const fields: Buffer[] = [];
  for (let start = 0; start < out.length; ) {
    const end = out.indexOf(0, start);
    fields.push(out.subarray(start, end === -1 ? out.length : end));
    start = end === -1 ? out.length : end + 1;
  }
  return fields;
}

/** A command's output without its final newline. */
export const text = (out: Buffer) => out.toString('utf8').replace(/\n$/, '');

function firstLine(stderr: Buffer): string | null {
  return (
    stderr
      .toString('utf8')
      .split('\n')
      .find((line) => line.trim() !== '') ?? null
  );
}
