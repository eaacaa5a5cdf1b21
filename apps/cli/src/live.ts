import type { EventType } from '@paneflow/protocol/events';
import { request, subscribe } from './instance';
import { agentTable, answeredLines, heldTable, inboxTable } from './output';

// Other machines' too (issue 32), and their links' changes: a far row's state and age are on the table.
const CHANGES: EventType[] = ['status_changed', 'surface_created', 'surface_closed', 'session_changed', 'machine_changed'];

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
  const stream = await subscribe({ types: CHANGES, machines: true }, () => void draw());
  await draw();
  return new Promise<number>((resolve) => {
    process.once('SIGINT', () => {
      stream.destroy();
      resolve(0);
    });
    stream.onClose(() => resolve(1));
  });
}

/** A list narrowed to one machine (`--machine`), or every machine's. */
type Narrow = { machine?: string };

/** Every agent and what it declared (`ps`). */
export async function fleetTable(narrow: Narrow = {}): Promise<string> {
  const { agents, machines } = await request('fleet.list', narrow);
  return agentTable(agents, Date.now(), machines);
}

/** The agents waiting for you (`inbox`), the queues held and the usage limits, then what rules answered in your place this last hour. */
export async function inboxNow(narrow: Narrow = {}): Promise<string> {
  const [{ items, answered = [], machines }, { agents }] = await Promise.all([request('fleet.inbox', narrow), request('fleet.list', narrow)]);
  const held = heldTable(agents, Date.now(), machines);
  return [inboxTable(items, machines), ...(held ? ['', held] : []), ...(answered.length > 0 ? ['', ...answeredLines(answered, Date.now())] : [])].join('\n');
}
