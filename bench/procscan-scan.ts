// The cost of one foreground scan of a pane whose foreground group holds 50 processes, uncached
// (a new group leader each time) and cached (the same leader). Built and run by bench/procscan.mjs.
import { ForegroundReader, runtimeCatalog, stopTree } from '@paneflow/procscan';
import * as pty from 'node-pty';

const catalog = runtimeCatalog();
const tree = `const { spawn } = require('child_process');
for (let i = 0; i < 49; i++) spawn('sleep', ['1000'], { stdio: 'ignore' });
setInterval(() => {}, 1000);`;
const shell = pty.spawn('bash', ['--norc', '--noprofile'], { cols: 80, rows: 24, env: process.env as Record<string, string> });

async function main() {
  shell.write(`node -e "${tree}"\r`);
  const reader = new ForegroundReader(catalog);
  // Wait until the foreground group has its 50 members.
  const { readProcStat, readdirSync } = { readProcStat: (await import('@paneflow/proc')).readProcStat, readdirSync: (await import('node:fs')).readdirSync };
  for (let tries = 0; ; tries++) {
    const group = readProcStat(shell.pid)!.tpgid;
    const members = readdirSync('/proc').filter((p) => /^\d+$/.test(p) && readProcStat(Number(p))?.pgrp === group).length;
    if (members >= 50) break;
    if (tries > 200) throw new Error(`only ${members} processes in the foreground group`);
    await new Promise((r) => setTimeout(r, 25));
  }
  const time = (runs: number, fresh: boolean) => {
    let r = reader;
    const start = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) {
      if (fresh) r = new ForegroundReader(catalog);
      r.scan(shell.pid);
    }
    return Number(process.hrtime.bigint() - start) / 1e3 / runs;
  };
  time(20, true);
  const uncached = time(200, true);
  const cached = time(2000, false);
  console.log(`one scan of a 50-process foreground group: ${uncached.toFixed(0)} µs uncached, ${cached.toFixed(1)} µs while the group leader is unchanged`);
  await stopTree(shell.pid, 5000, 0);
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
