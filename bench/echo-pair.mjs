// Two builds of the attach client, keystroke → echo, keys taking turns between them: each client
// in a PTY of its own, attached to a workspace of its own with one `cat` pane, on the same host
// and serve. One run of `bench:attach` differs from the next by more than most changes to the echo
// path save (±0.2 ms at p50); keys taken in turn see the same machine.
// Run: node bench/echo-pair.mjs A B   (A and B: copies of apps/cli/dist of the two builds)
// Env: KEYS (400 each), GAP_MS (20) between keys.
import { join, resolve } from 'node:path';
import { alternatingEchoes, call, outerTerminal, percentile, startServe } from './lib.mjs';

const builds = process.argv.slice(2, 4).map((dir) => resolve(dir));
if (builds.length !== 2) {
  console.error('usage: node bench/echo-pair.mjs A B   (each a copy of apps/cli/dist)');
  process.exit(2);
}
const KEYS = Number(process.env.KEYS ?? 400);
const GAP_MS = Number(process.env.GAP_MS ?? 20);

const instance = startServe({ PANEFLOW_IPC_ORCHESTRATION: '1' });
const faces = {};
try {
  for (const [index, dir] of builds.entries()) {
    const name = `echo-${index}`;
    await call(instance.socket, 'workspace.up', { name, layout: 'even_h', panes: [{ name: `typing-${index}`, cwd: instance.dir, command: 'exec cat', focus: true, env: {} }] });
    faces[dir] = outerTerminal(process.execPath, [join(dir, 'paneflow.cjs'), 'attach', name], instance.env);
    await faces[dir].next(`typing-${index}`, 15_000);
  }
  await new Promise((done) => setTimeout(done, 1000));
  for (const [dir, ms] of Object.entries(await alternatingEchoes(faces, KEYS, GAP_MS))) {
    console.log(`${dir}: p50 ${percentile(ms, 50).toFixed(3)} ms, p90 ${percentile(ms, 90).toFixed(3)}, p99 ${percentile(ms, 99).toFixed(3)} (${ms.length} keys)`);
  }
} finally {
  for (const face of Object.values(faces)) face.term.kill();
  instance.stop();
}
