// An acknowledged change is on stable storage, not only in the page cache: serve's system calls,
// traced by strace, show the file's new state written to a temp file, that file fsync'd, renamed
// over the old one and the directory fsync'd, all before the answer (or event) that acknowledges it.
import { scaled, until } from '@paneflow/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { SERVE_BIN, serveCli, startInstance, type Instance } from './helpers';

let pf: Instance;
let strace: ChildProcess | null = null;
beforeEach(async () => {
  pf = await startInstance({ scripting: true });
});
afterEach(async () => {
  if (strace && strace.exitCode === null && strace.signalCode === null) strace.kill('SIGKILL');
  strace = null;
  await pf.cleanup();
});

const SYSCALLS = 'openat,write,writev,pwrite64,fsync,fdatasync,close,rename,renameat,renameat2';

/**
 * Serve started again under strace, as strace's child (tracing it needs no privilege then), every
 * thread and what it forks traced, `-y` naming each descriptor's file; returns the function that
 * stops serve (strace ends with it) and gives the trace's lines.
 */
async function serveUnderStrace(): Promise<() => Promise<string[]>> {
  expect(serveCli(pf.env, 'stop', '--drain-ms', '100').code).toBe(0);
  const file = join(pf.dir, 'serve.trace');
  const args = ['-f', '-y', '-s', '65536', '-e', `trace=${SYSCALLS}`, '-o', file, process.execPath, SERVE_BIN, '--home', pf.env.PANEFLOW_HOME!, 'run'];
  const tracer = spawn('strace', args, { env: pf.env, stdio: ['ignore', 'ignore', 'pipe'] });
  strace = tracer;
  let stderr = '';
  tracer.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve, reject) => {
    tracer.once('error', (error) => reject(new Error(`strace could not run (apt-get install strace): ${error.message}`)));
    tracer.once('exit', () => resolve());
  });
  const status = await Promise.race([
    until(() => pf.call('serve.status', {}).catch(() => null), 'serve answers under strace'),
    exited.then(() => Promise.reject(new Error(`strace ended: ${stderr}`))),
  ]);
  pf.servePid = status.pid;
  return async () => {
    expect(serveCli(pf.env, 'stop', '--drain-ms', '100').code).toBe(0);
    await exited;
    return readFileSync(file, 'utf8').split('\n');
  };
}

interface Call {
  at: number;
  name: string;
  /** The descriptor's file (`-y`), when the first argument is one. */
  fdPath: string | null;
  args: string;
}

function calls(lines: string[]): Call[] {
  return lines.flatMap((line, at) => {
    const call = /^\d+\s+(\w+)\((.*)$/.exec(line);
    if (!call) return [];
    return [{ at, name: call[1], fdPath: /^\d+<([^>]*)>/.exec(call[2])?.[1] ?? null, args: call[2] }];
  });
}

const isSync = (call: Call) => call.name === 'fsync' || call.name === 'fdatasync';
const isWrite = (call: Call) => ['write', 'writev', 'pwrite64'].includes(call.name);

/**
 * The steps of the atomic write that put `holds` in `target`, and the acknowledgement, in the
 * order the trace has them: when each is there and in order, this is the list of their names.
 */
function stepsOf(trace: Call[], target: string, holds: string, acknowledged: (call: Call) => boolean): string[] {
  const ack = trace.find((call) => isWrite(call) && !call.fdPath?.startsWith('/') && acknowledged(call));
  const renames = trace.filter((call) => call.name.startsWith('rename') && [...call.args.matchAll(/"([^"]*)"/g)][1]?.[1] === target && (!ack || call.at < ack.at));
  // The last save before the acknowledgement whose temp file got `holds`.
  let found: Record<string, Call | undefined> = { [`a save of ${target} holding ${holds}`]: undefined };
  for (const rename of renames.reverse()) {
    const temp = /"([^"]*)"/.exec(rename.args)![1];
    const write = trace.find((call) => isWrite(call) && call.fdPath === temp && call.args.includes(holds));
    if (!write) continue;
    found = {
      'write of the temp file': write,
      'fsync of the temp file': trace.find((call) => isSync(call) && call.fdPath === temp && call.at > write.at),
      rename,
      'fsync of the directory': trace.find((call) => isSync(call) && call.fdPath === join(target, '..') && call.at > rename.at),
    };
    break;
  }
  found.acknowledgement = ack;
  return Object.entries(found)
    .map(([name, call]) => ({ name, at: call?.at ?? Infinity }))
    .sort((a, b) => a.at - b.at)
    .map(({ name, at }) => (at === Infinity ? `${name}: none` : name));
}

const ORDER = ['write of the temp file', 'fsync of the temp file', 'rename', 'fsync of the directory', 'acknowledgement'];

test('an answered rename is on stable storage before the answer: write, fsync of the temp file, rename, fsync of the directory (strace)', async () => {
  const detach = await serveUnderStrace();
  const { surface_id } = await pf.call('workspace.create', { cwd: pf.dir });
  const name = `durable-${process.pid}`;
  expect(await pf.call('surface.rename', { surface_id, name })).toEqual({ surface_id, name });
  const trace = calls(await detach());

  const target = join(realpathSync(pf.env.PANEFLOW_HOME!), 'serve/workspaces.json');
  const answer = (call: Call) => call.args.includes('\\"result\\"') && call.args.includes(`\\"name\\":\\"${name}\\"`);
  expect(stepsOf(trace, target, name, answer)).toEqual(ORDER);
}, scaled(60_000));

test("a turn's record is on stable storage before turn_ended goes out: the same steps, on libuv's thread pool (strace)", async () => {
  const detach = await serveUnderStrace();
  const events = await pf.subscribe();
  const up = await pf.call('workspace.up', { name: 'durable', layout: 'even_h', panes: [{ name: 'durable', cwd: pf.dir, command: 'claude', focus: true, env: {} }] });
  const { surface_id, session } = up.surfaces[0];
  await events.next((f) => f.type === 'status_changed' && f.surface_id === surface_id && f.reason === 'declared');
  await pf.call('surface.send_text', { surface_id, text: 'a short task', submit: true });
  await events.next((f) => f.type === 'turn_ended' && f.surface_id === surface_id);
  const trace = calls(await detach());

  const target = join(realpathSync(pf.env.PANEFLOW_HOME!), 'serve/turns', session, '1.json');
  const turnEnded = (call: Call) => call.args.includes('\\"type\\":\\"turn_ended\\"');
  // The ended record (`"ended": "finished"`), not the running one (`"ended": null`).
  expect(stepsOf(trace, target, '\\"ended\\": \\"', turnEnded)).toEqual(ORDER);
}, scaled(60_000));
