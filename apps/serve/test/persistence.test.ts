import { LOG_CAP_BYTES } from '@paneflow/instance';
import { RpcError } from '@paneflow/protocol';
import { refuseWrites, scaled, until } from '@paneflow/testing';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { killIfAlive, serveCli, startInstance, type Instance } from './helpers';

let pf: Instance;
let undo: (() => void) | null = null;
beforeEach(async () => {
  pf = await startInstance({ orchestration: true });
});
afterEach(async () => {
  undo?.();
  undo = null;
  await pf.cleanup();
});

const serveDir = () => join(pf.env.PANEFLOW_HOME!, 'serve');
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

async function killServe() {
  killIfAlive(pf.servePid);
  await until(() => !existsSync(`/proc/${pf.servePid}`) || readFileSync(`/proc/${pf.servePid}/stat`, 'utf8').includes(') Z'), `serve ${pf.servePid} gone`);
}

function startServe() {
  const started = serveCli(pf.env, 'start');
  expect(started).toMatchObject({ code: 0, stderr: '' });
  pf.servePid = JSON.parse(started.stdout).pid;
}

/** Sends one rename and kills serve with SIGKILL in the very callback that receives its answer. */
function renameThenKill(surfaceId: number, name: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(pf.endpoints.publicSocket, () => {
      socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'surface.rename', params: { surface_id: surfaceId, name } }) + '\n');
    });
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk;
      if (!answer.includes('\n')) return;
      process.kill(pf.servePid, 'SIGKILL');
      socket.destroy();
      resolve(answer);
    });
    socket.on('error', reject);
  });
}

async function notSaved(request: Promise<unknown>): Promise<RpcError> {
  const error = await request.then(
    () => {
      throw new Error('the change was answered as saved');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  expect((error as RpcError).reason).toBe('not_saved');
  return error as RpcError;
}

const nameOf = async (surfaceId: number) => (await pf.call('surface.list', { scope: 'all' })).surfaces.find((s) => s.surface_id === surfaceId)?.name;

// That it is on stable storage (fsync'd, a machine crash would keep it) is durability.test.ts's.
test('an answered rename survives serve killed (SIGKILL) the moment the answer arrives: the next serve has it, five times out of five', async () => {
  const { surface_id } = await pf.call('workspace.create', { cwd: pf.dir });
  for (let i = 1; i <= 5; i++) {
    const answer = JSON.parse(await renameThenKill(surface_id, `name-${i}`));
    expect(answer.result).toEqual({ surface_id, name: `name-${i}` });
    await killServe();
    startServe();
    expect(await nameOf(surface_id)).toBe(`name-${i}`);
  }
}, scaled(90_000));

test('the temp file of a write that a killed serve left is removed when serve starts again', async () => {
  await pf.call('workspace.create', { cwd: pf.dir });
  await killServe();
  const temp = join(serveDir(), '.0123456789ab.tmp');
  writeFileSync(temp, '{"version": 1, "next_surf');
  startServe();
  expect(existsSync(temp)).toBe(false);
});

test('a workspaces.json that is not a saved model is moved aside and named once in the log; serve starts from the host sessions', async () => {
  const { surface_id } = await pf.call('workspace.create', { cwd: pf.dir });
  await pf.call('surface.rename', { surface_id, name: 'kept' });
  const path = join(serveDir(), 'workspaces.json');
  const saved = readFileSync(path, 'utf8');
  const { entries: _entries, ...withoutEntries } = JSON.parse(saved);
  const variants = {
    empty: '{}',
    array: '[]',
    missing: JSON.stringify(withoutEntries),
    truncated: saved.slice(0, saved.length / 2),
    orphan: JSON.stringify({ ...JSON.parse(saved), workspaces: [] }),
  };
  for (const [what, text] of Object.entries(variants)) {
    await killServe();
    writeFileSync(path, text);
    startServe();
    const { surfaces } = await pf.call('surface.list', { scope: 'all' });
    expect({ what, surfaces: surfaces.map((s) => s.surface_id) }).toEqual({ what, surfaces: [surface_id] });
    expect(readFileSync(`${path}.unreadable`, 'utf8')).toBe(text);
    // The adopted model is saved again (nothing changed: only the next change writes it).
    await pf.call('surface.rename', { surface_id, name: 'kept' });
    expect(JSON.parse(readFileSync(path, 'utf8')).panes).toHaveLength(1);
  }
  await killServe();
  startServe();
  const log = pf.serveLog();
  expect(occurrences(log, 'is not a saved model:')).toBe(Object.keys(variants).length);
  expect(log).toMatch(/workspaces\.json is not a saved model: missing field 'entries'; moved to .*workspaces\.json\.unreadable/);
  expect(log).toMatch(/is not in workspace|which the file does not hold/);
}, scaled(90_000));

test('with serve\'s directory unwritable a change fails with not_saved and serve says degraded; when the disk recovers saving resumes', async () => {
  const { surface_id } = await pf.call('workspace.create', { cwd: pf.dir });
  await pf.call('surface.rename', { surface_id, name: 'before' });
  expect((await pf.call('serve.status', {})).health).toEqual({ state: 'ok', problems: [] });

  undo = refuseWrites(serveDir());
  // The first change after the disk failed may already be known as unsaved (a status save ran first).
  const first = await notSaved(pf.call('surface.rename', { surface_id, name: 'during' }));
  expect(await nameOf(surface_id)).toBe(first.data?.applied ? 'during' : 'before');
  // Now it is known: a change is refused up front and changes nothing.
  const second = await notSaved(pf.call('surface.rename', { surface_id, name: 'refused' }));
  expect(second.data).toEqual({ reason: 'not_saved', applied: false });
  expect(second.message).toMatch(/workspaces\.json cannot be written \(.+\): nothing was changed/);
  expect(await nameOf(surface_id)).toBe(first.data?.applied ? 'during' : 'before');
  const status = await pf.call('serve.status', {});
  expect(status.health.state).toBe('degraded');
  expect(status.health.problems).toEqual([expect.stringMatching(/^the home cannot be written: .*workspaces\.json not saved since /)]);

  undo();
  undo = null;
  await until(async () => (await pf.call('serve.status', {})).health.state === 'ok', 'health ok again');
  await pf.call('surface.rename', { surface_id, name: 'after' });
  await killServe();
  startServe();
  expect(await nameOf(surface_id)).toBe('after');
  const log = pf.serveLog();
  expect(occurrences(log, 'workspaces not saved:')).toBe(1);
  expect(occurrences(log, 'workspaces saved again')).toBe(1);
}, scaled(60_000));

test("with the host's sessions directory unwritable serve says degraded, naming the manifests; ok again once they are written", async () => {
  expect((await pf.call('serve.status', {})).health).toEqual({ state: 'ok', problems: [] });
  undo = refuseWrites(join(pf.env.PANEFLOW_HOME!, 'host/sessions'));
  await pf.call('workspace.create', { cwd: pf.dir });
  const status = await until(async () => {
    const { health } = await pf.call('serve.status', {});
    return health.state === 'degraded' && health;
  }, 'serve hears of the unwritten manifest');
  expect(status.problems).toEqual([expect.stringMatching(/^the host cannot write \d+ session manifests? to its home$/)]);
  undo();
  undo = null;
  await until(async () => (await pf.call('serve.status', {})).health.state === 'ok', 'health ok again');
}, scaled(60_000));

test('a 1 MiB request with a bad param adds no more than a few hundred bytes to serve.log', async () => {
  const log = join(serveDir(), 'serve.log');
  const before = statSync(log).size;
  const huge = `/nowhere/${'x'.repeat(1024 * 1024 - 300)}`;
  await expect(pf.call('workspace.create', { cwd: huge })).rejects.toMatchObject({ reason: 'cwd_missing' });
  expect(statSync(log).size - before).toBeLessThan(600);
});

test('serve.log is rotated at its cap, and serve logs on into a fresh one', async () => {
  await killServe();
  const log = join(serveDir(), 'serve.log');
  const filler = `${'old line '.repeat(15)}\n`.repeat(Math.ceil(LOG_CAP_BYTES / 136));
  writeFileSync(log, filler);
  startServe();
  expect(readFileSync(`${log}.1`, 'utf8').startsWith(filler)).toBe(true);
  const fresh = await until(() => {
    const text = readFileSync(log, 'utf8');
    return /serving /.test(text) && text;
  }, 'serve logs into the fresh log');
  expect(fresh.length).toBeLessThan(4096);
});
