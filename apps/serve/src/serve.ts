import { prepareRuntimeDir, type Endpoints } from '@paneflow/instance';
import type { Catalog } from '@paneflow/procscan';
import { FIRST_LINE_DEADLINE_MS, MAX_CONNECTIONS, MAX_SUBSCRIBERS, PublicMethods, REQUEST_DEADLINE_MS } from '@paneflow/protocol';
import { RpcServer } from '@paneflow/rpc';
import { join } from 'node:path';
import { presentationOf, type ConfigSource } from './config';
import { ServeContext, type Capabilities } from './context';
import { EventHub } from './events';
import { HookIntake } from './hooks';
import type { Clock } from './clock';
import { HostLink, type HostEvents, type HostPort } from './hostlink';
import type { Parts } from './methods/parts';
import { machineMethods } from './methods/machines';
import { ruleMethods } from './methods/rules';
import { Machines } from './machines/machines';
import { routed } from './machines/routing';
import { sessionMethods } from './methods/sessions';
import { surfaceMethods } from './methods/surfaces';
import { systemMethods } from './methods/system';
import { queueMethods } from './methods/queue';
import { turnMethods } from './methods/turns';
import { workspaceMethods } from './methods/workspaces';
import { SessionMirror } from './mirror';
import { Model } from './model';
import { Panes } from './panes';
import { Readiness } from './prompts';
import { Restorer } from './restore';
import { Limits } from './supervisor/limits';
import { Sending } from './sending';
import { Stalls } from './supervisor/stalls';
import { Reduction } from './status';
import { PromptQueue } from './supervisor/queue';
import { AnswerRules } from './supervisor/rules';
import { recreateUnsaved } from './unsaved';
import { Workspaces } from './workspaces';

export type { Capabilities };

/**
 * What a test may put in place of the real thing (apps/serve/test/inproc): the host serve follows
 * (by default `HostLink` over host.sock, starting a host when none runs) and the clock of its
 * decisions (by default the system's).
 */
export interface ServeSeams {
  host?: (events: HostEvents) => HostPort;
  clock?: Clock;
}

/**
 * serve: the public socket, the workspace model, the reduced status of every session, write
 * gates, events and notifications (REFERENCE.md §1.3, §2). It owns no PTY and can be killed at
 * any moment: on start it rebuilds everything from the host and its own saved model, silently.
 * This file only wires the parts together.
 */
export class Serve {
  readonly ctx: ServeContext;
  private readonly server: RpcServer<PublicMethods>;
  private draining = false;
  private readonly machines: Machines;
  /** The turn ledger's writes, finished before serve stops. */
  private readonly closeTurns: () => Promise<void>;
  onShutdown: () => void = () => undefined;

  constructor(endpoints: Endpoints, buildId: string, capabilities: Capabilities, config: ConfigSource, catalog: Catalog, log: (message: string) => void, seams: ServeSeams = {}) {
    const model = new Model(join(endpoints.home, 'serve', 'workspaces.json'), log);
    let mirror: SessionMirror | null = null;
    let restorer: Restorer | null = null;
    const events: HostEvents = {
      connected: (manifests) => {
        mirror!.rebuild(manifests);
        // Only what a crash or a reboot took, and only when asked: an agent someone exited stays so.
        const lost = restorer!.candidates(undefined, ['lost']);
        if (ctx.config.current.restore_on_start && lost.length > 0) void restorer!.restore(lost);
      },
      frame: (frame) => mirror!.onHostFrame(frame),
      disconnected: () => {
        log('lost the host; reconnecting');
        mirror!.hostGone();
      },
      stillDown: () => mirror!.hostGone(),
    };
    const host = seams.host ? seams.host(events) : new HostLink(endpoints, events, log);
    const ctx = (this.ctx = new ServeContext(endpoints, buildId, capabilities, config, catalog, model, new EventHub(), host, log, seams.clock));
    const reduction = new Reduction(ctx);
    this.closeTurns = () => reduction.turns.close();
    config.onVisibilityChange = () => reduction.announceAll();
    config.onPresentationChange = () => ctx.publish({ type: 'presentation_changed', presentation: presentationOf(config.current) });
    const readiness = new Readiness(ctx);
    const workspaces = new Workspaces(ctx);
    restorer = new Restorer(ctx, reduction, (pane, view) => recreateUnsaved(ctx, mirror!, reduction, pane, view));
    const hooks = new HookIntake(ctx, reduction, workspaces);
    mirror = new SessionMirror(ctx, reduction, readiness, workspaces, restorer, hooks);
    const sending = new Sending(ctx, reduction, workspaces);
    // The supervisor's observations (issue 33): each acts after the reductions and fills its part of `supervision`.
    const limits = new Limits(ctx, reduction, sending);
    new Stalls(ctx, reduction, sending).onFlag = (view) => void limits.look(view);
    const machines = (this.machines = new Machines({ publish: (frame) => ctx.events.publish(frame), log, configPath: config.path, reloadConfig: () => config.reload() }));
    config.onMachinesChange = () => machines.sync(config.current.machines);
    const parts: Parts = {
      ctx,
      reduction,
      readiness,
      workspaces,
      panes: new Panes(ctx, mirror, readiness, workspaces, reduction),
      sending,
      queue: new PromptQueue(ctx, reduction, sending, workspaces),
      hooks,
      restorer,
      rules: new AnswerRules(ctx, reduction, sending),
      machines,
      shutdown: (drainMs) => void this.shutdown(drainMs),
    };
    this.server = new RpcServer<PublicMethods>({
      methods: PublicMethods,
      handlers: routed(
        { ...systemMethods(parts), ...workspaceMethods(parts), ...surfaceMethods(parts), ...sessionMethods(parts), ...turnMethods(parts), ...queueMethods(parts), ...ruleMethods(parts), ...machineMethods(parts) },
        machines,
      ),
      mode: 'single',
      maxConnections: MAX_CONNECTIONS,
      maxStreams: MAX_SUBSCRIBERS,
      lineDeadlineMs: REQUEST_DEADLINE_MS,
      firstLineDeadlineMs: FIRST_LINE_DEADLINE_MS,
      onRequest: () => ctx.counters.requests++,
      log,
    });
  }

  async start(): Promise<void> {
    this.ctx.config.watch();
    await this.ctx.host.start();
    const { endpoints } = this.ctx;
    await this.server.listen(endpoints.publicSocket, { prepare: () => prepareRuntimeDir(endpoints) });
    this.machines.sync(this.ctx.config.current.machines);
  }

  /** Stops taking connections, lets requests and subscriber queues drain, then exits. */
  async shutdown(drainMs: number): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    const closing = this.server.close(false);
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, drainMs))]);
    this.ctx.events.closeAll();
    this.ctx.model.saveNow();
    await this.closeTurns();
    this.ctx.config.unwatch();
    this.ctx.host.close();
    this.machines.close();
    this.onShutdown();
  }
}
