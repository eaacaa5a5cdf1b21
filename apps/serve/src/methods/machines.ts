import { disabled } from '../errors';
import type { MethodFamily } from './parts';

/** `machine.*` (issue 32): the machines reached over ssh, kept in config.json. */
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
  };
};
