// Many machines from the CLI (issue 32): `machine add|ls|remove`, the far agents in ps, inbox and
// sessions, their panes as targets (--machine NAME, @NAME:SEL), the far side's own gates, and a
// far machine that hangs or goes away. Three real instances on this machine: "near", the one the
// CLI talks to, and two "far" ones its serve reaches through libs/testing's fake ssh, which runs
// `paneflow rpc --stdio` in their homes, as sshd would run it on theirs.
import { LockFile } from '@paneflow/instance';
import { InboxItem, MachineRow, SessionRow, StatusObject, validate } from '@paneflow/protocol';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fakeSsh, homeDestination, makeHome, scaled, until, type FakeSsh, type Home } from '@paneflow/testing';

jest.setTimeout(scaled(90_000));

const GATES = { PANEFLOW_IPC_ORCHESTRATION: '1', PANEFLOW_IPC_SCRIPTING: '1' };
const agentPane = (name: string, home: Home) => ({ name, cwd: home.dir, command: 'claude --work-ms 100', focus: false, env: {} });
const status = (home: Home, id: number) => home.rpc('surface.status', { surface_id: id });
const config = (home: Home) => JSON.parse(readFileSync(join(home.dir, 'config.json'), 'utf8')) as { machines?: Record<string, unknown> };
/** A control character left raw in what a terminal would get. */
// eslint-disable-next-line no-control-regex -- what may not remain
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/;

let near: Home;
let far: Home;
let locked: Home;
let ssh: FakeSsh;
let nearAgent: number;
let farAgent: number;
let lockedPane: number;

const machines = () => near.run(['machine', 'ls', '--json']).json<{ machines: MachineRow[] }>().machines;
const machine = (name: string) => machines().find((m) => m.name === name);
const inboxItems = () => near.run(['inbox', '--json']).json<{ items: InboxItem[] }>().items;
/** Rows of a table, each split on its runs of two spaces or more. */
const rows = (text: string) => text.trimEnd().split('\n').map((line) => line.split(/\s{2,}/));

beforeAll(async () => {
  near = makeHome(GATES);
  far = makeHome(GATES);
  // Its scripting gate closed: it refuses writes, whoever asks.
  locked = makeHome();
  // Near's serve finds it first on its PATH (near's bin).
  ssh = fakeSsh(join(near.dir, 'bin'), { 'me@far': homeDestination(far), 'me@locked': homeDestination(locked), 'me@slow': { behaviour: 'hang' } });
  for (const home of [near, far, locked]) expect(home.run(['start']).code).toBe(0);
  nearAgent = (await near.rpc('workspace.up', { name: 'here', layout: 'even_h', panes: [agentPane('lead', near)] })).surfaces[0].surface_id;
  farAgent = (await far.rpc('workspace.up', { name: 'there', layout: 'even_h', panes: [agentPane('worker', far)] })).surfaces[0].surface_id;
  lockedPane = (await locked.rpc('workspace.create', { name: 'gated', cwd: locked.dir })).surface_id;
  await until(async () => (await status(near, nearAgent)).reason === 'declared' && (await status(far, farAgent)).reason === 'declared', 'both agents declare');
}, scaled(90_000));

afterAll(() => {
  const failures: unknown[] = [];
  for (const home of [near, far, locked]) {
    try {
      home?.cleanup();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
});

test('machine add writes config.json and the link goes connecting → connected; machine ls says so; without machines the tables are as before', async () => {
  expect(near.run(['ps']).stdout).not.toMatch(/MACHINE/);
  expect(near.run(['machine', 'ls']).stdout).toBe('no machines: `paneflow machine add NAME DESTINATION` adds one\n');

  const added = near.run(['machine', 'add', 'far', 'me@far', '--json']);
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);
  expect(added.json<{ machine: MachineRow }>().machine).toMatchObject({ name: 'far', destination: 'me@far', state: 'connecting', agents: 0 });
  expect(config(near).machines).toEqual({ far: { destination: 'me@far' } });

  const up = await until(() => (machine('far')?.state === 'connected' && machine('far')!.agents === 1 ? machine('far') : null), 'far connected, its agent seen');
  expect(validate(MachineRow, up)).toBeNull();
  expect(up.remote).toMatchObject({ protocol: expect.any(Number) });
  const [header, row] = rows(near.run(['machine', 'ls']).stdout);
  expect(header).toEqual(['NAME', 'DESTINATION', 'AGENTS', 'LAST SEEN', 'STATE']);
  expect(row[0]).toBe('far');
  expect(row[1]).toBe('me@far');
  expect(row[2]).toBe('1');
  expect(row[3]).toMatch(/^\d+s ago$/);
  expect(row[4]).toMatch(/^connected \d+s$/);

  const human = near.run(['machine', 'add', 'locked', 'me@locked']);
  expect(human.code).toBe(0);
  expect(human.stdout).toBe('added locked (me@locked): connecting; `paneflow machine ls` shows how its link goes\n');
  await until(() => machine('locked')?.state === 'connected', 'locked connected');
  expect(Object.keys(config(near).machines!)).toEqual(['far', 'locked']);

  const again = near.run(['machine', 'add', 'far', 'me@elsewhere']);
  expect(again.code).toBe(1);
  expect(again.stderr).toMatch(/far.*exists/);
  expect(config(near).machines!.far).toEqual({ destination: 'me@far' });
});

test('--ssh-option and --remote-command reach ssh as given, and are kept in config.json', async () => {
  const paneflow = join(far.dir, 'bin/paneflow');
  const added = near.run(['machine', 'add', 'via', 'me@far', '--ssh-option', 'Port=2222', '--ssh-option', 'ConnectTimeout=5', '--remote-command', paneflow]);
  expect(added.code).toBe(0);
  expect(config(near).machines!.via).toEqual({ destination: 'me@far', ssh_options: ['Port=2222', 'ConnectTimeout=5'], remote_command: paneflow });
  await until(() => machine('via')?.state === 'connected', 'via connected');
  const call = ssh.calls().find((c) => c.options.some(([flag, value]) => flag === 'o' && value === 'Port=2222'))!;
  expect(call.destination).toBe('me@far');
  expect(call.options).toContainEqual(['o', 'ConnectTimeout=5']);
  expect(call.command).toBe(`${paneflow} rpc --stdio`);
  expect(near.run(['machine', 'remove', 'via']).code).toBe(0);
  expect(machine('via')).toBeUndefined();
});

test("ps, sessions and ls --scope all show the far agent with a MACHINE column, and JSON says each row's machine", async () => {
  const ps = rows(near.run(['ps']).stdout);
  expect(ps[0].slice(0, 3)).toEqual(['MACHINE', 'ID', 'NAME']);
  expect(ps.slice(1).map((r) => [r[0], r[1], r[2]])).toEqual([
    ['-', String(nearAgent), 'lead'],
    ['far', String(farAgent), 'worker'],
  ]);

  const json = near.run(['ps', '--json']).json<{ agents: StatusObject[]; machines: MachineRow[] }>();
  for (const agent of json.agents) expect(validate(StatusObject, agent)).toBeNull();
  expect(json.agents.map((a) => [a.machine, a.surface_name])).toEqual([
    [null, 'lead'],
    ['far', 'worker'],
  ]);
  expect(json.machines.map((m) => [m.name, m.state])).toEqual([
    ['far', 'connected'],
    ['locked', 'connected'],
  ]);

  const narrowed = near.run(['ps', '--machine', 'far', '--json']).json<{ agents: StatusObject[] }>();
  expect(narrowed.agents.map((a) => [a.machine, a.surface_id])).toEqual([['far', farAgent]]);

  const sessions = near.run(['sessions', '--json']).json<{ sessions: SessionRow[]; machines: MachineRow[] }>();
  for (const row of sessions.sessions) expect(validate(SessionRow, row)).toBeNull();
  expect(sessions.sessions.map((s) => s.machine)).toEqual([null, 'far', 'locked']);
  expect(sessions.machines).toHaveLength(2);
  const table = rows(near.run(['sessions']).stdout);
  expect(table[0].slice(0, 2)).toEqual(['MACHINE', 'SESSION']);
  expect(table.slice(1).map((r) => r[0])).toEqual(['-', 'far', 'locked']);
  expect(rows(near.run(['sessions', '--machine', 'locked']).stdout).slice(1).map((r) => r[0])).toEqual(['locked']);

  const panes = rows(near.run(['ls', '--scope', 'all', '--human']).stdout);
  expect(panes[0].slice(0, 4)).toEqual(['MACHINE', 'ID', 'WS', 'NAME']);
  expect(panes.slice(1).map((r) => [r[0], r[3]])).toEqual([
    ['-', 'lead'],
    ['far', 'worker'],
    ['locked', '-'],
  ]);
  // This workspace's panes alone, as before: no other machine's.
  expect(near.run(['ls', '--human']).stdout).not.toMatch(/MACHINE/);
  // Stopping this instance stops this machine's sessions only: it counts no other's.
  const stop = near.run(['stop']);
  expect(stop.code).toBe(1);
  expect(stop.stderr).toMatch(/^paneflow: refused: 1 session\(s\) live/);
});

test('read, send, status and answer reach the far pane by --machine and by @NAME:, never the pane of the same id here', async () => {
  // Same ids on both machines: a request that lost its machine would land on this one's pane.
  expect(farAgent).toBe(nearAgent);
  const sent = near.run(['send', '@far:worker', 'ship the far permission', '--submit']);
  expect(sent.stderr).toBe('');
  expect(sent.code).toBe(0);
  expect(sent.json()).toMatchObject({ surface_id: farAgent, submitted: true, started: true });

  const item = await until(() => inboxItems().find((i) => i.machine === 'far'), 'the far agent waits in the inbox');
  expect(validate(InboxItem, item)).toBeNull();
  expect(item).toMatchObject({ surface_id: farAgent, surface_name: 'worker', kind: 'permission', message: 'approve Bash: ship the far permission' });
  expect(inboxItems().filter((i) => i.machine === null)).toEqual([]);
  const inbox = rows(near.run(['inbox']).stdout);
  expect(inbox[0].slice(0, 3)).toEqual(['MACHINE', 'WAITING', 'WORKSPACE']);
  expect(inbox[1][0]).toBe('far');
  expect(inbox[1]).toContain('worker');

  const far_ = near.run(['status', 'worker', '--machine', 'far', '--json']).json<StatusObject>();
  expect(far_).toMatchObject({ surface_id: farAgent, machine: 'far', state: 'waiting_for_input' });
  expect(near.run(['status', 'lead', '--json']).json<StatusObject>().state).not.toBe('waiting_for_input');

  const answered = near.run(['answer', 'worker', 'yes', '--machine', 'far']);
  expect(answered.stderr).toBe('');
  expect(answered.code).toBe(0);
  expect(answered.json()).toMatchObject({ surface_id: farAgent, answered: true, left_waiting: true });

  await until(() => /^allowed$/m.test(near.run(['read', '@far:worker', '--raw']).stdout), 'the far agent ran its tool');
  const read = near.run(['read', 'worker', '--machine', 'far', '--json']).json<{ text: string }>();
  expect(read.text).toContain('ship the far permission');
  expect(near.run(['read', 'lead', '--raw']).stdout).not.toContain('ship the far permission');
  const found = near.run(['search', '@far:worker', 'ship the far']).json<{ matches: Array<{ text: string }> }>();
  expect(found.matches.length).toBeGreaterThan(0);
  expect(near.run(['search', 'lead', 'ship the far']).json<{ matches: unknown[] }>().matches).toEqual([]);
  expect(near.run(['focus', 'worker', '--machine', 'far']).json()).toMatchObject({ surface_id: farAgent });
  expect((await far.rpc('surface.read', { surface_id: farAgent, fenced: false })).text).toContain('allowed');

  // Its turn, waited for and listed there: this machine's agent has had none.
  const waited = near.run(['wait', '--match', 'worker', '--machine', 'far', '--idle', '--timeout', '60']);
  expect(waited.code).toBe(0);
  expect(waited.json()).toMatchObject({ surface_id: farAgent, machine: 'far', matched: 'idle' });
  const turns = near.run(['turns', '@far:worker', '--json']).json<{ turns: Array<{ surface_id: number; prompt: { text: string } | null }> }>().turns;
  expect(turns.map((t) => t.prompt?.text)).toEqual(['ship the far permission']);
  expect(near.run(['turns', '--machine', 'far', '--json']).json<{ turns: unknown[] }>().turns).toHaveLength(1);
  expect(near.run(['turns', 'lead', '--json']).json<{ turns: unknown[] }>().turns).toEqual([]);
  const digest = rows(near.run(['digest', '--since', '1h']).stdout).slice(1);
  expect(digest[0].slice(0, 3)).toEqual(['MACHINE', 'ID', 'NAME']);
  expect(digest.find((r) => r[0] === 'far')?.[2]).toBe('worker');
  expect(near.run(['digest', '--since', '1h', '--machine', 'far', '--json']).json<{ agents: Array<{ machine: string | null }> }>().agents.map((a) => a.machine)).toEqual(['far']);
  // Its pane is in no git work tree there: a turn with no change (exit 1), not "no such turn" (3) as here.
  const diff = near.run(['diff', '@far:worker']);
  expect(diff.code).toBe(1);
  expect(near.run(['diff', 'lead']).code).toBe(3);

  // A name that is not there is that machine's "no match": exit 3.
  const missing = near.run(['read', '@far:nobody']);
  expect(missing.code).toBe(3);
  const unknown = near.run(['read', 'worker', '--machine', 'nowhere']);
  expect(unknown.code).toBe(3);
  expect(unknown.stderr).toMatch(/no machine named 'nowhere'/);
});

test("a far instance with its scripting gate closed refuses a send from here: exit 1, its serve's words, nothing typed", async () => {
  const refused = near.run(['send', `@locked:${lockedPane}`, 'echo never typed', '--submit']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toMatch(/PANEFLOW_IPC_SCRIPTING/);
  expect(refused.stdout).toBe('');
  const { text } = await locked.rpc('surface.read', { surface_id: lockedPane, fenced: false });
  expect(text).not.toContain('never typed');
  const key = near.run(['key', String(lockedPane), 'x', '--machine', 'locked']);
  expect(key.code).toBe(1);
  expect(key.stderr).toMatch(/PANEFLOW_IPC_SCRIPTING/);
  // Reading is not gated there: the pane is reachable, only the write was refused.
  expect(near.run(['read', String(lockedPane), '--machine', 'locked', '--raw']).code).toBe(0);
});

test("a machine whose ssh never answers leaves ps answering at once; a request for its pane is refused, not waited on", async () => {
  expect(near.run(['machine', 'add', 'slow', 'me@slow']).code).toBe(0);
  // Every answer below comes while slow is still connecting: none of them waited for it.
  const ps = near.run(['ps', '--json']).json<{ agents: StatusObject[]; machines: MachineRow[] }>();
  expect(ps.machines.find((m) => m.name === 'slow')).toMatchObject({ state: 'connecting', last_seen_ms: null });
  expect(ps.agents.map((a) => a.machine)).toEqual([null, 'far']);
  const inbox = near.run(['inbox']);
  expect(inbox.code).toBe(0);
  const read = near.run(['read', 'x', '--machine', 'slow']);
  expect(read.code).toBe(1);
  expect(read.stderr).toMatch(/slow is connecting/);
  expect(machine('slow')!.state).toBe('connecting');
  expect(near.run(['machine', 'remove', 'slow']).code).toBe(0);
});

test("what a far machine's ssh says reaches the terminal cleaned: machine ls, and the refusal of a request", async () => {
  // A destination ssh cannot resolve, with controls in it: ssh's stderr quotes them back.
  const evil = 'me@evil\x1b]0;pwned\x07\x1b[2J';
  expect(near.run(['machine', 'add', 'evil', evil]).code).toBe(0);
  const row = await until(() => (machine('evil')?.reason ? machine('evil') : null), 'the refusal seen');
  expect(row.state).toBe('offline');
  expect(row.reason).toContain('\x1b]0;pwned');
  const table = near.run(['machine', 'ls']).stdout;
  expect(table).not.toMatch(RAW_CONTROL);
  expect(table).toContain('offline');
  expect(table).toContain('Could not resolve hostname evil^[]0;pwned^G^[[2J: Name or service not known');
  const refused = near.run(['status', '1', '--machine', 'evil']);
  expect(refused.code).toBe(1);
  expect(refused.stderr).not.toMatch(RAW_CONTROL);
  expect(refused.stderr).toContain('^[]0;pwned');
  expect(near.run(['machine', 'remove', 'evil']).code).toBe(0);
});

test("after its serve is killed the far machine's rows say it is not connected and how old they are; connected again once it is back", async () => {
  // While ssh is refused, the link cannot come back by itself: the not-connected rows hold still to be read.
  const watch = near.start(['ps', '--watch']);
  await watch.line((line) => /^far\s+\d+\s+worker/.test(line));
  ssh.set('me@far', { behaviour: 'refuse' });
  const holder = new LockFile(join(far.env.PANEFLOW_HOME!, 'serve', 'owner.lock')).holder()!;
  process.kill(holder.pid, 'SIGKILL');
  const down = await until(() => (['reconnecting', 'offline'].includes(machine('far')!.state) ? machine('far') : null), 'far not connected');

  const ps = rows(near.run(['ps']).stdout);
  const farRow = ps.find((r) => r[0].startsWith('far'))!;
  expect(farRow[0]).toMatch(new RegExp(`^far \\(${down.state} \\d+s\\)$`));
  expect(farRow[1]).toBe(String(farAgent));
  expect(ps.find((r) => r[0] === '-')![2]).toBe('lead');
  const json = near.run(['ps', '--json']).json<{ agents: StatusObject[]; machines: MachineRow[] }>();
  expect(json.agents.find((a) => a.machine === 'far')).toBeDefined();
  expect(json.machines.find((m) => m.name === 'far')!.state).toBe(down.state);
  // Its reason is the retry's, once the link has tried again: ssh's words.
  await until(() => /reconnecting \d+s: ssh: connect to host far port 22: Connection refused/.test(near.run(['machine', 'ls']).stdout), "the retry's refusal in machine ls");

  // The live table redraws on the link's change alone: nothing changed on this machine.
  await watch.line((line) => /^far \((reconnecting|offline) \d+s\)\s+\d+\s+worker/.test(line));
  watch.child.kill('SIGINT');
  expect(await watch.exited).toBe(0);

  ssh.set('me@far', homeDestination(far));
  await until(() => machine('far')!.state === 'connected', 'far connected again', scaled(60_000));
  // The bridge started the far serve again: a new process holds its lock.
  expect(new LockFile(join(far.env.PANEFLOW_HOME!, 'serve', 'owner.lock')).holder()!.pid).not.toBe(holder.pid);
  const back = await until(() => rows(near.run(['ps']).stdout).find((r) => r[0] === 'far'), 'the far row live again');
  expect(back[1]).toBe(String(farAgent));
}, scaled(120_000));

test('machine remove: out of config.json and every list; the MACHINE column goes with its rows; an unknown name exits 3', async () => {
  // Before it goes: close reaches the far pane too, and leaves this machine's of the same id.
  const closed = near.run(['close', 'worker', '--machine', 'far', '--force']);
  expect(closed.code).toBe(0);
  expect((await far.rpc('surface.list', { scope: 'all' })).surfaces).toEqual([]);
  expect((await near.rpc('surface.status', { surface_id: nearAgent })).lifecycle).toBe('live');
  for (const name of ['far', 'locked']) {
    const removed = near.run(['machine', 'remove', name]);
    expect(removed.stderr).toBe('');
    expect(removed.stdout).toBe(`removed ${name}\n`);
  }
  expect(config(near).machines).toEqual({});
  expect(machines()).toEqual([]);
  expect(near.run(['ps']).stdout).not.toMatch(/MACHINE|far/);
  expect(near.run(['ps', '--json']).json<{ agents: StatusObject[] }>().agents.map((a) => a.machine)).toEqual([null]);
  const again = near.run(['machine', 'remove', 'far']);
  expect(again.code).toBe(3);
  expect(again.stderr).toMatch(/no machine named 'far'/);
});

describe('usage errors: refused before any request (no instance runs here, and none is started)', () => {
  let idle: Home;
  beforeAll(() => {
    idle = makeHome();
  });
  afterAll(() => idle.cleanup());

  test.each([
    [['machine', 'add', 'has space', 'host'], /<name> needs a machine's name/],
    [['machine', 'add', '-x', 'host'], /<name> needs a machine's name/],
    [['machine', 'add', '@far', 'host'], /<name> needs a machine's name/],
    [['machine', 'add', 'a'.repeat(33), 'host'], /<name> needs a machine's name/],
    [['machine', 'add', 'ok', '-oProxyCommand=touch /tmp/owned'], /<destination> .*not starting with '-'/],
    [['machine', 'add', 'ok', 'two words'], /<destination>/],
    [['machine', 'add', 'ok', 'host', '--ssh-option', 'ProxyCommand=nc far 22'], /'ProxyCommand' runs commands on this machine/],
    [['machine', 'add', 'ok', 'host', '--ssh-option', 'localcommand=id'], /runs commands on this machine/],
    [['machine', 'add', 'ok', 'host', '--ssh-option', '-oPort=22'], /NAME=VALUE/],
    [['machine', 'add', 'ok'], /needs <destination>/],
    [['machine', 'remove', '../etc'], /<name> needs a machine's name/],
    [['read', 'lead', '--machine', 'no/such'], /--machine needs a machine's name/],
    [['ps', '--machine', ''], /--machine needs a machine's name/],
    [['send', 'x', 'hi', '--machine', '-far'], /--machine needs a machine's name/],
    [['ls', '--machine', 'a b'], /--machine needs a machine's name/],
    [['read', '@far:lead', '--machine', 'far'], /name the machine once/],
  ])('%j', (args, message) => {
    const run = idle.run(args as string[]);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(/instance/);
    expect(existsSync(join(idle.dir, 'config.json'))).toBe(false);
  });

  test('a name from the command line is shown cleaned in the error', () => {
    const run = idle.run(['machine', 'add', '\x1b[31mred', 'host']);
    expect(run.code).toBe(2);
    expect(run.stderr).not.toMatch(RAW_CONTROL);
    expect(run.stderr).toContain('^[[31mred');
  });
});
