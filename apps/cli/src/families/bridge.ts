// `paneflow rpc --stdio`: this machine's serve, for another machine's Paneflow over ssh (src/bridge.ts).
import { Bridge } from '../bridge';
import { UsageError } from '../errors';
import { ensureInstance, instanceEndpoints } from '../instance';
import { flag, type Run } from './common';

export const run: Record<string, Run> = {
  async rpc(p) {
    if (!flag(p, 'stdio')) throw new UsageError('rpc needs --stdio, its one transport\nusage: paneflow rpc --stdio');
    // No hello before the instance answers: the far side reads the line on stderr instead.
    await ensureInstance();
    const bridge = new Bridge(instanceEndpoints(), process.stdin, process.stdout);
    bridge.start();
    await bridge.done;
    return 0;
  },
};
