import { resolveEndpoints } from '@paneflow/instance';
import { processStartTime, readProcStat } from '@paneflow/proc';
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { CLI, processesOfHome, until, type HomeProcess } from './index';

/** A unix user of this machine that a test logs in as over ssh. */
export interface UnixUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

/** Why this machine cannot run an sshd for a test, or null (a skipped test says it). */
export function sshdUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'the test sshd runs as root, to log users in';
  if (!existsSync('/usr/sbin/sshd') || spawnSync('sh', ['-c', 'command -v ssh']).status !== 0) return 'no sshd or ssh (apt-get install openssh-server openssh-client)';
  return null;
}

/** The first directory on the way to `path` (or the file itself) that `user` cannot go through or read. */
function barrierFor(user: string, path: string): string | null {
  const steps: string[] = [];
  for (let at = path; ; at = dirname(at)) {
    steps.unshift(at);
    if (at === '/') break;
  }
  for (const step of steps) {
    const test = statSync(step).isDirectory() ? '-x' : '-r';
    if (spawnSync('runuser', ['-u', user, '--', 'test', test, step]).status !== 0) return `${step} (mode ${(statSync(step).mode & 0o7777).toString(8)}, owner uid ${statSync(step).uid})`;
  }
  return null;
}

/**
 * The unix user `name` (created once: `useradd`, its own home), able to run this checkout's
 * Paneflow: the bundles a far `paneflow` runs (the CLI, serve, the host and node-pty's native
 * module) must be readable by it from / down. Root only. The user, or why there can be none.
 */
export function ensureUser(name = 'paneflow-far'): UnixUser | { skip: string } {
  const unavailable = sshdUnavailable();
  if (unavailable) return { skip: unavailable };
  if (spawnSync('id', ['-u', name]).status !== 0) {
    const made = spawnSync('useradd', ['--create-home', '--shell', '/bin/sh', '--comment', 'Paneflow tests, the far end of a machine link', name], { encoding: 'utf8' });
    // Another test run may have made it meanwhile.
    if (made.status !== 0 && spawnSync('id', ['-u', name]).status !== 0) return { skip: `useradd ${name} failed: ${made.stderr.trim()}` };
  }
  // useradd leaves the password locked (`!`), and sshd without PAM refuses a locked account even
  // a key: `*` has no password either, and is not locked.
  if (spawnSync('getent', ['shadow', name], { encoding: 'utf8' }).stdout.split(':')[1]?.startsWith('!')) spawnSync('usermod', ['--password', '*', name]);
  const entry = spawnSync('getent', ['passwd', name], { encoding: 'utf8' }).stdout.trim().split(':');
  const user = { name, uid: Number(entry[2]), gid: Number(entry[3]), home: entry[5] };
  const root = join(dirname(CLI), '../../..');
  const needed = [CLI, join(root, 'apps/serve/dist/paneflow-serve.cjs'), join(root, 'apps/host/dist/paneflow-host.cjs'), join(root, 'node_modules/node-pty/build/Release/pty.node')];
  for (const path of needed) {
    const barrier = barrierFor(name, path);
    if (barrier) return { skip: `${name} cannot read ${path}: it stops at ${barrier}` };
  }
  return user;
}

/**
 * A login of `user` for one sshd: a directory of its own in the user's home holding the
 * authorized key, `bin/paneflow` (a wrapper that runs this checkout's CLI) and the user's
 * Paneflow (its PANEFLOW_HOME and XDG_RUNTIME_DIR), so that test runs of several checkouts at once
 * share nothing but the account.
 */
export interface Login {
  user: UnixUser;
  dir: string;
  /** What sshd sets for the user's sessions: PATH (the wrapper first) and its Paneflow's. */
  env: Record<string, string>;
  /** Its Paneflow's processes still running (host, serve, what runs in their panes). */
  processes(): HomeProcess[];
}

function makeLogin(user: UnixUser, publicKey: string): Login {
  const dir = join(user.home, 'paneflow-tests', `${process.pid}-${Date.now().toString(36)}`);
  for (const sub of ['', 'bin', 'run', 'home']) mkdirSync(join(dir, sub), { recursive: true, mode: 0o700 });
  writeFileSync(join(dir, 'authorized_keys'), publicKey, { mode: 0o600 });
  writeFileSync(join(dir, 'bin/paneflow'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`, { mode: 0o700 });
  for (const path of [join(user.home, 'paneflow-tests'), dir, ...['bin', 'run', 'home', 'authorized_keys', 'bin/paneflow'].map((p) => join(dir, p))]) chownSync(path, user.uid, user.gid);
  const env = { PATH: `${join(dir, 'bin')}:/usr/local/bin:/usr/bin:/bin`, XDG_RUNTIME_DIR: join(dir, 'run'), PANEFLOW_HOME: join(dir, 'home') };
  return { user, dir, env, processes: () => processesOfHome(dir, env.PANEFLOW_HOME) };
}

/** The socket this login's Paneflow listens on. */
export const loginSocket = (login: Login) => resolveEndpoints({ ...login.env, HOME: login.user.home }, login.user.uid).publicSocket;

/** A port nothing listens on now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Every process below `pid` (by /proc), deepest last. */
function descendants(pid: number): Array<{ pid: number; startedAt: number }> {
  const all = readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map((n) => ({ pid: Number(n), stat: readProcStat(Number(n)) }))
    .filter((p) => p.stat);
  const found: Array<{ pid: number; startedAt: number }> = [];
  const parents = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!parents.has(p.pid) && parents.has(p.stat!.ppid)) {
        parents.add(p.pid);
        found.push({ pid: p.pid, startedAt: p.stat!.startTime });
        grew = true;
      }
    }
  }
  return found;
}

const killByPid = (processes: Array<{ pid: number; startedAt: number }>) => {
  for (const p of processes) {
    try {
      if (processStartTime(p.pid) === p.startedAt) process.kill(p.pid, 'SIGKILL');
    } catch {
      // gone in between
    }
  }
};

/**
 * An sshd of the test's own on a free port of 127.0.0.1, taking one key of its own: root's login,
 * and one for each of `users` (a `Login`: its key, PATH and Paneflow set through `Match User`).
 * `ssh(user, command)` is the client's argv; `stop()` stops each login's Paneflow (`paneflow stop
 * --force` over ssh, then whatever still runs, by pid), removes its directory, and ends sshd
 * with every session it runs.
 */
export async function startSshd(dir: string, { users = [] }: { users?: UnixUser[] } = {}) {
  const key = join(dir, 'client-key');
  const hostKey = join(dir, 'host-key');
  for (const file of [key, hostKey]) spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', file]);
  const publicKey = readFileSync(`${key}.pub`, 'utf8');
  writeFileSync(join(dir, 'authorized_keys'), publicKey);
  const logins = new Map(users.map((user) => [user.name, makeLogin(user, publicKey)]));
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  const matches = [...logins.values()].flatMap((login) => [
    `Match User ${login.user.name}`,
    `  AuthorizedKeysFile ${join(login.dir, 'authorized_keys')}`,
    `  SetEnv ${Object.entries(login.env).map(([k, v]) => `${k}=${v}`).join(' ')}`,
  ]);
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      'PasswordAuthentication no',
      'UsePAM no',
      'StrictModes no',
      `PidFile ${join(dir, 'sshd.pid')}`,
      'PermitRootLogin yes',
      ...matches,
      '',
    ].join('\n'),
  );
  // sshd wants its privilege-separation directory.
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  sshd.stderr.on('data', (chunk) => (log += chunk));
  const stopSshd = () => {
    const sessions = sshd.pid ? descendants(sshd.pid) : [];
    sshd.kill('SIGKILL');
    killByPid(sessions);
  };
  const ssh = (user: string, command: string, options: string[] = []) => [
    'ssh',
    '-p',
    String(port),
    '-i',
    key,
    '-o',
    'StrictHostKeyChecking=no',
    '-o',
    'UserKnownHostsFile=/dev/null',
    '-o',
    'LogLevel=ERROR',
    '-o',
    'BatchMode=yes',
    ...options,
    `${user}@127.0.0.1`,
    command,
  ];
  // It listens a moment after it starts: a client before that is refused.
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
  await until(listening, 'sshd listening').catch((error: Error) => {
    stopSshd();
    throw new Error(`${error.message}; sshd said: ${log}`, { cause: error });
  });
  return {
    port,
    key,
    /** What sshd wrote on stderr (its refusals say why). */
    get log() {
      return log;
    },
    login(name: string): Login {
      const login = logins.get(name);
      if (!login) throw new Error(`no login for ${name}: pass it in startSshd's users`);
      return login;
    },
    ssh,
    stop() {
      for (const login of logins.values()) {
        const [program, ...args] = ssh(login.user.name, 'paneflow stop --force');
        spawnSync(program, args, { stdio: 'ignore', timeout: 30_000 });
        killByPid(login.processes());
        rmSync(login.dir, { recursive: true, force: true });
      }
      stopSshd();
    },
  };
}
export type Sshd = Awaited<ReturnType<typeof startSshd>>;
