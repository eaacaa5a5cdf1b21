import { runtimeCatalog } from '@paneflow/procscan';
import { BUILD_ID, call, ensureServe, LockFile, prepareRuntimeDir, processStartTime, resolveEndpoints, serveStatus, type PublicMethods } from '@paneflow/rpc';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSource, configPath } from './config';
import { Serve } from './serve';

const USAGE = `usage: paneflow-serve [--home DIR] <command>

commands:
  start                 ensure serve runs (and the host); adopts a running one; prints JSON
  status                print {pid, protocol, home, sessions, capabilities}; exit 1 when none runs
  stop [--drain-ms N]   stop serve after letting requests and streams drain (default 5000 ms)
  run                   run serve in the foreground (what start spawns)

Capabilities come from serve's environment: PANEFLOW_IPC_SCRIPTING=1, PANEFLOW_IPC_ORCHESTRATION=1.
example: PANEFLOW_IPC_SCRIPTING=1 paneflow-serve start`;

function fail(message: string, code = 1): never {
  process.stderr.write(`paneflow-serve: ${message}\n`);
  process.exit(code);
}

function parse(argv: string[]) {
  let home: string | undefined;
  let drainMs = 5000;
  const words: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--home') home = argv[++i] ?? fail(`--home needs a directory\n${USAGE}`, 2);
    else if (arg === '--drain-ms') {
      drainMs = Number(argv[++i]);
      if (!Number.isInteger(drainMs) || drainMs < 0) fail('--drain-ms needs a whole number of milliseconds', 2);
    } else if (arg === '--help' || arg === '-h') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    } else if (arg.startsWith('-')) fail(`unknown flag '${arg}'\n${USAGE}`, 2);
    else words.push(arg);
  }
  if (words.length !== 1) fail(USAGE, 2);
  return { command: words[0], home, drainMs };
}

const log = (message: string) => process.stderr.write(`${new Date().toISOString()} [serve ${process.pid}] ${message}\n`);

async function run(endpoints: ReturnType<typeof resolveEndpoints>) {
  const dir = join(endpoints.home, 'serve');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  prepareRuntimeDir(endpoints);
  const owner = new LockFile(join(dir, 'owner.lock'));
  const holder = owner.tryAcquire();
  if (holder) fail(`another serve (pid ${holder.pid}) owns ${endpoints.home}`);
  const catalog = runtimeCatalog();
  const visibilityKeys = new Set(catalog.runtimes.map((r) => r.display.visibility_config_key));
  const config = new ConfigSource(configPath(), visibilityKeys, log);
  const capabilities = { scripting: process.env.PANEFLOW_IPC_SCRIPTING === '1', orchestration: process.env.PANEFLOW_IPC_ORCHESTRATION === '1' };
  const serve = new Serve(endpoints, BUILD_ID, capabilities, config, catalog, log);
  serve.onShutdown = () => {
    owner.release();
    log('serve stopped');
    process.exit(0);
  };
  try {
    await serve.start();
  } catch (error) {
    owner.release();
    fail(`cannot start: ${(error as Error).message}`);
  }
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void serve.shutdown(1000));
  process.on('SIGHUP', () => undefined);
  log(`serving ${endpoints.home} on ${endpoints.publicSocket} (scripting ${capabilities.scripting}, orchestration ${capabilities.orchestration})`);
}

async function main() {
  const { command, home, drainMs } = parse(process.argv.slice(2));
  const endpoints = resolveEndpoints(home ? { ...process.env, PANEFLOW_HOME: home } : process.env);
  switch (command) {
    case 'run':
      return run(endpoints);
    case 'start': {
      const info = await ensureServe(endpoints, [process.execPath, process.argv[1]]);
      process.stdout.write(JSON.stringify(info) + '\n');
      return;
    }
    case 'status': {
      const status = await serveStatus(endpoints);
      if (!status) fail(`no serve runs for ${endpoints.home} (socket ${endpoints.publicSocket})`);
      process.stdout.write(JSON.stringify(status) + '\n');
      return;
    }
    case 'stop': {
      const status = await serveStatus(endpoints);
      if (!status) fail(`no serve runs for ${endpoints.home}`);
      await call<PublicMethods, 'serve.shutdown'>(endpoints.publicSocket, 'serve.shutdown', { drain_ms: drainMs });
      const deadline = Date.now() + drainMs + 5000;
      while (processStartTime(status.pid) !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      process.stdout.write(JSON.stringify({ stopped: true, pid: status.pid }) + '\n');
      return;
    }
    default:
      fail(`unknown command '${command}'\n${USAGE}`, 2);
  }
}

main().catch((error) => fail(error instanceof Error ? error.message : String(error)));
