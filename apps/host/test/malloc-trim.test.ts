import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './helpers';

const MODULE = join(ROOT, 'apps/host/dist/paneflow-malloc-trim.node');

/**
 * A process that fragments glibc's heap (80 MB of 2 KB buffers, one in fifty kept), lets V8 free
 * the rest, then trims: its resident sizes at each step, in MiB.
 */
const FRAGMENT_AND_TRIM = `
const trim = require(${JSON.stringify(MODULE)});
const rss = () => (Number(require('node:fs').readFileSync('/proc/self/statm', 'utf8').split(' ')[1]) * 4096) / 1048576;
const start = rss();
let all = [];
const kept = [];
for (let i = 0; i < 40000; i++) {
  const buffer = Buffer.alloc(2000);
  all.push(buffer);
  if (i % 50 === 0) kept.push(buffer);
}
const loaded = rss();
const keptBytes = process.memoryUsage().arrayBuffers / 49;
all = null;
gc();
// V8 frees collected buffers on a background thread after the collection; Node's allocator counts what is still held.
const freed = () => process.memoryUsage().arrayBuffers < 2 * keptBytes + (1 << 20);
const wait = () => (freed() ? done() : setImmediate(wait));
const done = () => {
  const untrimmed = rss();
  const released = trim();
  console.log(JSON.stringify({ start, loaded, untrimmed, released, trimmed: rss(), kept: kept.length }));
};
wait();
`;

test('the malloc_trim module gives back the free pages in the middle of a fragmented heap, which glibc keeps', () => {
  if (!existsSync(MODULE)) throw new Error(`${MODULE} is not built: the host's build compiles it with cc (npx nx run host:build)`);
  const child = spawnSync(process.execPath, ['--expose-gc', '-e', FRAGMENT_AND_TRIM], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  const { start, loaded, untrimmed, released, trimmed } = JSON.parse(child.stdout) as Record<string, number | boolean> & { start: number; loaded: number; untrimmed: number; trimmed: number };
  const grown = loaded - start;
  expect(grown).toBeGreaterThan(60);
  // Freed but not given back: glibc returns only the top of its heap, and a kept buffer sits near it.
  expect(untrimmed - start).toBeGreaterThan(0.7 * grown);
  expect(released).toBe(true);
  expect(trimmed - start).toBeLessThan(0.3 * grown);
});
