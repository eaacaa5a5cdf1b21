// Many machines over real OpenSSH (issue 32): a real sshd on 127.0.0.1 and a second unix user whose
// login runs its own Paneflow (libs/testing: startSshd, ensureUser). This machine's serve reaches it
// with ssh itself: the far agent in the lists here, asked and answered from here, read, attached to
// in tmux; the ssh connection killed and back; the far gates the far user's own.
import { ensureUser, makeHome, scaled, startSshd, Tmux, until, type Home, type Sshd, type UnixUser } from '@paneflow/testing';
import type { MachineRow, StatusObject } from '@paneflow/protocol';
import { spawnSync } from 'node:child_process';
import { chownSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(scaled(180_000));

const user = ensureUser();
const skip = 'skip' in user ? user.skip : null;

let home: Home;
let sshd: Sshd;
let tmux: Tmux;
beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1' });
  expect(home.run(['start']).code).toBe(0);
  tmux = new Tmux();
  if (skip) return;
  sshd = await startSshd(home.dir, { users: [user as UnixUser] });
  // The far login finds the fixture agent as `claude`, as it finds `paneflow`.
  const login = sshd.login((user as UnixUser).name);
  symlinkSync(join(__dirname, '../../../fixtures/agent.mjs'), join(login.dir, 'bin/claude'));
  chownSync(join(login.dir, 'bin/claude'), login.user.uid, login.user.gid);
});
afterAll(() => {
  tmux?.kill();
  sshd?.stop();
  home?.cleanup();
});

/** A command as the far user, over the test's sshd; its output. */
function farRun(command: string): string {
  const [program, ...args] = sshd.ssh((user as UnixUser).name, command);
  const result = spawnSync(program, args, { encoding: 'utf8', timeout: scaled(60_000) });
  if (result.status !== 0) throw new Error(`${command} over ssh: exit ${result.status}: ${result.stderr}`);
  return result.stdout;
}

const machine = async (): Promise<MachineRow> => (await home.rpc('machine.list', {})).machines[0];
const farAgents = async (): Promise<StatusObject[]> => (await home.rpc('fleet.list', {})).agents.filter((a) => a.machine === 'far');

/** The pids of this machine's ssh children of serve: the link. */
function linkPids(): number[] {
  const serve = JSON.parse(readFileSync(join(home.env.PANEFLOW_HOME!, 'serve/owner.lock'), 'utf8')).pid as number;
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === serve && readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'ssh';
      } catch {
        return false;
      }
    })
    .map(Number);
}

(skip ? test.skip : test)(`a far user's agents over real ssh: listed, asked, answered, read and attached to from here${skip ? ` (skipped: ${skip})` : ''}`, async () => {
  const far = user as UnixUser;
  // The far user runs its own Paneflow with its gates open, as its owner chose.
  farRun('PANEFLOW_IPC_SCRIPTING=1 PANEFLOW_IPC_ORCHESTRATION=1 paneflow serve start');
  const options = [`Port=${sshd.port}`, `IdentityFile=${sshd.key}`, 'StrictHostKeyChecking=no', 'UserKnownHostsFile=/dev/null', 'LogLevel=ERROR'];
  await home.rpc('machine.add', { name: 'far', destination: `${far.name}@127.0.0.1`, ssh_options: options });
  await until(async () => (await machine()).state === 'connected' || null, 'the link connected', scaled(60_000)).catch(async (error: Error) => {
    throw new Error(`${error.message}: ${JSON.stringify(await machine())}; sshd: ${sshd.log}`, { cause: error });
  });
  expect(linkPids()).toHaveLength(1);

  const up = (await home.rpc('machine.call', { machine: 'far', method: 'workspace.up', params: { name: 'farws', layout: 'even_h', panes: [{ name: 'builder', cwd: far.home, command: 'claude --block', focus: true, env: {} }] } })) as { surfaces: Array<{ surface_id: number }> };
  const surface = up.surfaces[0].surface_id;
  await until(async () => (await farAgents()).find((a) => a.surface_id === surface && a.state === 'idle'), 'the far agent idle, listed here');

  // Asked from here (a routed send), waiting in this machine's inbox, answered from here.
  await home.rpc('surface.send_text', { surface_id: surface, machine: 'far', text: 'ship it', submit: true });
  const item = await until(async () => (await home.rpc('fleet.inbox', {})).items.find((i) => i.machine === 'far' && i.surface_id === surface), 'the far wait in the inbox here');
  expect(item.message).toBe('approve Bash: ship it');
  await home.rpc('surface.answer', { surface_id: surface, machine: 'far', answer: 'yes', state_seq: item.state_seq });
  await until(async () => (await farAgents()).find((a) => a.surface_id === surface && a.state === 'finished'), 'the far agent finished');
  const read = await home.rpc('surface.read', { surface_id: surface, machine: 'far', lines: 5, fenced: false });
  expect(read.text).toContain('done: ship it');

  // Attached from here in a real terminal: its screen, and keys typed in order.
  const window = tmux.window([process.execPath, join(__dirname, '../dist/paneflow.cjs'), 'attach', '--machine', 'far', 'farws'], { env: home.env, dir: home.dir, cols: 110, rows: 30 });
  await until(() => window.capture().join('\n').includes('done: ship it') || null, 'the far pane in attach');
  window.type('abcdefghij');
  window.keys('Enter');
  await until(() => window.capture().join('\n').includes('thinking about: abcdefghij') || null, 'the keys typed there, in order').catch((error: Error) => {
    throw new Error(`${error.message}; the screen:\n${window.capture().join('\n')}`, { cause: error });
  });

  // The typed prompt's turn reaches its question before the link goes: "thinking" on screen comes first.
  await until(async () => (await farAgents()).find((a) => a.surface_id === surface && a.state === 'waiting_for_input'), 'the far agent asking about the typed prompt');

  // The ssh connection killed: the far side keeps its agent; the link comes back by itself.
  const [link] = linkPids();
  process.kill(link, 'SIGKILL');
  await until(async () => (await machine()).state === 'reconnecting' || null, 'the link seen down');
  await until(async () => (await machine()).state === 'connected' || null, 'the link back', scaled(60_000));
  expect(linkPids()).not.toContain(link);
  expect((await farAgents()).find((a) => a.surface_id === surface)?.state).toBe('waiting_for_input');

  // The far serve started again by its user without the scripting gate: a write from here is the far's to refuse.
  farRun('paneflow serve stop');
  await until(async () => (await machine()).state === 'connected' && (await home.rpc('machine.call', { machine: 'far', method: 'system.capabilities', params: {} }).then((c) => !(c as { scripting: boolean }).scripting, () => false)) || null, 'the far serve back, its gate closed', scaled(60_000));
  const refused = await home.rpc('surface.send_text', { surface_id: surface, machine: 'far', text: 'no', submit: true }).catch((error: Error) => error);
  expect(refused).toMatchObject({ message: 'surface.send_text disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1' });
  expect((await farAgents()).find((a) => a.surface_id === surface)?.state).toBe('waiting_for_input');
});
