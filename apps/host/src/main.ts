import { BUILD_ID, connectHost, daemonMain, endProcess, ensureHost, hostStatus, restoreUserEnvironment, runningOwner, takeOwnership, writeJsonAtomic } from '@paneflow/instance';
import { processStartTime } from '@paneflow/proc';
import { HOST_PROTOCOL_VERSION, RpcError } from '@paneflow/protocol';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Host } from './host';
import { hostMethods } from './host-methods';
import { startTerminalThread } from './terminals';

/** How long `stop` gives the host to stop its sessions (5 s each, at once) and exit; one stopped by signal then gets SIGKILL. */
const HOST_STOP_MS = 15_000;

const USAGE = `usage: paneflow-host [--home DIR] <command>
       paneflow-host --version

commands:
  start          ensure a host runs for the home (adopts a running one); prints {pid, endpoint, home, protocol, adopted}
  status         print host.status as JSON; exit 1 when no host runs
  stop [--force] stop the host; refused while sessions are live unless --force stops them
                 (a host that does not answer on its socket: --force stops it by signal)
  serve          run the host in the foreground (what start spawns)

The home is --home, else $PANEFLOW_HOME, else $XDG_STATE_HOME/paneflow, else ~/.local/state/paneflow.
example: paneflow-host --home /tmp/pf start`;

daemonMain({
  program: 'paneflow-host',
  usage: USAGE,
  commands: {
    async serve(context) {
      // The allocator the host was started with is the host's alone: panes get the user's environment.
      restoreUserEnvironment(process.env);
      const { endpoints, log, fail } = context;
      const owner = takeOwnership(context, 'host');
      const terminals = startTerminalThread(join(__dirname, 'paneflow-host-terminals.cjs'), (error) => {
        // Every session's screen and records lived there: a host without them is no host.
        log(`the terminals' thread failed: ${error.message}`);
        process.exit(70);
      });
      const host = new Host(endpoints, BUILD_ID, terminals, log);
      const instanceFile = join(endpoints.home, 'host', 'instance.json');
      host.onShutdown = () => {
        rmSync(instanceFile, { force: true });
        owner.release();
        log('host stopped');
        process.exit(0);
      };
      try {
        await host.start(hostMethods(host));
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
          if (host.shuttingDown) return; // already stopping
          log(`${signal}: stopping every session`);
          void host.stopSessions().then(() => host.shutdown());
        });
      }
      log(`host ${host.instance} (${BUILD_ID}) serving ${endpoints.home} on ${endpoints.hostSocket}`);
    },
    async start({ endpoints }) {
      const info = await ensureHost(endpoints, [process.execPath, process.argv[1]]);
      process.stdout.write(JSON.stringify(info) + '\n');
    },
    async status({ endpoints, fail }) {
      const status = await hostStatus(endpoints, 'paneflow-host status');
      if (!status) fail(`no host runs for ${endpoints.home} (socket ${endpoints.hostSocket})`);
      process.stdout.write(JSON.stringify(status) + '\n');
    },
    stop: {
      flags: { force: 'boolean' },
      async run({ endpoints, flags, fail }) {
        const status = await hostStatus(endpoints, 'paneflow-host stop');
        if (!status) {
          // Its socket is gone or it hangs: the owner lock still names it, and SIGTERM stops its sessions first.
          const owner = runningOwner(endpoints.home, 'host');
          if (!owner) return fail(`no host runs for ${endpoints.home}`);
          if (!flags.force) return fail(`the host (pid ${owner.pid}) does not answer on its socket; --force stops it and every session by signal`);
          if (!(await endProcess(owner, HOST_STOP_MS, { kill: true }))) return fail(`the host (pid ${owner.pid}) is still running after SIGKILL`);
          process.stdout.write(JSON.stringify({ stopped: true, pid: owner.pid, signalled: true }) + '\n');
          return;
        }
        const { connection } = await connectHost(endpoints, 'paneflow-host stop');
        try {
          await connection.request('host.shutdown', { force: !!flags.force }, { timeoutMs: HOST_STOP_MS });
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
        while (processStartTime(status!.pid) !== null && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
        process.stdout.write(JSON.stringify({ stopped: true, pid: status!.pid }) + '\n');
      },
    },
  },
});
