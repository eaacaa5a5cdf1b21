// Every call the renderer may make (api.ts `CALLS`, each an IPC channel and a web-face message) is
// carried out by dispatch.ts: a call it does not know would fail only when a person used it.
import type { InstanceClient } from '@paneflow/client';
import { CALLS } from '../src/api';
import { dispatcher } from '../src/dispatch';

test('dispatch carries out every call of the API, each on the bridge method of its name', async () => {
  const used: string[] = [];
  // A bridge that records which of its methods a call reached.
  const bridge = new Proxy({} as InstanceClient, {
    get: (_target, name) => () => {
      used.push(String(name));
      return Promise.resolve({});
    },
  });
  const notices: unknown[] = [];
  const calls = dispatcher(bridge, () => undefined, (notice) => notices.push(notice));
  for (const call of CALLS) await calls.call(call, ['s', 'x', 1]);
  expect(used).toEqual(['request', 'subscribe', 'unsubscribe', 'attach', 'detach', 'history', 'input', 'resize']);
  expect(notices).toEqual(['s']);
  await expect(calls.call('nothing', [])).rejects.toThrow('no such desktop call: nothing');
});
