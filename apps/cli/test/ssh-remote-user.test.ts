// A machine link's far end for real: OpenSSH's client and a real sshd on 127.0.0.1, logging in as
// a second unix user whose own Paneflow the bridge starts (libs/testing: startSshd, ensureUser).
import { ensureUser, loginSocket, makeHome, scaled, startSshd, until, type Home, type Sshd, type UnixUser } from '@paneflow/testing';
import { spawn } from 'node:child_process';
import { lstatSync } from 'node:fs';

jest.setTimeout(scaled(90_000));

const user = ensureUser();
const skip = 'skip' in user ? user.skip : null;

let home: Home;
let sshd: Sshd;
beforeAll(async () => {
  home = makeHome();
  if (!skip) sshd = await startSshd(home.dir, { users: [user as UnixUser] });
});
afterAll(() => {
  sshd?.stop();
  home.cleanup();
});

(skip ? test.skip : test)(`ssh far-user@host paneflow rpc --stdio: hello, then system.identify, from the far user's own instance${skip ? ` (skipped: ${skip})` : ''}`, async () => {
  const far = user as UnixUser;
  const [program, ...args] = sshd.ssh(far.name, 'paneflow rpc --stdio');
  const child = spawn(program, args, { env: home.env, stdio: ['pipe', 'pipe', 'pipe'] });
  const lines: Array<Record<string, unknown>> = [];
  let stderr = '';
  let buffer = '';
  child.stdout.on('data', (chunk) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  child.stderr.on('data', (chunk) => (stderr += chunk));
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve((exitCode = code))));
  const seen = (what: string, test: (line: Record<string, unknown>) => boolean) =>
    until(
      () => {
        const line = lines.find(test);
        if (!line && exitCode !== undefined) throw new Error(`ssh exited (${exitCode}) before ${what}; it wrote ${JSON.stringify(lines)}, on stderr ${stderr}`);
        return line;
      },
      `${what}; got ${JSON.stringify(lines)}, ssh's stderr ${stderr}, sshd's ${sshd.log}`,
      scaled(40_000),
    );

  const hello = await seen('the hello', (l) => l.method === 'rpc.hello');
  expect(lines[0]).toBe(hello);
  expect(hello.params).toMatchObject({ name: 'paneflow-rpc', protocol: 1 });
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.identify', params: {} }) + '\n');
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'serve.status', params: {} }) + '\n');
  const identify = await seen('system.identify answered', (l) => l.id === 1);
  expect(identify.result).toMatchObject({ name: 'paneflow-serve', protocol: 1 });
  const status = (await seen('serve.status answered', (l) => l.id === 2)).result as { home: string; pid: number };

  // The far instance is the far user's own: its home and socket, its processes.
  const login = sshd.login(far.name);
  expect(status.home).toBe(login.env.PANEFLOW_HOME);
  expect(lstatSync(loginSocket(login)).uid).toBe(far.uid);
  expect(lstatSync(`/proc/${status.pid}`).uid).toBe(far.uid);
  expect(login.processes().some((p) => p.pid === status.pid)).toBe(true);

  child.stdin.end();
  expect(await exited).toBe(0);
});
