// `paneflow machine add|ls|remove`: the machines this instance reaches over ssh (issue 32).
import { MachineSpec, sshOptionFault, type MachineRow } from '@paneflow/protocol/machines';
import { validate } from '@paneflow/protocol/schema';
import { ageText, displayText, machineStateText } from '@paneflow/view';
import { UsageError } from '../errors';
import { request } from '../instance';
import { printJson, table } from '../output';
import { flag, machineName, str, type Run } from './common';

/**
 * A machine's spec as a person typed it, checked by the protocol's own schema before anything is
 * asked: a destination ssh would read as an option (`-oProxyCommand=…`), an option that runs a
 * command on this machine, or a text that cannot be one is a usage error.
 */
function specOf(destination: string, sshOptions: string[], remoteCommand: string | undefined): MachineSpec {
  const { properties } = MachineSpec;
  if (validate(properties.destination, destination)) {
    throw new UsageError(`<destination> is what ssh connects to (host, user@host, a Host of ~/.ssh/config), without spaces and not starting with '-', not '${displayText(destination)}'`);
  }
  for (const option of sshOptions) {
    const fault = sshOptionFault(option) ?? (validate(properties.ssh_options.items, option) ? "an ssh option is NAME=VALUE, without ssh's own leading '-o'" : null);
    if (fault) throw new UsageError(`--ssh-option '${displayText(option)}': ${fault}`);
  }
  if (sshOptions.length > 0 && validate(properties.ssh_options, sshOptions)) throw new UsageError(`too many --ssh-option: ${validate(properties.ssh_options, sshOptions)!.message}`);
  if (remoteCommand !== undefined && validate(properties.remote_command, remoteCommand)) throw new UsageError(`--remote-command: ${validate(properties.remote_command, remoteCommand)!.message}`);
  return { destination, ...(sshOptions.length > 0 ? { ssh_options: sshOptions } : {}), ...(remoteCommand !== undefined ? { remote_command: remoteCommand } : {}) };
}

/** `machine ls`: STATE last, for its reason is ssh's words and as long as they are. */
export function machineTable(machines: MachineRow[], nowMs: number): string {
  if (machines.length === 0) return 'no machines: `paneflow machine add NAME DESTINATION` adds one';
  return table(
    ['NAME', 'DESTINATION', 'AGENTS', 'LAST SEEN', 'STATE'],
    machines.map((m) => [
      m.name,
      m.destination,
      String(m.agents),
      m.last_seen_ms === null ? 'never' : `${ageText(nowMs - m.last_seen_ms)} ago`,
      { text: machineStateText(m, nowMs), color: m.state === 'connected' ? '32' : m.state === 'offline' ? '31' : '33' },
    ]),
  );
}

export const run: Record<string, Run> = {
  async 'machine add'(p) {
    const name = machineName(str(p, 'name'), '<name>');
    const spec = specOf(str(p, 'destination'), flag<string[]>(p, 'ssh-option') ?? [], flag(p, 'remote-command'));
    const { machine } = await request('machine.add', { name, ...spec });
    if (flag(p, 'json')) printJson({ machine });
    else process.stdout.write(displayText(`added ${machine.name} (${machine.destination}): ${machine.state}; \`paneflow machine ls\` shows how its link goes`) + '\n');
    return 0;
  },
  async 'machine ls'(p) {
    const { machines } = await request('machine.list', {});
    if (flag(p, 'json')) printJson({ machines });
    else process.stdout.write(machineTable(machines, Date.now()) + '\n');
    return 0;
  },
  async 'machine remove'(p) {
    const name = machineName(str(p, 'name'), '<name>');
    const result = await request('machine.remove', { name });
    if (flag(p, 'json')) printJson(result);
    else process.stdout.write(`removed ${result.removed}\n`);
    return 0;
  },
};
