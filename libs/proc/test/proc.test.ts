import { spawn, spawnSync } from 'node:child_process';
import { isSameProcess, processStartTime, readProcStat } from '../src';
import { scaled } from '@paneflow/test-time';

test('a process is its pid and its kernel start time', () => {
  const started = processStartTime(process.pid);
  expect(started).toBeGreaterThan(0);
  expect(isSameProcess(process.pid, started!)).toBe(true);
  expect(isSameProcess(process.pid, started! + 1)).toBe(false);
  expect(processStartTime(2 ** 22 + 17)).toBeNull();
});

test('stat gives the command name, even one with spaces and parentheses, and the parent', () => {
  const copy = spawnSync('sh', ['-c', 'd=$(mktemp -d) && cp "$(command -v sleep)" "$d/my (odd) name" && echo "$d"'], { encoding: 'utf8' }).stdout.trim();
  const child = spawn(`${copy}/my (odd) name`, ['30']);
  try {
    const stat = readProcStat(child.pid!);
    expect(stat).toMatchObject({ comm: 'my (odd) name', ppid: process.pid });
    expect(stat!.startTime).toBe(processStartTime(child.pid!));
  } finally {
    child.kill('SIGKILL');
    spawnSync('rm', ['-rf', copy]);
  }
});

test('an exited process that nobody has reaped (a zombie) has no start time', async () => {
  // The shell execs into a sleep that never reaps; the background `sleep 2` exits after that, so
  // its zombie stays. (A child already gone before the exec, as `sleep 0` was on a loaded CI, the
  // shell itself may reap first.)
  const parent = spawn('sh', ['-c', 'sleep 2 & echo $!; exec sleep 30']);
  try {
    const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk) => resolve(String(chunk)))));
    // On a loaded machine the exit can take seconds to come.
    for (const deadline = Date.now() + scaled(20_000); readProcStat(zombie)?.state !== 'Z' && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(readProcStat(zombie)?.state).toBe('Z');
    expect(processStartTime(zombie)).toBeNull();
  } finally {
    parent.kill('SIGKILL');
  }
}, scaled(30_000));
