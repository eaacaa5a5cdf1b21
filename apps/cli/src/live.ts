import { request, subscribe } from './instance';
import { agentTable } from './output';

/**
 * The live agent table (`paneflow ps --watch`, and the main job where stdout is no terminal):
 * redrawn on every event that can change a row, until Ctrl-C (0) or a lost serve (1).
 */
export async function liveTable(): Promise<number> {
  const tty = process.stdout.isTTY === true;
  let drawing = false;
  let pending = false;
  const draw = async () => {
    if (drawing) {
      pending = true;
      return;
    }
    drawing = true;
    try {
      const { agents } = await request('fleet.list', {});
      const screen = `${agentTable(agents)}\n\nlive: refreshed on every event · Ctrl-C leaves the instance running (paneflow ps, paneflow stop)\n`;
      process.stdout.write(tty ? `\x1b[H\x1b[2J${screen}` : `${screen}\n`);
    } finally {
      drawing = false;
      if (pending) {
        pending = false;
        void draw();
      }
    }
  };
  const stream = await subscribe({ types: ['status_changed', 'surface_created', 'surface_closed', 'session_changed'] }, () => void draw());
  await draw();
  return new Promise<number>((resolve) => {
    process.once('SIGINT', () => {
      stream.destroy();
      resolve(0);
    });
    stream.onClose(() => resolve(1));
  });
}
