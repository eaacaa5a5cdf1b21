import { readHostSecret } from '@paneflow/instance/connect';
import { BRIDGE_HOST, ErrorCode, RpcError } from '@paneflow/protocol';
import { StreamReply, type Connection } from '@paneflow/rpc';
import { timingSafeEqual } from 'node:crypto';
import { disabled } from '../errors';
import type { Machines } from '../machines/machines';
import type { MethodFamily } from './parts';

/** A far stream's frames wait here, not in memory without end: past this the face's stream is closed and it starts again. */
const RELAY_HIGH_WATER = 8 * 1024 * 1024;

/**
 * A far stream relayed to one local connection, frames as they come; frames that came before the
 * local answer went out wait for it. Either side ending ends the other.
 */
async function relay<R>(machines: Machines, machine: string, method: string, params: unknown, connection: Connection): Promise<StreamReply<R>> {
  let started = false;
  const early: unknown[] = [];
  const send = (frame: unknown) => {
    if (!started) return void early.push(frame);
    connection.send(frame);
    if (connection.bufferedBytes > RELAY_HIGH_WATER) connection.destroy();
  };
  const { result, cancel } = await machines.get(machine).link.stream(method, params, { frame: send, end: () => connection.close() });
  connection.onClose(cancel);
  return new StreamReply(result as R, () => {
    started = true;
    for (const frame of early.splice(0)) send(frame);
  });
}

/** Whether `given` is this machine's host secret: who may type here as a keyboard may there. */
function holdsHostSecret(home: string, given: string): boolean {
  const secret = readHostSecret(home);
  if (secret === null) return false;
  const a = Buffer.from(secret);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `machine.*` (issue 32): the machines reached over ssh, kept in config.json, and a face's way to work in one. */
export const machineMethods: MethodFamily = ({ ctx, machines }) => {
  // Which machines serve runs ssh to is the orchestration gate's, as what it starts in panes.
  const gate = (method: string) => {
    if (!ctx.capabilities.orchestration && !ctx.capabilities.scripting) throw disabled(method, 'PANEFLOW_IPC_ORCHESTRATION');
  };
  return {
    'machine.list': () => ({ machines: machines.rows() }),
    'machine.add': async ({ name, ...spec }) => {
      gate('machine.add');
      return { machine: await machines.add(name, spec) };
    },
    'machine.remove': async ({ name }) => {
      gate('machine.remove');
      await machines.remove(name);
      return { removed: name };
    },
    'machine.call': ({ machine, method, params }) => {
      if (method === 'events.subscribe') throw new RpcError(ErrorCode.InvalidParams, 'events.subscribe is a stream: use machine.subscribe', { reason: 'invalid_params', field: 'method' });
      return machines.forward(machine, method, params ?? {});
    },
    'machine.subscribe': ({ machine, params }, { connection }) => relay<{ type: 'subscribed'; surfaces: number[] | null; types: string[] | null }>(machines, machine, 'events.subscribe', params ?? {}, connection),
    'machine.terminal': ({ machine, host_secret, method, params }, { connection }) => {
      if (!holdsHostSecret(ctx.endpoints.home, host_secret)) throw new RpcError(ErrorCode.Permission, 'machine.terminal needs this machine\'s host secret', { reason: 'not_host_client' });
      const request = { method, params };
      if (method === 'session.output' && params.follow === true) return relay(machines, machine, BRIDGE_HOST, request, connection);
      return machines.forward(machine, BRIDGE_HOST, request);
    },
  };
};
