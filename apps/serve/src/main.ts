import { BUILD_ID, daemonMain, ensureServe, serveStatus, takeOwnership } from '@paneflow/instance';
import { processStartTime } from '@paneflow/proc';
import { runtimeCatalog } from '@paneflow/procscan';
import type { PublicMethods } from '@paneflow/protocol';
import { call } from '@paneflow/rpc';
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
      for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => void serve.shutdown(1000));
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
      async run({ endpoints, flags, fail }) {
        const drainMs = (flags['drain-ms'] as number | undefined) ?? 5000;
        const status = await serveStatus(endpoints);
        if (!status) fail(`no serve runs for ${endpoints.home}`);
        await call<PublicMethods, 'serve.shutdown'>(endpoints.publicSocket, 'serve.shutdown', { drain_ms: drainMs });
        const deadline = Date.now() + drainMs + 5000;
        while (processStartTime(status!.pid) !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        process.stdout.write(JSON.stringify({ stopped: true, pid: status!.pid }) + '\n');
      },
    },
  },
});
