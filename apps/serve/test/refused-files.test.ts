// Whatever is put in the place of a file serve reads (its config while it runs, workspaces.json
// while it is stopped) is refused unread and said once in the log, and serve answers on.
import { CONFIG_FILE_MAX_BYTES, type PublicMethods } from '@paneflow/protocol';
import { call } from '@paneflow/rpc';
import { scaled, until } from '@paneflow/testing';
import { execFileSync } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, lstatSync, openSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killIfAlive, serveCli, startInstance, type Instance } from './helpers';

let pf: Instance;
afterEach(() => pf.cleanup());

const GiB = 1024 * 1024 * 1024;
const occurrences = (text: string, needle: string) => text.split(needle).length - 1;
/** The most memory serve has held since it started (VmHWM), in KiB. */
const peakRssKiB = () => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pf.servePid}/status`, 'utf8'))![1]);
/** serve.status, which reads the config; a serve that does not answer within 5 s fails the test. */
const status = () => call<PublicMethods, 'serve.status'>(pf.endpoints.publicSocket, 'serve.status', {}, { timeoutMs: 5000 });

const zero = { put: (path: string) => symlinkSync('/dev/zero', path), why: 'a character device, not a regular file' };
const fifo = { put: (path: string) => execFileSync('mkfifo', [path]), why: 'a FIFO, not a regular file' };
const sparse = {
  put: (path: string) => {
    const fd = openSync(path, 'w');
    ftruncateSync(fd, GiB);
    closeSync(fd);
  },
  why: `${GiB} bytes, over the ${CONFIG_FILE_MAX_BYTES} a file of its kind may have`,
};

/** Puts `thing` at `path` at once (a rename, as an editor saves). */
function replace(path: string, put: (path: string) => void) {
  const next = `${path}.next`;
  put(next);
  renameSync(next, path);
}

test.each([
  ['a link to /dev/zero', zero],
  ['a FIFO', fifo],
  ['a sparse file of 1 GiB', sparse],
])('the config replaced by %s while serve runs: refused unread and said once, defaults in effect, serve answers on and holds no more memory', async (_what, { put, why }) => {
  pf = await startInstance({ config: { reduce_motion: true } });
  expect((await status()).presentation.reduce_motion).toBe(true);
  const peakBefore = peakRssKiB();

  replace(pf.configFile, put);
  const refusal = `config ${pf.configFile} refused: ${why}; defaults in effect`;
  await until(() => pf.serveLog().includes(refusal), `serve.log says: ${refusal}`);
  // Serve checks the file again on use, once a second: it answers through three checks at least.
  const since = Date.now();
  await until(async () => {
    expect((await status()).presentation.reduce_motion).toBe(false);
    return Date.now() - since > 3500;
  }, 'serve answering for 3.5 s');
  expect(occurrences(pf.serveLog(), `config ${pf.configFile} refused`)).toBe(1);
  expect(peakRssKiB() - peakBefore).toBeLessThan(64 * 1024);

  // A regular file in its place is read again.
  replace(pf.configFile, (path) => writeFileSync(path, JSON.stringify({ reduce_motion: true })));
  await until(async () => (await status()).presentation.reduce_motion, 'the config in effect again');
}, scaled(60_000));

// Serve writes its own files by rename and never links them: a link is refused as one.
test.each([
  ['a link to /dev/zero', { ...zero, why: 'a symbolic link, not a regular file' }],
  ['a FIFO', fifo],
])("workspaces.json replaced by %s while serve is stopped: serve starts, refuses it unread, sets it aside and names it once; the panes come back from the host's sessions", async (_what, { put, why }) => {
  pf = await startInstance();
  const { surface_id } = await pf.call('workspace.create', { cwd: pf.dir });
  killIfAlive(pf.servePid);
  await until(() => !existsSync(`/proc/${pf.servePid}`) || readFileSync(`/proc/${pf.servePid}/stat`, 'utf8').includes(') Z'), `serve ${pf.servePid} gone`);
  const path = join(pf.env.PANEFLOW_HOME!, 'serve/workspaces.json');
  replace(path, put);

  const started = serveCli(pf.env, 'start');
  expect(started).toMatchObject({ code: 0, stderr: '' });
  pf.servePid = JSON.parse(started.stdout).pid;
  expect((await pf.call('surface.list', { scope: 'all' })).surfaces.map((s) => s.surface_id)).toEqual([surface_id]);
  expect(occurrences(pf.serveLog(), `${path} is not a saved model: ${path} refused: ${why}; moved to ${path}.unreadable`)).toBe(1);
  expect(lstatSync(`${path}.unreadable`).isFile()).toBe(false);
}, scaled(60_000));
