import type { EventType } from '@paneflow/protocol/events';
import { request, subscribe } from './instance';
import { agentTable, answeredLines, heldTable, inboxTable } from './output';

const CHANGES: EventType[] = ['status_changed', 'surface_created', 'surface_closed', 'session_changed'];

/**
 * A live table (`paneflow ps --watch`, `inbox --watch`, and the main job where stdout is no
 * terminal): `render` is drawn again on every event that can change a row, until Ctrl-C (0) or a
 * lost serve (1). A terminal sees it redrawn in place; a pipe gets one copy after another.
 */
export async function liveTable(render: () => Promise<string>): Promise<number> {
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
      const screen = `${await render()}\n\nlive: refreshed on every event · Ctrl-C leaves the instance running (paneflow ps, paneflow stop)\n`;
      process.stdout.write(tty ? `\x1b[H\x1b[2J${screen}` : `${screen}\n`);
    } finally {
      drawing = false;
      if (pending) {
        pending = false;
        void draw();
      }
    }
  };
  const stream = await subscribe({ types: CHANGES }, () => void draw());
  await draw();
  return new Promise<number>((resolve) => {
    process.once('SIGINT', () => {
      stream.destroy();
      resolve(0);
    });
    stream.onClose(() => resolve(1));
  });
}

/** Every agent and what it declared (`ps`). */
export const fleetTable = async () => agentTable((await request('fleet.list', {})).agents);

/** The agents waiting for you (`inbox`), the queues held and the usage limits, then what rules answered in your place this last hour. */
export async function inboxNow(): Promise<string> {
  const [{ items, answered = [] }, { agents }] = await Promise.all([request('fleet.inbox', {}), request('fleet.list', {})]);
  const held = heldTable(agents);
  return [inboxTable(items), ...(held ? ['', held] : []), ...(answered.length > 0 ? ['', ...answeredLines(answered, Date.now())] : [])].join('\n');
}
