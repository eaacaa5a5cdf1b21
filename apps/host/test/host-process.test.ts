import { findJemalloc, readHostSecret } from '@paneflow/instance';
import { HOST_PROTOCOL_VERSION, SOCKET_HIGH_WATER, type HostFrame, type HostMethods } from '@paneflow/protocol';
import { RpcConnection } from '@paneflow/rpc';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { FOLLOWER_MAX_FRAMES, FOLLOWER_MAX_STATUS_BYTES } from '../src/follower';
import { HOST_BIN, hostCli, makeHostHome, processesOfHome, readFramesUntil, running, startHost, waitUntil, type TestHost } from './helpers';
import { scaled } from '@paneflow/testing';

let host: TestHost | null = null;
afterEach(async () => {
  await host?.cleanup();
  host = null;
});

/** A session's records as a follower knows them from its frames: snapshots and status frames. */
function pictureOf(frames: HostFrame[], session: string) {
  let records: unknown = undefined;
  for (const frame of frames) {
    if (frame.type === 'snapshot') records = frame.sessions.find((s) => s.session === session)?.records;
    else if (frame.type === 'status' && frame.session === session) records = frame.records;
  }
  return records;
}

/** `paneflow-host <args>` as a child of its own: its exit code and what it printed. */
function hostCliAsync(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [HOST_BIN, ...args], { env });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

describe('starting and stopping', () => {
  test('start is idempotent: a second start adopts the running host', async () => {
    host = await startHost();
    const again = hostCli(host.env, 'start');
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({ pid: host.pid, adopted: true, home: host.env.PANEFLOW_HOME, protocol: 1 });
  });

  test('the owner lock stops a second host on the same home', async () => {
    host = await startHost();
    const second = hostCli(host.env, 'serve');
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(new RegExp(`another host \\(pid ${host.pid}\\) owns`));
  });

  test('it runs detached and logs to <home>/host/host.log', async () => {
    host = await startHost();
    const stat = readFileSync(`/proc/${host.pid}/stat`, 'utf8');
    const sid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
    expect(sid).toBe(host.pid); // its own session: no terminal, no parent's signals
    expect(readFileSync(join(host.env.PANEFLOW_HOME!, 'host/host.log'), 'utf8')).toMatch(/serving/);
  });

  test('it runs on jemalloc, which gives freed memory back; what runs in a pane gets the user’s LD_PRELOAD and MALLOC_CONF', async () => {
    const jemalloc = findJemalloc();
    if (!jemalloc) throw new Error('no libjemalloc.so.2 on this machine: apt-get install libjemalloc2 (.ci/run does)');
    host = makeHostHome();
    host.env.LD_PRELOAD = 'libc.so.6';
    host.env.MALLOC_CONF = 'narenas:3';
    host.start();
    expect(readFileSync(`/proc/${host.pid}/maps`, 'utf8')).toContain(jemalloc);
    expect(readFileSync(`/proc/${host.pid}/environ`, 'utf8').split('\0')).toContain(`LD_PRELOAD=${jemalloc} libc.so.6`);
    const client = await host.connect();
    const { session } = await client.create({ argv: ['sh', '-c', 'env | grep -E "^(LD_PRELOAD|MALLOC_CONF|PANEFLOW_HOST_SAVED_ENV)=" | sort; echo END; sleep 30'] });
    const text = await client.screenMatching(session, /^END$/m);
    expect(text.split('\n').slice(0, 3)).toEqual(['LD_PRELOAD=libc.so.6', 'MALLOC_CONF=narenas:3', 'END']);
  });

  test('on glibc’s malloc (no jemalloc) a removed session’s memory is collected, then the heap trimmed by the build’s module', async () => {
    host = makeHostHome();
    host.env.PANEFLOW_HOST_JEMALLOC = '0';
    host.start();
    const maps = () => readFileSync(`/proc/${host!.pid}/maps`, 'utf8');
    expect(maps()).not.toContain('libjemalloc');
    expect(maps()).not.toContain('paneflow-malloc-trim.node');
    const client = await host.connect();
    const { session } = await client.create({ argv: ['sh', '-c', 'echo END'] });
    await client.screenMatching(session, /^END$/m);
    await client.request('session.stop', { session });
    await client.request('session.remove', { session });
    await waitUntil(() => maps().includes(join(HOST_BIN, '..', 'paneflow-malloc-trim.node')), 'the host loads its malloc_trim module');
  });

  test('status says what runs; stop is refused while sessions live, unless forced', async () => {
    host = await startHost();
    const status = hostCli(host.env, 'status');
    expect(JSON.parse(status.stdout)).toMatchObject({ pid: host.pid, protocol: 1, sessions: { live: 0 } });
    const client = await host.connect();
    const { session } = await client.create({ argv: ['sleep', '60'] });
    const refused = hostCli(host.env, 'stop');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(session);
    expect(running(host.pid)).toBe(true);
    const forced = hostCli(host.env, 'stop', '--force');
    expect(forced.code).toBe(0);
    expect(running(host.pid)).toBe(false);
    expect(hostCli(host.env, 'status').code).toBe(1);
  });

  test('two starts at once: one host runs, and both callers get it', async () => {
    host = makeHostHome();
    const starts = await Promise.all([hostCliAsync(host.env, 'start'), hostCliAsync(host.env, 'start')]);
    expect(starts.map((s) => [s.code, s.stderr])).toEqual([
      [0, ''],
      [0, ''],
    ]);
    const [first, second] = starts.map((s) => JSON.parse(s.stdout));
    host.track(first.pid);
    host.track(second.pid);
    expect(second.pid).toBe(first.pid);
    expect([first.adopted, second.adopted].sort()).toEqual([false, true]);
    expect(processesOfHome(host.env.PANEFLOW_HOME!)).toEqual([first.pid]);
  });

  test('SIGTERM stops every session first: their processes end, a child deaf to the hangup included, and they are recorded exited', async () => {
    host = await startHost();
    const client = await host.connect();
    const { session, pid } = await client.create({ argv: ['sh', '-c', "trap '' HUP; sleep 600 & echo child=$!; wait"] });
    const child = Number(/child=(\d+)/.exec(await client.screenMatching(session, /child=\d+/))![1]);
    process.kill(host.pid, 'SIGTERM');
    await waitUntil(() => !running(host!.pid), 'the host exits');
    expect([running(pid), running(child)]).toEqual([false, false]);
    const manifest = JSON.parse(readFileSync(join(host.env.PANEFLOW_HOME!, 'host/sessions', `${session}.json`), 'utf8'));
    expect(manifest).toMatchObject({ lifecycle: 'exited' });
  });

  test('usage errors exit 2 and start nothing', () => {
    host = makeHostHome();
    const options = { env: host.env, encoding: 'utf8' as const };
    const unknownVerb = spawnSync(process.execPath, [HOST_BIN, 'frobnicate'], options);
    expect(unknownVerb.status).toBe(2);
    expect(unknownVerb.stderr).toMatch(/frobnicate/);
    expect(spawnSync(process.execPath, [HOST_BIN, 'start', '--bogus'], options).status).toBe(2);
    // Nothing started: no host of this home runs, and its home and runtime dir were never made.
    expect(processesOfHome(host.env.PANEFLOW_HOME!)).toEqual([]);
    expect(readdirSync(host.dir).sort()).toEqual(['user']);
  });

  test('a client of another protocol version is refused at hello', async () => {
    host = await startHost();
    const connection = await RpcConnection.connect<HostMethods>(host.endpoints.hostSocket);
    await expect(connection.request('host.hello', { client: 'old', protocol: HOST_PROTOCOL_VERSION + 1, secret: readHostSecret(host.endpoints.home) ?? undefined })).rejects.toMatchObject({ code: -32024 });
    await expect(connection.request('session.list', {})).rejects.toMatchObject({ code: -32600 });
    connection.close();
  });
});

describe('faults', () => {
  test('kill -9 while manifests are being rewritten many times a second, then a new host: every manifest is valid JSON and the old sessions are lost', async () => {
    host = await startHost();
    const client = await host.connect();
    const busy = `i=0; while :; do i=$((i+1)); printf '\\033]7501;state=working:progress=%d\\033\\\\line %d\\n' $((i % 100)) $i; done`;
    const sessions = await Promise.all([1, 2, 3].map(() => client.create({ argv: ['sh', '-c', busy] })));
    await client.frame((f) => f.type === 'status' && f.session === sessions[2].session);
    // Killed while the writes go on: thirty more have been made since the three were reporting.
    const written = async () => (await client.request('host.status', {})).counters.manifests_written;
    const from = await written();
    for (let now = from; now < from + 30; now = await written()) await client.frame((f) => f.type === 'status', 20_000, client.frames.length);
    process.kill(host.pid, 'SIGKILL');
    await waitUntil(() => !running(host!.pid), 'the killed host is gone');

    const dir = join(host.env.PANEFLOW_HOME!, 'host/sessions');
    for (const name of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
      expect(() => JSON.parse(readFileSync(join(dir, name), 'utf8'))).not.toThrow();
    }
    expect(host.start()).toMatchObject({ adopted: false });
    const after = await host.connect();
    const { sessions: manifests } = await after.request('session.list', {});
    expect(manifests.map((m) => m.lifecycle)).toEqual(['lost', 'lost', 'lost']);
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // The killed host's sessions still run: cleanup ends them.
  });

  test('after a crash, a lost session is signalled only while its process is the recorded one, and one restarted on the new host attaches afresh', async () => {
    host = await startHost();
    const client = await host.connect();
    const before = (await client.request('host.status', {})).instance;
    // Deaf to the hangup the host's death sends, as a process that outlives its host is.
    const launch = () => client.create({ argv: ['sh', '-c', "trap '' HUP; echo up-$$; exec sleep 600"] });
    const [same, reused] = [await launch(), await launch()];
    const dir = join(host.env.PANEFLOW_HOME!, 'host/sessions');
    const manifestOf = (session: string) => JSON.parse(readFileSync(join(dir, `${session}.json`), 'utf8'));
    for (const { session } of [same, reused]) {
      await client.screenMatching(session, /up-\d+/);
      await waitUntil(() => manifestOf(session).process?.pid !== undefined, 'the manifest records the process');
    }
    process.kill(host.pid, 'SIGKILL');
    await waitUntil(() => !running(host!.pid), 'the killed host is gone');
    // As if `reused`'s pid now named another process: the manifest's start time no longer matches.
    const stale = manifestOf(reused.session);
    stale.process.started_at -= 1;
    writeFileSync(join(dir, `${reused.session}.json`), JSON.stringify(stale));

    host.start();
    const after = await host.connect();
    const now = (await after.request('host.status', {})).instance;
    expect(now).not.toBe(before); // what a mirror takes for host_replaced
    const { sessions } = await after.request('session.list', {});
    expect(sessions.map((m) => [m.session, m.lifecycle, m.lost?.reason])).toEqual([
      [same.session, 'lost', 'host_crash'],
      [reused.session, 'lost', 'host_crash'],
    ]);
    expect([running(same.pid), running(reused.pid)]).toEqual([true, true]);
    await after.request('session.stop', { session: same.session });
    expect(running(same.pid)).toBe(false);
    await after.request('session.stop', { session: reused.session });
    expect(running(reused.pid)).toBe(true);

    // A mirror of a lost session sees what it last showed (lost-screens.ts) until it is restarted; then the new generation.
    expect(await after.request('session.attach', { session: same.session })).toMatchObject({ generation: 1, instance: now, output_offset: 0 });
    expect(await after.request('session.restart', { session: same.session })).toMatchObject({ generation: 2 });
    expect(await after.request('session.attach', { session: same.session })).toMatchObject({ generation: 2, instance: now });
    await after.screenMatching(same.session, /up-\d+/);
  });

  test('garbage, truncated frames and an over-long line do not stop the host serving others', async () => {
    host = await startHost();
    const raw = (data: string | Buffer) =>
      new Promise<string>((resolve) => {
        const socket = createConnection(host!.endpoints.hostSocket);
        let received = '';
        socket.on('data', (d) => (received += d));
        socket.on('error', () => undefined); // a host that hangs up first leaves our write unfinished
        socket.on('close', () => resolve(received));
        // All there is to send, then our end: the host answers what it read and hangs up too.
        socket.end(data);
      });
    expect(await raw('\x00\xff garbage \n')).toMatch(/-32700/);
    expect(await raw('{"jsonrpc":"2.0","id":1,"method":"host.he')).toBe('');
    expect(await raw(Buffer.alloc(1024 * 1024 + 100, 'a'))).toMatch(/-32600/);
    expect(await raw('{"jsonrpc":"2.0","id":1,"method":"session.list"}\n')).toMatch(/host.hello must come first/);
    const client = await host.connect();
    expect(await client.request('host.status', {})).toMatchObject({ pid: host.pid });
  });

  test('a follower that never reads costs bounded memory, and the follower that reads still ends with every change', async () => {
    host = await startHost();
    const stalled = createConnection(host.endpoints.hostSocket);
    await new Promise((resolve) => stalled.once('connect', resolve));
    stalled.write(`{"jsonrpc":"2.0","id":1,"method":"host.hello","params":{"client":"stalled","protocol":1,"secret":"${readHostSecret(host.endpoints.home)}"}}\n`);
    // Its answer first: the host refuses a request that arrives before hello is done.
    await new Promise((resolve) => stalled.once('data', resolve));
    stalled.pause(); // reads nothing more until the flood is over
    stalled.write(`{"jsonrpc":"2.0","id":2,"method":"agent.follow","params":{}}\n`);

    const client = await host.connect();
    // 200 bursts of 200 reports with a message each: ~12 MB of status frames for one session, far
    // past what the stalled socket and queue may hold, however the host batches its reads.
    const flood = `
      const msg = Buffer.from('x'.repeat(120)).toString('base64');
      let burst = 0;
      const tick = () => {
        let out = '';
        for (let i = 0; i < 200; i++) out += '\\x1b]7501;state=working:id=t' + i + ':progress=' + (burst % 100) + ':msg=' + msg + '\\x1b\\\\';
        process.stdout.write(out + 'burst ' + burst + '\\n');
        if (++burst < 200) setTimeout(tick, 5);
        else { console.log('FLOOD-DONE'); setInterval(() => {}, 1000); }
      };
      tick();`;
    const { session } = await client.create({ argv: [process.execPath, '-e', flood] });
    // The host takes 30–40 s over these 40,000 records on a quiet machine of this kind (each a status
    // frame of 200 records to two followers); a loaded one has taken more than 60.
    await client.screenMatching(session, /FLOOD-DONE/, 150_000);
    const [state] = (await client.request('agent.snapshot', { session })).sessions;
    // The last burst's 200 records, the ones both followers must end with.
    expect(state.records.map((r) => r.progress)).toEqual(Array(200).fill(99));

    // What a follower holds: its queue (status of one session at most its limit, one output frame,
    // a few others) and its socket's buffer (up to the high water mark and one line past it).
    const statusLine = JSON.stringify(state).length;
    const bound = SOCKET_HIGH_WATER + statusLine + FOLLOWER_MAX_STATUS_BYTES + 16 * 1024;
    const { counters } = await client.request('host.status', {});
    expect(counters.followers).toBe(2);
    expect(counters.follower_held_bytes_peak).toBeLessThanOrEqual(bound);
    expect(counters.follower_queued_frames_peak).toBeLessThanOrEqual(FOLLOWER_MAX_FRAMES);

    // A frame queued behind everything the flood left: a follower that has it has all the rest.
    const marker = (await client.create({ argv: [process.execPath, '-e', 'setInterval(() => {}, 1000)'] })).session;
    const isMarker = (f: HostFrame) => (f.type === 'lifecycle' && f.session === marker) || (f.type === 'snapshot' && f.sessions.some((s) => s.session === marker));

    // The follower that reads ends with exactly the host's picture.
    await client.frame(isMarker);
    expect(pictureOf(client.frames, session)).toEqual(state.records);

    // So does the stalled one once it reads: what it was sent and what it was left are absolute.
    const { frames, done } = readFramesUntil<HostFrame>(stalled, isMarker);
    await done;
    expect(pictureOf(frames, session)).toEqual(state.records);
    stalled.destroy();
  }, scaled(200_000));

  test('a host that is killed leaves a start that works', async () => {
    host = await startHost();
    process.kill(host.pid, 'SIGKILL');
    await waitUntil(() => !running(host!.pid), 'the killed host is gone');
    const started = await hostCliAsync(host.env, 'start');
    expect(started.code).toBe(0);
    host.track(JSON.parse(started.stdout).pid);
    expect(running(host.pid)).toBe(true);
  });
});
