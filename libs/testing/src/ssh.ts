import { readJson, writeJsonAtomic, writeTextAtomic } from '@paneflow/instance';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, type Home } from './index';

/**
 * What a destination of the fake `ssh` does: `run` the command (the default) in an environment
 * of its own, as a login on another machine would; `hang`, as a blackholed port (nothing until
 * `-o ConnectTimeout=N` passes, then ssh's timeout and exit 255; without one, never); `refuse`,
 * as a port nothing listens on (exit 255 at once).
 */
export interface FakeDestination {
  behaviour?: 'run' | 'hang' | 'refuse';
  /** The remote login's variables, over the caller's without its Paneflow and runtime ones. */
  env?: Record<string, string>;
}

/** One call of the fake `ssh`, as the log keeps it. */
export interface FakeSshCall {
  argv: string[];
  destination: string | null;
  options: Array<[string, string | null]>;
  command: string;
}

const CONFIG = 'fake-ssh.json';
const LOG = 'fake-ssh.log';

/**
 * The fake `ssh` itself. Options are read as OpenSSH's getopt reads them (`-p22`, `-p 22`,
 * `-oX=Y`, `-tt`, `--`), the destination looked up in fake-ssh.json at each call (so a test may
 * change it between calls), and the remaining words run as one command line under `sh -c`, through
 * pipes of its own: the fake ssh gone (killed, as a dropped link), the command's stdin ends and
 * its stdout breaks, as sshd would close them.
 */
const SCRIPT = String.raw`
'use strict';
const { spawn } = require('node:child_process');
const { appendFileSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const dir = __dirname;
const WITH_VALUE = new Set('BbcDEeFIiJLlmOoPpQRSWw');
const fail = (message) => { process.stderr.write(message + '\n'); process.exit(255); };
const args = process.argv.slice(2);
const options = [];
let i = 0;
parsing: for (; i < args.length; i++) {
  const arg = args[i];
  if (arg === '--') { i++; break; }
  if (!arg.startsWith('-') || arg === '-') break;
  for (let c = 1; c < arg.length; c++) {
    const flag = arg[c];
    if (!WITH_VALUE.has(flag)) { options.push([flag, null]); continue; }
    const value = c + 1 < arg.length ? arg.slice(c + 1) : args[++i];
    if (value === undefined) fail('option requires an argument -- ' + flag);
    options.push([flag, value]);
    continue parsing;
  }
}
const destination = args[i] ?? null;
const command = args.slice(i + 1).join(' ');
appendFileSync(join(dir, '${LOG}'), JSON.stringify({ argv: args, destination, options, command }) + '\n');
if (destination === null) fail('usage: ssh [-46AaCfGgKkMNnqsTtVvXxYy] [-o option] [-p port] destination [command [argument ...]]');
const config = JSON.parse(readFileSync(join(dir, '${CONFIG}'), 'utf8'));
const host = destination.slice(destination.lastIndexOf('@') + 1);
const entry = Object.hasOwn(config, destination) ? config[destination] : Object.hasOwn(config, host) ? config[host] : null;
if (!entry) fail('ssh: Could not resolve hostname ' + host + ': Name or service not known');
const port = options.filter(([f]) => f === 'p').map(([, v]) => v).at(-1) ?? '22';
if (entry.behaviour === 'refuse') fail('ssh: connect to host ' + host + ' port ' + port + ': Connection refused');
if (entry.behaviour === 'hang') {
  const timeout = options.filter(([f, v]) => f === 'o' && /^connecttimeout[ =]/i.test(v)).map(([, v]) => Number(v.split(/[ =]/)[1])).at(-1);
  if (timeout > 0) setTimeout(() => fail('ssh: connect to host ' + host + ' port ' + port + ': Connection timed out'), timeout * 1000);
  else setInterval(() => {}, 1 << 30);
} else {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(PANEFLOW_|XDG_RUNTIME_DIR$|XDG_STATE_HOME$|TMUX)/.test(k)));
  Object.assign(env, entry.env ?? {});
  const cwd = env.HOME && require('node:fs').existsSync(env.HOME) ? env.HOME : undefined;
  const child = spawn('/bin/sh', command === '' ? [] : ['-c', command], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  process.stdin.pipe(child.stdin);
  child.stdout.pipe(process.stdout);
  child.stderr.pipe(process.stderr);
  child.stdin.on('error', () => {});
  process.stdout.on('error', () => process.exit(255));
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => process.exit(255));
  // Exits once what the command wrote is out, as ssh does when the session closes.
  child.on('close', (code) => {
    process.exitCode = code ?? 255;
    process.stdin.unpipe();
    process.stdin.destroy();
  });
}
`;

/**
 * Writes an executable `ssh` into `dir` (put `dir` first on PATH) that stands for OpenSSH's
 * client where a machine link is concerned, `destinations` its known hosts. Each destination may
 * be a second Paneflow instance on this machine: its env names another PANEFLOW_HOME and
 * XDG_RUNTIME_DIR. Returns a way to change a destination and to read the calls made.
 */
export function fakeSsh(dir: string, destinations: Record<string, FakeDestination> = {}) {
  writeTextAtomic(join(dir, 'ssh'), `#!${process.execPath}\n${SCRIPT}`, 0o755);
  writeJsonAtomic(join(dir, CONFIG), destinations);
  const config = () => readJson<Record<string, FakeDestination>>(join(dir, CONFIG)) ?? {};
  return {
    path: join(dir, 'ssh'),
    /** Adds or changes a destination; the next call sees it. */
    set(destination: string, behaviour: FakeDestination): void {
      writeJsonAtomic(join(dir, CONFIG), { ...config(), [destination]: behaviour });
    },
    /** Forgets a destination: its name no longer resolves. */
    remove(destination: string): void {
      const { [destination]: _gone, ...rest } = config();
      writeJsonAtomic(join(dir, CONFIG), rest);
    },
    calls(): FakeSshCall[] {
      const log = join(dir, LOG);
      if (!existsSync(log)) return [];
      return readFileSync(log, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as FakeSshCall);
    },
  };
}
export type FakeSsh = ReturnType<typeof fakeSsh>;

/**
 * A temp home (`makeHome`, or any with a `bin` dir and an env) as a fake ssh destination: a second
 * Paneflow instance on this machine, with a `paneflow` on its PATH that runs this checkout's CLI,
 * as the far machine's login finds it, and the home's gates (`PANEFLOW_IPC_*`) in that login's
 * environment, so a far serve the bridge starts again has them too.
 */
export function homeDestination(home: Pick<Home, 'dir' | 'env'>, behaviour: FakeDestination['behaviour'] = 'run'): FakeDestination {
  writeTextAtomic(join(home.dir, 'bin/paneflow'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`, 0o755);
  const login = ['HOME', 'PANEFLOW_HOME', 'XDG_RUNTIME_DIR', 'PANEFLOW_CONFIG', 'PATH', 'SHELL'].map((key) => [key, home.env[key]!]);
  const gates = Object.entries(home.env).filter((entry): entry is [string, string] => entry[0].startsWith('PANEFLOW_IPC_') && entry[1] !== undefined);
  return { behaviour, env: Object.fromEntries([...login, ...gates]) };
}
