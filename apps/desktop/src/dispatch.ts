// The renderer's calls (api.ts) carried out on the bridge, for Electron's main process and for
// the browser harness alike. `push` sends to the renderer (webContents.send, or page.evaluate).
import type { InstanceClient } from '@paneflow/client';
import { RpcError } from '@paneflow/protocol/errors';
import { HISTORY_ROWS, MIRROR_SCROLLBACK } from '@paneflow/view';
import type { Notice } from './api';

export type Push = (channel: 'frame' | 'end' | 'mirror' | 'focus', ...args: unknown[]) => void;

export interface Dispatcher {
  call(channel: string, args: unknown[]): Promise<unknown>;
}

export function dispatcher(bridge: InstanceClient, push: Push, notify: (notice: Notice) => void): Dispatcher {
  return {
    async call(channel, args) {
      switch (channel) {
        case 'request':
          if (args[2] !== true) return bridge.request(args[0] as string, args[1]);
          // Settled: serve's refusal as data, since an Error loses its code crossing IPC.
          try {
            return { result: await bridge.request(args[0] as string, args[1]) };
          } catch (error) {
            if (error instanceof RpcError) return { error: { code: error.code, message: error.message, reason: error.reason ?? null } };
            throw error;
          }
        case 'subscribe':
          return bridge.subscribe(
            args[0] as never,
            (id, frame) => push('frame', id, frame),
            (id) => push('end', id),
          );
        case 'unsubscribe':
          return bridge.unsubscribe(args[0] as number);
        case 'attach': {
          const session = args[0] as string;
          return bridge.attach(
            session,
            {
              reset: (start) => push('mirror', session, 'reset', start),
              data: (data) => push('mirror', session, 'data', data),
              resized: (size) => push('mirror', session, 'resized', size),
              state: (state) => push('mirror', session, 'state', state),
            },
            MIRROR_SCROLLBACK,
          );
        }
        case 'history':
          return bridge.history(args[0] as string, HISTORY_ROWS);
        case 'detach':
          return bridge.detach(args[0] as string);
        case 'input':
          return bridge.input(args[0] as string, args[1] as string);
        case 'resize':
          return bridge.resize(args[0] as string, args[1] as number, args[2] as number);
        case 'notify':
          return notify(args[0] as Notice);
        default:
          throw new Error(`no such desktop call: ${channel}`);
      }
    },
  };
}
