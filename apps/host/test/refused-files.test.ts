// Whatever is put in the place of a manifest while the host is stopped is refused unread, set
// aside and named once: the host starts all the same and keeps the good manifests.
import { HOME_FILE_MAX_BYTES } from '@paneflow/protocol';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, ftruncateSync, lstatSync, openSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { hostCli, makeHostHome, type TestHost } from './helpers';

let host: TestHost;
afterEach(() => host.cleanup());

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

test('a FIFO, a link to /dev/zero and a sparse file over the cap in place of manifests: refused unread at start, moved aside, named once', async () => {
  host = makeHostHome();
  host.start();
  const client = await host.connect();
  const { session } = await client.create({ command: 'exit 0' });
  await client.frame((f) => f.type === 'lifecycle' && f.session === session && f.lifecycle === 'exited');
  client.close();
  expect(hostCli(host.env, 'stop', '--force').code).toBe(0);

  const sessionsDir = join(host.env.PANEFLOW_HOME!, 'host/sessions');
  const bad = {
    fifo: { name: `${randomUUID()}.json`, why: 'a FIFO, not a regular file' },
    zero: { name: `${randomUUID()}.json`, why: 'a symbolic link, not a regular file' },
    sparse: { name: `${randomUUID()}.json`, why: `${4 * HOME_FILE_MAX_BYTES} bytes, over the ${HOME_FILE_MAX_BYTES} a file of its kind may have` },
  };
  execFileSync('mkfifo', [join(sessionsDir, bad.fifo.name)]);
  symlinkSync('/dev/zero', join(sessionsDir, bad.zero.name));
  const fd = openSync(join(sessionsDir, bad.sparse.name), 'w');
  ftruncateSync(fd, 4 * HOME_FILE_MAX_BYTES);
  closeSync(fd);

  host.start();
  const again = await host.connect();
  expect((await again.request('session.list', {})).sessions.map((s) => s.session)).toEqual([session]);
  again.close();
  const log = readFileSync(join(host.env.PANEFLOW_HOME!, 'host/host.log'), 'utf8');
  for (const { name, why } of Object.values(bad)) {
    const path = join(sessionsDir, name);
    expect(occurrences(log, `unreadable manifest ${name}: ${path} refused: ${why}; moved to ${path}.unreadable`)).toBe(1);
    expect(lstatSync(`${path}.unreadable`).isFile()).toBe(name === bad.sparse.name);
  }
});
