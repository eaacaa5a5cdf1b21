import { RpcError } from '@paneflow/protocol';
import { refuseWrites, until } from '@paneflow/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startInstance, type Instance } from './helpers';

// `session.ack` changes what serve keeps on disk (a finished turn's `unread`): like every change to
// the model (REFERENCE.md §1.1), it is answered once it is saved, or fails with `not_saved`.

let pf: Instance;
let undo: (() => void) | null = null;
beforeEach(async () => {
  pf = await startInstance({ scripting: true, orchestration: true });
});
afterEach(async () => {
  undo?.();
  undo = null;
  await pf.cleanup();
});

const savedUnread = (session: string): boolean | undefined => {
  const model = JSON.parse(readFileSync(join(pf.env.PANEFLOW_HOME!, 'serve/workspaces.json'), 'utf8')) as { entries: Record<string, { unread: boolean }> };
  return model.entries[session]?.unread;
};

async function finishedTurn(): Promise<string> {
  const events = await pf.subscribe();
  const up = await pf.call('workspace.up', { name: 'acks', layout: 'even_h', panes: [{ name: 'lead', cwd: pf.dir, command: 'claude', focus: false, env: {} }] });
  const { surface_id, session } = up.surfaces[0];
  await events.next((f) => f.type === 'status_changed' && f.surface_id === surface_id && f.reason === 'declared');
  await pf.call('surface.send_text', { surface_id, text: 'write the tests', submit: true });
  await events.next((f) => f.type === 'status_changed' && f.surface_id === surface_id && f.unread === true);
  await until(() => savedUnread(session) === true, 'the unread turn saved');
  return session;
}

test('an ack is answered once it is on disk', async () => {
  const session = await finishedTurn();
  expect(await pf.call('session.ack', { sessions: [session] })).toEqual({ acked: [session] });
  expect(savedUnread(session)).toBe(false);
});

test("with serve's directory unwritable an ack fails with not_saved (applied: unread is off until serve stops)", async () => {
  const session = await finishedTurn();
  undo = refuseWrites(join(pf.env.PANEFLOW_HOME!, 'serve'));
  const error = await pf.call('session.ack', { sessions: [session] }).then(
    () => null,
    (e: unknown) => e as RpcError,
  );
  expect(error).toBeInstanceOf(RpcError);
  expect(error!.data).toEqual({ reason: 'not_saved', applied: true });
  expect(savedUnread(session)).toBe(true);
});
