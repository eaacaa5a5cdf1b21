import {
  BUILD_ID,
  ensureHost,
  hostStatus,
  HOST_PROTOCOL_VERSION,
  LockFile,
  prepareRuntimeDir,
  processStartTime,
  resolveEndpoints,
  RpcConnection,
  RpcError,
  writeJsonAtomic,
  type HostMethods,
} from '@paneflow/rpc';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Host } from './host';

const USAGE = `usage: paneflow-host [--home DIR] <command>

commands:
  start          ensure a host runs for the home (adopts a running one); prints {pid, endpoint, home, protocol, adopted}
  status         print host.status as JSON; exit 1 when no host runs
  stop [--force] stop the host; refused while sessions are live unless --force stops them
  serve          run the host in the foreground (what start spawns)

The home is --home, else $PANEFLOW_HOME, else $XDG_STATE_HOME/paneflow, else ~/.local/state/paneflow.
example: paneflow-host --home /tmp/pf start`;

function fail(message: string, code = 1): never {
  process.stderr.write(`paneflow-host: ${message}\n`);
  process.exit(code);
}

function parse(argv: string[]) {
  let home: string | undefined;
  let force = false;
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--home') {
      home = argv[++i];
      if (!home) fail('--home needs a directory\n' + USAGE, 2);
    } else if (arg === '--force') force = true;
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    } else if (arg.startsWith('-')) fail(`unknown flag '${arg}'\n${USAGE}`, 2);
    else words.push(arg);
  }
  if (words.length !== 1) fail(USAGE, 2);
  if (force && words[0] !== 'stop') fail('--force goes with stop', 2);
  return { command: words[0], home, force };
}

const log = (message: string) => process.stderr.write(`${new Date().toISOString()} [host ${process.pid}] ${message}\n`);

async function serve(endpoints: ReturnType<typeof resolveEndpoints>) {
  const hostDir = join(endpoints.home, 'host');
  mkdirSync(hostDir, { recursive: true, mode: 0o700 });
  prepareRuntimeDir(endpoints);
  const owner = new LockFile(join(hostDir, 'owner.lock'));
  const holder = owner.tryAcquire();
  if (holder) fail(`another host (pid ${holder.pid}) owns ${endpoints.home}`);
  const host = new Host(endpoints, BUILD_ID, log);
  const instanceFile = join(hostDir, 'instance.json');
  host.onShutdown = () => {
    rmSync(instanceFile, { force: true });
    owner.release();
    log('host stopped');
    process.exit(0);
  };
  try {
    await host.start();
  } catch (error) {
    owner.release();
    fail(`cannot start: ${(error as Error).message}`);
  }
  writeJsonAtomic(instanceFile, {
    pid: process.pid,
    started_at: processStartTime(process.pid),
    protocol: HOST_PROTOCOL_VERSION,
    build_id: BUILD_ID,
    instance: host.instance,
  });
  process.on('SIGHUP', () => undefined);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      log(`${signal}: stopping every session`);
      void host.shutdown();
    });
  }
  log(`host ${host.instance} (${BUILD_ID}) serving ${endpoints.home} on ${endpoints.hostSocket}`);
}

async function stop(endpoints: ReturnType<typeof resolveEndpoints>, force: boolean) {
  const status = await hostStatus(endpoints, 'paneflow-host stop');
  if (!status) fail(`no host runs for ${endpoints.home}`);
  const connection = await RpcConnection.connect<HostMethods>(endpoints.hostSocket);
  try {
    await connection.request('host.hello', { client: 'paneflow-host stop', protocol: HOST_PROTOCOL_VERSION });
    await connection.request('host.shutdown', { force }, { timeoutMs: 15_000 });
  } catch (error) {
    if (error instanceof RpcError && error.reason === 'sessions_live') {
      const live = (error.data?.live as string[]) ?? [];
      fail(`refused: ${live.length} session(s) live (use --force to stop them):\n${live.map((s) => `  ${s}`).join('\n')}`);
    }
    throw error;
  } finally {
    connection.close();
  }
  const deadline = Date.now() + 10_000;
  while (processStartTime(status.pid) !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  process.stdout.write(JSON.stringify({ stopped: true, pid: status.pid }) + '\n');
}

async function main() {
  const { command, home, force } = parse(process.argv.slice(2));
  const endpoints = resolveEndpoints(home ? { ...process.env, PANEFLOW_HOME: home } : process.env);
  switch (command) {
    case 'serve':
      return serve(endpoints);
    case 'start': {
      const info = await ensureHost(endpoints, [process.execPath, process.argv[1]]);
      process.stdout.write(JSON.stringify(info) + '\n');
      return;
    }
    case 'status': {
      const status = await hostStatus(endpoints, 'paneflow-host status');
      if (!status) fail(`no host runs for ${endpoints.home} (socket ${endpoints.hostSocket})`);
      process.stdout.write(JSON.stringify(status) + '\n');
      return;
    }
    case 'stop':
      return stop(endpoints, force);
    default:
      fail(`unknown command '${command}'\n${USAGE}`, 2);
  }
}

main().catch((error) => fail(error instanceof Error ? error.message : String(error)));
