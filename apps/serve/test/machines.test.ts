// Many machines (issue 32), serve's side: two real instances on this machine, the second reached as
// a far machine through the fake `ssh` (libs/testing), which runs `paneflow rpc --stdio` in its home.
// What crosses: the far agents in this serve's lists and frames, routed requests under the far
// gates, the link's states and reasons, and a gap caught up once, nothing missed, nothing twice.
import { connectHost, readHostSecret } from '@paneflow/instance';
import { ErrorCode, type MachineRow, type RpcError } from '@paneflow/protocol';
import { fakeSsh, homeDestination, scaled, until, type FakeSsh } from '@paneflow/testing';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { killIfAlive, startInstance, waitUntilGone, type EventStream, type Frame, type Instance } from './helpers';

jest.setTimeout(scaled(120_000));

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('it succeeded');
    },
    (error: RpcError) => ({ code: error.code, reason: error.reason, message: error.message }),
  );

/** Whether an ssh of this test runs to `destination` now (its processes, by /proc). */
function sshRunning(destination: string): boolean {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .some((pid) => {
      try {
        const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return argv[1] === ssh.path && argv.includes(destination);
      } catch {
        return false;
      }
    });
}

let here: Instance;
let far: Instance;
let ssh: FakeSsh;
let events: EventStream;
let plain: EventStream;
let farOnly: EventStream;
beforeAll(async () => {
  [here, far] = await Promise.all([startInstance({ orchestration: true }), startInstance({ scripting: true, orchestration: true })]);
  // Serve finds `ssh` on its PATH: the fake one, in the bin dir the instance put first.
  ssh = fakeSsh(join(here.dir, 'bin'), { far: homeDestination(far) });
  events = await here.subscribe({ machines: true });
  plain = await here.subscribe();
  farOnly = await here.subscribe({ machines: 'only' });
});
afterAll(async () => {
  await here?.call('machine.remove', { name: 'far' }).catch(() => undefined);
  await Promise.all([here?.cleanup(), far?.cleanup()]);
});

const machineIs = (name: string, test: (row: MachineRow) => boolean) => (f: Frame) => f.type === 'machine_changed' && (f.machine as MachineRow).name === name && test(f.machine as MachineRow);
const farStatus = (surface: number, test: (f: Frame) => boolean = () => true) => (f: Frame) => f.type === 'status_changed' && f.machine === 'far' && f.surface_id === surface && test(f);

/** A far agent pane, idle (the fixture agent, which asks before each turn). */
async function farAgent(name: string) {
  const farEvents = await far.subscribe();
  const up = await far.call('workspace.up', { name, layout: 'even_h', panes: [{ name, cwd: far.dir, command: 'claude --block', focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  await farEvents.next((f) => f.type === 'status_changed' && f.surface_id === surface && f.state === 'idle');
  farEvents.connection.destroy();
  return surface;
}

test('machine.add writes the config and connects; bad machines are refused and change nothing', async () => {
  writeFileSync(here.configFile, JSON.stringify({ reduce_motion: true }));
  const mark = events.mark;
  const { machine } = await here.call('machine.add', { name: 'far', destination: 'far' });
  expect(machine).toMatchObject({ name: 'far', destination: 'far', state: 'connecting' });
  const up = await events.next(machineIs('far', (m) => m.state === 'connected'), mark);
  expect(up.machine).toMatchObject({ reason: null, remote: { protocol: 1 } });
  expect(JSON.parse(readFileSync(here.configFile, 'utf8'))).toEqual({ reduce_motion: true, machines: { far: { destination: 'far' } } });
  // One ssh for the machine, with the link's options ahead of the destination and the bridge as its command.
  const [call] = ssh.calls().filter((c) => c.destination === 'far');
  expect(call.options).toEqual(expect.arrayContaining([['o', 'BatchMode=yes'], ['o', 'ServerAliveInterval=10'], ['T', null]]));
  expect(call.command).toBe('paneflow rpc --stdio');

  const before = readFileSync(here.configFile, 'utf8');
  expect(await refusal(here.call('machine.add', { name: 'far', destination: 'elsewhere' }))).toMatchObject({ code: ErrorCode.InvalidParams, reason: 'machine_exists' });
  expect(await refusal(here.call('machine.add', { name: 'p', destination: 'far', ssh_options: ['ProxyCommand=touch /tmp/owned'] }))).toMatchObject({ reason: 'invalid_ssh_option' });
  expect(await refusal(here.call('machine.add', { name: 'x', destination: '-oProxyCommand=id' }))).toMatchObject({ code: ErrorCode.InvalidParams, reason: 'invalid_params' });
  expect(await refusal(here.call('machine.remove', { name: 'nope' }))).toMatchObject({ code: ErrorCode.NotFound, reason: 'unknown_machine' });
  expect(readFileSync(here.configFile, 'utf8')).toBe(before);
});

test('a far agent in the lists and frames here, marked with its machine; answered from here under the far serve', async () => {
  const surface = await farAgent('farwait');
  await until(async () => (await here.call('fleet.list', {})).agents.find((a) => a.machine === 'far' && a.surface_id === surface), 'the far agent listed here');
  const mark = events.mark;
  const plainMark = plain.mark;
  await far.call('surface.send_text', { surface_id: surface, text: 'deploy it', submit: true });
  const waiting = await events.next(farStatus(surface, (f) => f.state === 'waiting_for_input'), mark);
  expect(waiting.surface_status).toMatchObject({ machine: 'far', surface_id: surface });
  const notice = await events.next((f) => f.type === 'notification' && f.machine === 'far' && f.surface_id === surface, mark);
  expect(notice).toMatchObject({ kind: 'needs_input' });
  const { items, machines } = await here.call('fleet.inbox', {});
  const item = items.find((i) => i.machine === 'far' && i.surface_id === surface)!;
  expect(item).toMatchObject({ message: 'approve Bash: deploy it', kind: 'permission' });
  expect(machines).toEqual([expect.objectContaining({ name: 'far', state: 'connected' })]);
  // This machine's own rows say so; narrowed to it, the far rows are gone.
  expect((await here.call('fleet.list', { machine: null })).agents.every((a) => a.machine === null)).toBe(true);
  // A subscriber that did not ask for machines hears none of it; one that asked for them alone, only them.
  expect(plain.frames.slice(plainMark).filter((f) => 'machine' in f && f.machine)).toEqual([]);
  await here.call('workspace.create', { name: 'local-change', cwd: here.dir });
  await plain.next((f) => f.type === 'workspace_changed', plainMark);
  await farOnly.next(farStatus(surface, (f) => f.state === 'waiting_for_input'));
  expect(farOnly.frames.filter((f) => !['subscribed', 'heartbeat', 'machine_changed'].includes(f.type) && !f.machine)).toEqual([]);

  const resolved = await here.call('surface.resolve', { selector: '@far:farwait', scope: 'all' });
  expect(resolved.surfaces).toEqual([expect.objectContaining({ surface_id: surface, machine: 'far' })]);
  const answered = await here.call('surface.answer', { surface_id: surface, machine: 'far', answer: 'yes', state_seq: item.state_seq });
  expect(answered).toMatchObject({ answered: true });
  await until(async () => (await far.call('surface.status', { surface_id: surface })).state === 'finished', 'the far agent done, seen on the far side');
  const read = await here.call('surface.read', { surface_id: surface, machine: 'far', lines: 5, fenced: false });
  expect(read.text).toContain('done: deploy it');
  // The far turn's record as it ended, passed on with its machine; acknowledged and queued there from here.
  const ended = await events.next((f) => f.type === 'turn_ended' && f.machine === 'far' && f.surface_id === surface, mark);
  expect(ended.turn).toMatchObject({ prompt: { text: 'deploy it' }, ended: 'finished' });
  const farSession = (await far.call('surface.status', { surface_id: surface })).session;
  expect(await here.call('session.ack', { sessions: [farSession], machine: 'far' })).toEqual({ acked: [farSession] });
  expect((await far.call('surface.status', { surface_id: surface })).unread).toBe(false);
  expect((await here.call('queue.list', { surface_id: surface, machine: 'far' })).queues).toEqual([expect.objectContaining({ surface_id: surface, items: [] })]);
  // The digest asks each machine for the same window: the far turn is in this machine's digest.
  const digest = await here.call('fleet.digest', { since_ms: Date.now() - 60_000 });
  expect(digest.agents.find((a) => a.machine === 'far' && a.surface_id === surface)).toMatchObject({ turns: 1, last_prompt: 'deploy it' });
  expect((await here.call('fleet.digest', { machine: null })).agents.every((a) => a.machine === null)).toBe(true);
  // A second answer to the same wait is the far serve's to refuse.
  expect(await refusal(here.call('surface.answer', { surface_id: surface, machine: 'far', answer: 'yes', state_seq: item.state_seq }))).toMatchObject({ code: ErrorCode.StateConflict });
  expect(await refusal(here.call('surface.status', { surface_id: surface, machine: 'nowhere' }))).toMatchObject({ code: ErrorCode.NotFound, reason: 'unknown_machine' });
});

test('a gap: the far serve dies and the link cannot get back while an agent begins to wait; once back, the change is said once and the wait notified once', async () => {
  const surface = await farAgent('gap');
  await until(async () => (await here.call('fleet.list', {})).agents.find((a) => a.machine === 'far' && a.surface_id === surface), 'the far agent listed here');
  const mark = events.mark;
  ssh.set('far', { behaviour: 'refuse' });
  const farServe = far.servePid;
  killIfAlive(farServe);
  await waitUntilGone(farServe);
  await events.next(machineIs('far', (m) => m.state === 'reconnecting' && /Connection refused/.test(m.reason ?? '')), mark);
  // The rows stay, as last seen; the lists answer at once.
  expect((await here.call('fleet.list', {})).agents.some((a) => a.machine === 'far' && a.surface_id === surface)).toBe(true);
  expect(await refusal(here.call('surface.status', { surface_id: surface, machine: 'far' }))).toMatchObject({ code: ErrorCode.MachineUnavailable, reason: 'machine_offline' });

  // Typed on the far host itself, as a person there would: the agent waits with nobody's serve watching.
  const { connection } = await connectHost(far.endpoints, 'test');
  const session = (await connection.request('session.list', {})).sessions.find((s) => s.surface_id === surface)!.session;
  await connection.request('session.input', { session, text: 'while away\r', origin: 'user' });
  connection.destroy();

  ssh.set('far', homeDestination(far));
  await events.next(machineIs('far', (m) => m.state === 'connected'), mark);
  const notice = await events.next((f) => f.type === 'notification' && f.machine === 'far' && f.surface_id === surface, mark);
  expect(notice).toMatchObject({ kind: 'needs_input', body: 'approve Bash: while away' });
  const waiting = await events.next(farStatus(surface, (f) => f.state === 'waiting_for_input'), mark);
  // Whatever else the catch-up reads, nothing of it is said twice.
  await until(async () => (await here.call('fleet.inbox', {})).items.some((i) => i.machine === 'far' && i.surface_id === surface), 'the wait in the inbox here');
  const after = events.frames.slice(mark);
  expect(after.filter((f) => f.type === 'notification' && f.surface_id === surface && f.machine === 'far')).toHaveLength(1);
  expect(after.filter(farStatus(surface, (f) => f.state_seq === waiting.state_seq))).toHaveLength(1);
  far.servePid = JSON.parse(readFileSync(join(far.env.PANEFLOW_HOME!, 'serve/owner.lock'), 'utf8')).pid;
});

test('a machine that never answers, one that refuses, one without Paneflow and one of another protocol: each says why, and no list waits on them', async () => {
  ssh.set('slow', { behaviour: 'hang' });
  ssh.set('closed', { behaviour: 'refuse' });
  ssh.set('bare', { env: { PATH: '/usr/bin:/bin', HOME: far.env.HOME! } });
  // A Paneflow of a later protocol there: its bridge's hello, as it would say it.
  const later = join(far.dir, 'later');
  mkdirSync(later);
  writeFileSync(join(later, 'paneflow'), `#!/bin/sh\necho '{"jsonrpc":"2.0","method":"rpc.hello","params":{"name":"paneflow-rpc","version":"9.9.9","protocol":99}}'\nexec cat >/dev/null\n`, { mode: 0o755 });
  ssh.set('later', { env: { PATH: `${later}:/usr/bin:/bin`, HOME: far.env.HOME! } });
  const mark = events.mark;
  for (const name of ['slow', 'closed', 'bare', 'later']) await here.call('machine.add', { name, destination: name });
  // While `slow` hangs in its connect, every list answers from what this serve has.
  const listed = await here.call('fleet.list', {});
  expect(listed.machines?.find((m) => m.name === 'slow')).toMatchObject({ state: 'connecting', last_seen_ms: null, agents: 0 });
  // A machine removed while its ssh hangs takes that ssh with it.
  ssh.set('stuck', { behaviour: 'hang' });
  await here.call('machine.add', { name: 'stuck', destination: 'stuck' });
  await until(() => sshRunning('stuck'), 'the ssh to a hanging machine running');
  await here.call('machine.remove', { name: 'stuck' });
  await until(() => !sshRunning('stuck'), 'the removed machine’s ssh gone');
  await events.next(machineIs('closed', (m) => m.state === 'offline' && m.reason === 'ssh: connect to host closed port 22: Connection refused'), mark);
  await events.next(machineIs('later', (m) => m.state === 'offline' && m.reason === 'later runs Paneflow 9.9.9 (protocol 99); this one speaks protocol 1: update one of them'), mark);
  await events.next(machineIs('bare', (m) => m.state === 'offline' && /^Paneflow is not installed on bare \(or not on its login's PATH; see --remote-command\): .*paneflow: (command )?not found/.test(m.reason ?? '')), mark);
  // ConnectTimeout=10 is the link's: the hung connect ends as ssh says it does.
  await events.next(machineIs('slow', (m) => m.state === 'offline' && /Connection timed out/.test(m.reason ?? '')), mark, scaled(40_000));
  for (const name of ['slow', 'closed', 'bare', 'later']) await here.call('machine.remove', { name });
  expect((await here.call('machine.list', {})).machines.map((m) => m.name)).toEqual(['far']);
});

test('a face in a far workspace: its requests and terminal through this serve, terminal input only with this host’s secret', async () => {
  const up = await far.call('workspace.up', { name: 'face', layout: 'even_h', panes: [{ name: 'face', cwd: far.dir, command: 'bash --norc', focus: true, env: {} }] });
  const surface = up.surfaces[0].surface_id;
  const { surfaces } = (await here.call('machine.call', { machine: 'far', method: 'surface.list', params: { scope: 'all' } })) as { surfaces: Array<{ surface_id: number; session: string }> };
  const session = surfaces.find((s) => s.surface_id === surface)!.session;
  expect(await refusal(here.call('machine.terminal', { machine: 'far', host_secret: 'guess', method: 'session.input', params: { session, text: 'echo no\r', origin: 'user' } }))).toMatchObject({ code: ErrorCode.Permission });
  const secret = readHostSecret(here.endpoints.home)!;
  await here.call('machine.terminal', { machine: 'far', host_secret: secret, method: 'session.input', params: { session, text: 'echo far-$((6*7))\r', origin: 'user' } });
  await until(async () => {
    const { checkpoint } = (await here.call('machine.terminal', { machine: 'far', host_secret: secret, method: 'session.attach', params: { session, scrollback: 0 } })) as { checkpoint: string };
    return checkpoint.includes('far-42');
  }, 'the far screen, read through this serve');
  expect(await refusal(here.call('machine.call', { machine: 'far', method: 'events.subscribe', params: {} }))).toMatchObject({ code: ErrorCode.InvalidParams });
});
