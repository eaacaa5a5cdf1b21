import { LOCK_WRITE_GRACE_MS, LOG_CAP_BYTES } from '@paneflow/instance';
import { refuseWrites, until } from '@paneflow/testing';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hostCli, startHost, type TestHost } from './helpers';

let host: TestHost | null = null;
let undo: (() => void) | null = null;
afterEach(async () => {
  undo?.();
  undo = null;
  await host?.cleanup();
  host = null;
});

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

function restart(host: TestHost) {
  const stopped = hostCli(host.env, 'stop', '--force');
  expect(stopped.code).toBe(0);
  host.start();
}

test('files of the wrong shape in a stopped home are moved aside and named once in the log; the host starts, keeps the good manifests and works', async () => {
  host = await startHost();
  const home = host.env.PANEFLOW_HOME!;
  const sessionsDir = join(home, 'host/sessions');
  const client = await host.connect();
  const { session } = await client.create({ command: 'exit 0' });
  await client.frame((f) => f.type === 'lifecycle' && f.session === session && f.lifecycle === 'exited');
  client.close();
  const stopped = hostCli(host.env, 'stop', '--force');
  expect(stopped.code).toBe(0);

  const good = readFileSync(join(sessionsDir, `${session}.json`), 'utf8');
  const { launch: _launch, ...withoutLaunch } = JSON.parse(good);
  const other = randomUUID();
  const bad: Record<string, string> = {
    [`${randomUUID()}.json`]: '{}',
    [`${randomUUID()}.json`]: '[]',
    [`${other}.json`]: JSON.stringify({ ...withoutLaunch, session: other }),
    [`${randomUUID()}.json`]: good.slice(0, good.length / 2),
    // A whole manifest under another session's name would be adopted twice.
    [`${randomUUID()}.json`]: good,
  };
  for (const [name, text] of Object.entries(bad)) writeFileSync(join(sessionsDir, name), text);
  writeFileSync(join(home, 'host/instance.json'), '[]');
  // Cut short by a crash long ago: one younger than LOCK_WRITE_GRACE_MS is its writer's, still writing.
  writeFileSync(join(home, 'host/owner.lock'), '{"pid":');
  const longAgo = (Date.now() - 2 * LOCK_WRITE_GRACE_MS) / 1000;
  utimesSync(join(home, 'host/owner.lock'), longAgo, longAgo);

  const started = hostCli(host.env, 'start');
  expect(started.stderr).toBe('');
  expect(started.code).toBe(0);
  host.track(JSON.parse(started.stdout).pid);
  const again = await host.connect();
  const { sessions } = await again.request('session.list', {});
  expect(sessions.map((s) => s.session)).toEqual([session]);
  const fresh = await again.create({ command: 'exit 0' });
  await again.frame((f) => f.type === 'lifecycle' && f.session === fresh.session && f.lifecycle === 'exited');
  again.close();

  // A manifest being written (the exit's text, 50 ms after it) has a temp file beside it for a moment.
  const files = readdirSync(sessionsDir)
    .filter((name) => !/^\..*\.tmp$/.test(name))
    .sort();
  expect(files).toEqual([`${session}.json`, `${fresh.session}.json`, ...Object.keys(bad).map((name) => `${name}.unreadable`)].sort());
  for (const [name, text] of Object.entries(bad)) expect(readFileSync(join(sessionsDir, `${name}.unreadable`), 'utf8')).toBe(text);
  expect(JSON.parse(readFileSync(join(home, 'host/instance.json'), 'utf8'))).toMatchObject({ pid: JSON.parse(started.stdout).pid });

  // Named once: a later start finds nothing left to report.
  restart(host);
  const log = readFileSync(join(home, 'host/host.log'), 'utf8');
  for (const name of Object.keys(bad)) expect(occurrences(log, `unreadable manifest ${name}:`)).toBe(1);
  expect(log).toMatch(new RegExp(`unreadable manifest ${other}\\.json: not a manifest: missing field 'launch'`));
});

test('a manifest that cannot be written is kept, said once in the log, and written once the disk allows', async () => {
  host = await startHost();
  const home = host.env.PANEFLOW_HOME!;
  const sessionsDir = join(home, 'host/sessions');
  const client = await host.connect();

  undo = refuseWrites(sessionsDir);
  const { session } = await client.create({ command: 'printf ready; exec sleep 600' });
  await client.screenMatching(session, /ready/);
  await client.request('session.stop', { session });
  await client.frame((f) => f.type === 'lifecycle' && f.session === session && f.lifecycle === 'exited');
  expect(existsSync(join(sessionsDir, `${session}.json`))).toBe(false);
  // The host answers as ever meanwhile: its sessions are in memory.
  expect((await client.request('session.inspect', { session })).lifecycle).toBe('exited');

  undo();
  undo = null;
  const manifest = await until(() => {
    const path = join(sessionsDir, `${session}.json`);
    return existsSync(path) && JSON.parse(readFileSync(path, 'utf8'));
  }, 'the manifest written after the disk recovered');
  expect(manifest).toMatchObject({ session, lifecycle: 'exited' });
  const log = await until(() => {
    const text = readFileSync(join(home, 'host/host.log'), 'utf8');
    return text.includes('manifests written again') && text;
  }, 'the log says saving resumed');
  expect(occurrences(log, 'manifests not written:')).toBe(1);
  expect(occurrences(log, 'manifests written again')).toBe(1);
});

test('an exit is on disk at once, the text kept at exit follows in a write of its own, and a new host still shows both', async () => {
  host = await startHost();
  const path = join(host.env.PANEFLOW_HOME!, 'host/sessions');
  const client = await host.connect();
  const { session } = await client.create({ command: 'printf "last words"; exit 3' });
  await client.frame((f) => f.type === 'lifecycle' && f.session === session && f.lifecycle === 'exited');
  const manifest = await until(() => {
    const written = JSON.parse(readFileSync(join(path, `${session}.json`), 'utf8'));
    return written.final_output !== null && written;
  }, 'the text kept at exit on disk');
  expect(manifest).toMatchObject({ lifecycle: 'exited', exit_code: 3, final_output: 'last words' });
  client.close();
  restart(host);
  const again = await host.connect();
  expect(await again.request('session.inspect', { session })).toMatchObject({ lifecycle: 'exited', exit_code: 3, final_output: 'last words' });
  again.close();
});

test('host.log is rotated at its cap, and the host logs on into a fresh one', async () => {
  host = await startHost();
  const home = host.env.PANEFLOW_HOME!;
  const log = join(home, 'host/host.log');
  const stopped = hostCli(host.env, 'stop', '--force');
  expect(stopped.code).toBe(0);
  const filler = `${'old line '.repeat(15)}\n`.repeat(Math.ceil(LOG_CAP_BYTES / 136));
  writeFileSync(log, filler);
  writeFileSync(`${log}.1`, 'generation one\n');

  host.start();
  expect(hostCli(host.env, 'stop', '--force').code).toBe(0);
  expect(readFileSync(`${log}.1`, 'utf8').startsWith(filler)).toBe(true);
  expect(readFileSync(`${log}.2`, 'utf8')).toBe('generation one\n');
  const fresh = readFileSync(log, 'utf8');
  expect(fresh.length).toBeLessThan(4096);
  expect(fresh).toMatch(/host stopped/);
});
