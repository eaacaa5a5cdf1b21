import { prepareRuntimeDir, resolveEndpoints } from '@paneflow/instance';
import { runtimeCatalog } from '@paneflow/procscan';
import type { ParamsOf, PublicMethods, ResultOf } from '@paneflow/protocol';
import { call, type RpcConnection } from '@paneflow/rpc';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigSource } from '../../src/config';
import { Serve } from '../../src/serve';
import { EventStream } from '../helpers';
import { FakeClock } from './fake-clock';
import { FakeHost, type SessionSpec } from './fake-host';

export interface InProcessOptions {
  scripting?: boolean;
  orchestration?: boolean;
  config?: Record<string, unknown>;
  /** Sessions the host runs when serve starts: serve adopts each as a pane. */
  sessions?: SessionSpec[];
}

/**
 * serve in the test's own process, on its real public socket in a temp home, following a
 * `FakeHost` and deciding by a `FakeClock`: requests go through the same method table, gates and
 * dispatch as every client's, and time moves only when the test moves it.
 */
export async function startInProcess(options: InProcessOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'pf-inproc-'));
  const endpoints = resolveEndpoints({ PANEFLOW_HOME: join(dir, 'home'), XDG_RUNTIME_DIR: join(dir, 'run'), HOME: dir });
  // What serve's daemon start makes before it constructs serve (main.ts, @paneflow/instance).
  mkdirSync(join(endpoints.home, 'serve'), { recursive: true });
  prepareRuntimeDir(endpoints);
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify(options.config ?? {}));
  const logged: string[] = [];
  const log = (message: string) => void logged.push(message);
  const catalog = runtimeCatalog();
  const config = new ConfigSource(configFile, new Set(catalog.runtimes.map((r) => r.display.visibility_config_key)), log);
  const clock = new FakeClock();
  const host = new FakeHost(clock, endpoints.home);
  const sessions = (options.sessions ?? []).map((spec) => host.addSession(spec));
  const capabilities = { scripting: options.scripting ?? false, orchestration: options.orchestration ?? false };
  const serve = new Serve(endpoints, 'inproc-test', capabilities, config, catalog, log, { host: host.port, clock });
  await serve.start();
  const streams: RpcConnection<PublicMethods>[] = [];
  return {
    serve,
    host,
    clock,
    sessions,
    logged,
    call<M extends keyof PublicMethods & string>(method: M, params: ParamsOf<PublicMethods, M>): Promise<ResultOf<PublicMethods, M>> {
      return call<PublicMethods, M>(endpoints.publicSocket, method, params);
    },
    /** A subscription without heartbeats (they run on the real clock): only what serve decided arrives. */
    async subscribe(params: ParamsOf<PublicMethods, 'events.subscribe'> = {}): Promise<EventStream> {
      const stream = await EventStream.open(endpoints.publicSocket, { heartbeat: false, ...params });
      streams.push(stream.connection);
      return stream;
    },
    /** The surface id of the pane serve shows `session` in. */
    async surfaceOf(session: string): Promise<number> {
      const { sessions: rows } = await call<PublicMethods, 'session.list'>(endpoints.publicSocket, 'session.list', {});
      const row = rows.find((r) => r.session === session);
      if (!row) throw new Error(`serve shows no pane for session ${session}`);
      return row.surface_id;
    },
    async stop(): Promise<void> {
      for (const stream of streams) stream.destroy();
      // Serve's shutdown finishes its turn records' writes and takes no more: nothing writes here after it.
      await serve.shutdown(0);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type InProcess = Awaited<ReturnType<typeof startInProcess>>;
