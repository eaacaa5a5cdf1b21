// The verbs about agents and what they declared: ps, status, wait, watch, sessions.
import type { EventType } from '@paneflow/protocol/events';
import { CliError } from '../errors';
import { request, subscribe } from '../instance';
import { agentTable, printJson, sessionTable, statusLine } from '../output';
import { endedBecause } from '../restarts';
import { localPane, noPaneWithId, resolveOne, resolveSelector, surfaceIdTarget, targetOf } from '../select';
import { fleetTable, inboxNow, liveTable } from '../live';
import { wait } from '../wait';
import { flag, machineOf, scopeOf, str, whereOf, type Run } from './common';
import { run as rules } from './rules';

/** Resolves 0 on Ctrl-C, 1 when the stream is lost. */
function untilInterruptOrLoss(stream: { destroy(): void; onClose(listener: () => void): void }): Promise<number> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => {
      stream.destroy();
      resolve(0);
    });
    stream.onClose(() => resolve(1));
  });
}

export const run: Record<string, Run> = {
  ...rules,
  async ps(p) {
    const narrow = machineOf(p);
    if (flag(p, 'watch')) return liveTable(() => fleetTable(narrow));
    const [result, { health }] = await Promise.all([request('fleet.list', narrow), request('serve.status', {})]);
    if (flag(p, 'json')) printJson(result);
    else process.stdout.write(agentTable(result.agents, Date.now(), result.machines) + '\n');
    // On stderr, so that what scripts read of stdout keeps its shape.
    for (const problem of health.problems) process.stderr.write(`paneflow: ${health.state}: ${problem}\n`);
    return 0;
  },
  async inbox(p) {
    const narrow = machineOf(p);
    if (flag(p, 'watch')) return liveTable(() => inboxNow(narrow));
    if (flag(p, 'json')) printJson(await request('fleet.inbox', narrow));
    else process.stdout.write((await inboxNow(narrow)) + '\n');
    return 0;
  },
  async answer(p) {
    const target = await resolveOne(str(p, 'target'), whereOf(p));
    const machine = target.machine ?? null;
    const { items } = await request('fleet.inbox', { machine });
    const item = items.find((i) => i.surface_id === target.surface_id && (i.machine ?? null) === machine);
    if (!item) throw new CliError(`not_waiting: surface ${target.surface_id}${machine ? ` of ${machine}` : ''} is not waiting for you (see paneflow inbox)`, 1, 'not_waiting');
    // Outside any pane a person answers what the inbox shows, in its own workspace, as the desktop does;
    // a pane here is outside every workspace of another machine.
    const workspaceId = (machine ? undefined : process.env.PANEFLOW_WORKSPACE_ID) ?? item.workspace_id;
    try {
      // A script that read the inbox names the prompt it saw (--seq): serve answers no other.
      const state_seq = flag<number>(p, 'seq') ?? item.state_seq;
      const result = await request('surface.answer', { ...targetOf(item), answer: str(p, 'answer'), state_seq, scope: scopeOf(p), workspace_id: workspaceId });
      printJson(result);
      return result.left_waiting ? 0 : 4;
    } catch (error) {
      if (error instanceof CliError && error.reason === 'unknown_answer') throw new CliError(error.message, 2, error.reason);
      throw error;
    }
  },
  async status(p) {
    const selector = str(p, 'target');
    const where = whereOf(p);
    const byId = surfaceIdTarget(selector, where);
    const status = byId
      ? await request('surface.status', byId).catch((error: unknown) => {
          throw noPaneWithId(error, selector);
        })
      : await request('surface.status', targetOf(await resolveOne(selector, where)));
    if (flag(p, 'json')) printJson(status);
    else process.stdout.write(statusLine(status) + '\n');
    return 0;
  },
  async wait(p) {
    const match = flag(p, 'match');
    if (!match) throw new CliError('wait needs --match SEL', 2);
    if (flag(p, 'pattern') === undefined && !flag(p, 'idle')) throw new CliError('wait needs --pattern RE or --idle (or both)', 2);
    if (flag(p, 'any') && flag(p, 'all')) throw new CliError('--any and --all cannot go together', 2);
    return wait(match, {
      pattern: flag(p, 'pattern'),
      idle: !!flag(p, 'idle'),
      forMs: flag<number>(p, 'for') ?? 1000,
      timeoutS: flag<number>(p, 'timeout') ?? 300,
      any: !!flag(p, 'any'),
      all: !!flag(p, 'all'),
      where: whereOf(p),
    });
  },
  async watch(p) {
    const selectors = flag<string[]>(p, 'surface') ?? [];
    const surfaces: number[] = [];
    for (const selector of selectors) surfaces.push(...(await resolveSelector(selector, { scope: 'all' }, true)).map((s) => localPane(s, 'watch --surface')));
    const types = flag<string[]>(p, 'type') as EventType[] | undefined;
    const eventsOnly = !!flag(p, 'events-only');
    const params = { ...(selectors.length ? { surfaces } : {}), ...(types ? { types } : {}) };
    // `subscribed` says every later event will be seen: printed once serve has the subscription,
    // and before a first frame that came with serve's answer.
    let announced = eventsOnly;
    const announce = () => {
      if (!announced) printJson({ type: 'subscribed', surfaces: params.surfaces ?? null, types: types ?? null });
      announced = true;
    };
    const stream = await subscribe(params, (frame) => {
      if (eventsOnly && frame.type === 'heartbeat') return;
      announce();
      printJson(frame);
    });
    announce();
    return untilInterruptOrLoss(stream);
  },
  async sessions(p) {
    const action = p.args.action as string | undefined;
    if (action !== undefined && action !== 'ack') throw new CliError(`unknown sessions action '${action}'; see \`paneflow sessions --help\``, 2);
    if (action === 'ack') {
      const ids = p.args.ids as string[];
      if (ids.length === 0) throw new CliError('sessions ack needs session ids', 2);
      printJson(await request('session.ack', { sessions: ids }));
      return 0;
    }
    if (!flag(p, 'follow')) {
      const { sessions, machines } = await request('session.list', machineOf(p));
      const lost = !!flag(p, 'lost');
      const rows = lost ? sessions.filter((s) => s.lifecycle !== 'live' && s.lifecycle !== 'starting') : sessions;
      if (flag(p, 'json')) printJson({ sessions: lost ? rows.map((row) => ({ ...row, why: endedBecause(row) })) : rows, ...(machines ? { machines } : {}) });
      else if (lost && rows.length === 0) process.stdout.write('every session is running\n');
      else process.stdout.write(sessionTable(rows, lost ? endedBecause : undefined, machines) + '\n');
      return 0;
    }
    // One line per transition, across losses of serve: it reconnects every second.
    for (;;) {
      const code = await subscribe({ types: ['status_changed', 'session_changed'] }, (frame) => printJson(frame)).then(untilInterruptOrLoss, () => 1);
      if (code === 0) return 0;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  },
};
