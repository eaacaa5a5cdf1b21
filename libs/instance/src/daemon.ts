import { fstatSync, mkdirSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { prepareRuntimeDir, resolveEndpoints, type Endpoints } from './endpoints';
import { clipForLog, rotateLogIfFull } from './files';
import { BUILD_ID } from './build-id';
import { LockFile } from './lock';
import { ownerLockPath } from './owner';

/**
 * The entry of both daemons, `paneflow-host` and `paneflow-serve`: `[--home DIR] <command>` with
 * each command's own flags, usage on `--help` and on any mistake (exit 2), failures on stderr
 * (exit 1), and a timestamped log line format for what they write to their logs.
 */
export interface DaemonSpec {
  program: 'paneflow-host' | 'paneflow-serve';
  usage: string;
  /** A command is its run function, or that with the flags it takes. */
  commands: Record<string, Command | { flags: Record<string, 'boolean' | 'integer'>; run: Command }>;
}

type Command = (context: DaemonContext) => Promise<void> | void;

export interface DaemonContext {
  endpoints: Endpoints;
  flags: Record<string, boolean | number>;
  fail(message: string, code?: number): never;
  log(message: string): void;
}

export function daemonMain(spec: DaemonSpec, argv = process.argv.slice(2)): void {
  const fail = (message: string, code = 1): never => {
    process.stderr.write(`${spec.program}: ${message}\n`);
    process.exit(code);
  };
  const short = spec.program.slice('paneflow-'.length) as 'host' | 'serve';
  // Whether a flag takes a value is the same in every command that has it.
  const kinds = new Map(Object.values(spec.commands).flatMap((c) => ('flags' in c ? Object.entries(c.flags) : [])));
  let home: string | undefined;
  const words: string[] = [];
  const flags: Record<string, boolean | number> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(spec.usage + '\n');
      process.exit(0);
    }
    // What is installed, against what runs (`paneflow doctor` compares it with host/serve.status).
    if (arg === '--version') {
      process.stdout.write(`${spec.program} ${BUILD_ID}\n`);
      process.exit(0);
    }
    if (arg === '--home') {
      home = argv[++i] ?? fail(`--home needs a directory\n${spec.usage}`, 2);
      continue;
    }
    if (!arg.startsWith('-')) {
      words.push(arg);
      continue;
    }
    const name = arg.replace(/^--/, '');
    const kind = (arg.startsWith('--') && kinds.get(name)) || fail(`unknown flag '${arg}'\n${spec.usage}`, 2);
    if (kind === 'boolean') flags[name] = true;
    else {
      const value = Number(argv[++i]);
      if (!Number.isInteger(value) || value < 0) fail(`--${name} needs a whole number`, 2);
      flags[name] = value;
    }
  }
  if (words.length !== 1) fail(spec.usage, 2);
  const command = spec.commands[words[0]] ?? fail(`unknown command '${words[0]}'\n${spec.usage}`, 2);
  const accepted = 'flags' in command ? command.flags : {};
  for (const name of Object.keys(flags)) if (!accepted[name]) fail(`--${name} goes with another command\n${spec.usage}`, 2);
  const endpoints = resolveEndpoints(home ? { ...process.env, PANEFLOW_HOME: home } : process.env);
  const run = 'run' in command ? command.run : command;
  const log = daemonLog(short, join(endpoints.home, short, `${short}.log`));
  Promise.resolve(run({ endpoints, flags, fail, log })).catch((error) => fail(error instanceof Error ? error.message : String(error)));
}

/**
 * A daemon's log: timestamped lines, each message clipped (`clipForLog`), on its stderr. A
 * detached daemon's stderr is `<home>/<name>/<name>.log`, opened for appending by
 * `ensureDaemon`, so that what Node itself prints (an uncaught exception, a fatal error) lands
 * there too. A process cannot reopen its stderr, so the log is rotated by copy and truncate
 * (`rotateLogIfFull` with fd 2) once it reaches the cap; a stderr that is not that file (a
 * terminal, a pipe) is left alone.
 */
function daemonLog(short: 'host' | 'serve', path: string): (message: string) => void {
  let toFile: boolean | undefined;
  return (message) => {
    const line = `${new Date().toISOString()} [${short} ${process.pid}] ${clipForLog(message)}\n`;
    toFile ??= isFile(2);
    if (!toFile) {
      process.stderr.write(line);
      return;
    }
    // A full or read-only disk loses log lines; it must not take the daemon down.
    try {
      writeSync(2, line);
      rotateLogIfFull(path, 2);
    } catch {
      // nowhere left to say it
    }
  };
}

function isFile(fd: number): boolean {
  try {
    return fstatSync(fd).isFile();
  } catch {
    return false;
  }
}

/**
 * Becomes the one running daemon of its kind for the home: its directory and the runtime dir
 * made private, `<home>/<name>/owner.lock` taken, or the holder named and the process ended.
 */
export function takeOwnership(context: DaemonContext, name: 'host' | 'serve'): LockFile {
  const dir = join(context.endpoints.home, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  prepareRuntimeDir(context.endpoints);
  const owner = new LockFile(ownerLockPath(context.endpoints.home, name));
  const holder = owner.tryAcquire();
  if (holder) context.fail(holder.pid === 0 ? `another ${name} is starting for ${context.endpoints.home}` : `another ${name} (pid ${holder.pid}) owns ${context.endpoints.home}`);
  return owner;
}
