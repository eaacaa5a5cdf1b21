import { BUILD_ID, daemonMain, endProcess, ensureServe, readJson, runningOwner, serveStatus, takeOwnership, writeJsonAtomic } from '@paneflow/instance';
import { runtimeCatalog } from '@paneflow/procscan';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSource, configPath } from './config';
import { Serve } from './serve';

/** How long a SIGTERM or SIGINT lets requests and streams drain, unless `stop` asked for another time. */
const SIGNAL_DRAIN_MS = 1000;

/**
 * `stop --drain-ms` leaves its drain time here, for the serve it names, before it sends SIGTERM:
 * a signal carries no value, and only the owner of the home can write the file.
 */
const stopRequestPath = (home: string) => join(home, 'serve', 'stop-request.json');

function requestedDrainMs(home: string): number {
  const path = stopRequestPath(home);
  let request: { pid?: unknown; drain_ms?: unknown } | undefined;
  try {
    request = readJson(path);
  } catch {
    request = undefined; // unreadable: the default
  }
  rmSync(path, { force: true });
  const drainMs = request?.drain_ms;
  return request?.pid === process.pid && Number.isSafeInteger(drainMs) && (drainMs as number) >= 0 ? (drainMs as number) : SIGNAL_DRAIN_MS;
}

const USAGE = `usage: paneflow-serve [--home DIR] <command>
       paneflow-serve --version

commands:
  start                 ensure serve runs (and the host); adopts a running one; prints JSON
  status                print {pid, protocol, home, sessions, capabilities}; exit 1 when none runs
  stop [--drain-ms N]   stop serve after letting requests and streams drain (default 5000 ms)
  run                   run serve in the foreground (what start spawns)

Capabilities come from serve's environment: PANEFLOW_IPC_SCRIPTING=1, PANEFLOW_IPC_ORCHESTRATION=1.
example: PANEFLOW_IPC_SCRIPTING=1 paneflow-serve start`;

daemonMain({
  program: 'paneflow-serve',
  usage: USAGE,
  commands: {
    async run(context) {
      const { endpoints, log, fail } = context;
      const owner = takeOwnership(context, 'serve');
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
      process.on('SIGTERM', () => void serve.shutdown(requestedDrainMs(endpoints.home)));
      process.on('SIGINT', () => void serve.shutdown(SIGNAL_DRAIN_MS));
      process.on('SIGHUP', () => undefined);
      log(`serving ${endpoints.home} on ${endpoints.publicSocket} (scripting ${capabilities.scripting}, orchestration ${capabilities.orchestration})`);
    },
    async start({ endpoints }) {
      const info = await ensureServe(endpoints, [process.execPath, process.argv[1]]);
      process.stdout.write(JSON.stringify(info) + '\n');
    },
    async status({ endpoints, fail }) {
      const status = await serveStatus(endpoints);
      if (!status) fail(`no serve runs for ${endpoints.home} (socket ${endpoints.publicSocket})`);
      process.stdout.write(JSON.stringify(status) + '\n');
    },
    stop: {
      flags: { 'drain-ms': 'integer' },
      // Not over the socket (serve.shutdown is gated like orchestration, and a socket may be gone):
      // SIGTERM, which only the user (or root) can send, to the process that holds serve's
      // owner.lock, known by its pid and start time so that a recycled pid is never signalled.
      async run({ endpoints, flags, fail }) {
        const drainMs = (flags['drain-ms'] as number | undefined) ?? 5000;
        const holder = runningOwner(endpoints.home, 'serve');
        if (!holder) return fail(`no serve runs for ${endpoints.home}`);
        writeJsonAtomic(stopRequestPath(endpoints.home), { pid: holder.pid, drain_ms: drainMs });
        if (!(await endProcess(holder, drainMs + 5000, { kill: false }))) fail(`serve (pid ${holder.pid}) is still running ${drainMs + 5000} ms after SIGTERM`);
        process.stdout.write(JSON.stringify({ stopped: true, pid: holder.pid }) + '\n');
      },
    },
  },
});
