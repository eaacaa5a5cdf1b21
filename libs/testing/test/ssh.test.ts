import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fakeSsh, homeDestination, makeHome, processesOfHome, scaled, until, type FakeSsh, type Home } from '../src';

// The fake `ssh` (src/ssh.ts) as a machine link meets it: options skipped, a destination's own
// environment, ssh's words and exit code for what fails, and a dropped link seen by the far side.
let near: Home;
let far: Home;
let ssh: FakeSsh;
beforeAll(() => {
  near = makeHome({ PANEFLOW_IPC_SCRIPTING: '1' });
  far = makeHome();
  ssh = fakeSsh(`${near.dir}/bin`, { far: homeDestination(far), dead: { behaviour: 'refuse' }, black: { behaviour: 'hang' } });
});
afterAll(() => {
  far.cleanup();
  near.cleanup();
});

const run = (args: string[]) => spawnSync('ssh', args, { env: near.env, encoding: 'utf8', timeout: scaled(20_000) });

test("options are skipped as OpenSSH's getopt reads them; the rest runs under sh -c in the destination's environment, none of the caller's Paneflow", () => {
  const result = run(['-o', 'BatchMode=yes', '-oServerAliveInterval=10', '-p22', '-T', '-i', '/no/key', '-q', '--', 'far', 'echo', '$PANEFLOW_HOME', '${PANEFLOW_IPC_SCRIPTING:-unset}', '&&', 'exit', '3']);
  expect(result).toMatchObject({ status: 3, stdout: `${far.env.PANEFLOW_HOME} unset\n`, stderr: '' });
  expect(ssh.calls().at(-1)).toMatchObject({ destination: 'far', command: 'echo $PANEFLOW_HOME ${PANEFLOW_IPC_SCRIPTING:-unset} && exit 3' });
  expect(ssh.calls().at(-1)!.options).toEqual([['o', 'BatchMode=yes'], ['o', 'ServerAliveInterval=10'], ['p', '22'], ['T', null], ['i', '/no/key'], ['q', null]]);
});

test("an unknown host, a refused port and a blackholed one fail as ssh does: its words, exit 255", () => {
  expect(run(['user@nowhere', 'true'])).toMatchObject({ status: 255, stdout: '', stderr: 'ssh: Could not resolve hostname nowhere: Name or service not known\n' });
  expect(run(['-p', '2222', 'dead', 'true'])).toMatchObject({ status: 255, stderr: 'ssh: connect to host dead port 2222: Connection refused\n' });
  const started = Date.now();
  expect(run(['-o', 'ConnectTimeout=1', 'black', 'true'])).toMatchObject({ status: 255, stderr: 'ssh: connect to host black port 22: Connection timed out\n' });
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
});

test('a destination changed between calls: the next call sees it', () => {
  ssh.set('later', { behaviour: 'refuse' });
  expect(run(['later', 'true']).status).toBe(255);
  ssh.remove('later');
  expect(run(['later', 'true']).stderr).toMatch(/Could not resolve hostname later/);
});

test("ssh far paneflow rpc --stdio reaches the far home's own instance; the fake ssh killed (a dropped link), the bridge there ends", async () => {
  // The link's stdin is a FIFO the test keeps open: only the fake ssh's own death can end the far side's.
  const fifo = join(near.dir, 'link-stdin');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const writer = openSync(fifo, 'r+');
  const reader = openSync(fifo, 'r');
  const link = spawn('ssh', ['-o', 'BatchMode=yes', 'far', 'paneflow', 'rpc', '--stdio'], { env: near.env, stdio: [reader, 'pipe', 'pipe'] });
  closeSync(reader);
  try {
    let out = '';
    link.stdout!.on('data', (chunk) => (out += chunk));
    await until(() => out.includes('\n'), 'the hello');
    expect(JSON.parse(out.split('\n')[0])).toMatchObject({ method: 'rpc.hello' });
    writeSync(writer, '{"jsonrpc":"2.0","id":1,"method":"serve.status","params":{}}\n');
    await until(() => out.split('\n').length > 2, 'the answer');
    expect(JSON.parse(out.split('\n')[1]).result.home).toBe(far.env.PANEFLOW_HOME);
    const bridge = () => processesOfHome(far.dir, far.env.PANEFLOW_HOME!).filter((p) => p.cmdline.endsWith('paneflow.cjs rpc --stdio'));
    expect(bridge()).toHaveLength(1);
    link.kill('SIGKILL');
    await until(() => bridge().length === 0, 'the far bridge gone with its link');
  } finally {
    closeSync(writer);
  }
});
