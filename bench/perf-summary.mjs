// Where CPU went, from a `perf record -g` of node processes run with --perf-basic-prof (as
// BENCH_PERF=FILE makes bench/attach.mjs record its 8-agent window): for each process, its share
// of the samples and the JavaScript functions under which they were taken (inclusive: a sample
// counts once for every function on its stack), each named with the source file its bundle built
// it from. perf samples only time on a CPU, so a process waiting (on the disk, on epoll) costs
// nothing here, unlike node's own --cpu-prof, which samples the wall clock.
// Run: node bench/perf-summary.mjs FILE [TOP=25]
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

const [file, top = '25'] = process.argv.slice(2);
if (!file) {
  console.error('usage: node bench/perf-summary.mjs PERF_DATA [TOP]');
  process.exit(2);
}
const script = spawnSync('perf', ['script', '-i', file, '-F', 'comm,pid,tid,ip,sym,dso'], { encoding: 'utf8', maxBuffer: 1 << 30 });
if (script.status !== 0) {
  console.error(script.stderr);
  process.exit(1);
}

/** The source file an esbuild bundle's line came from: the nearest `// path` comment above it. */
const bundles = new Map();
function sourceOf(bundle, line) {
  if (!bundles.has(bundle)) {
    const marks = [];
    if (existsSync(bundle)) readFileSync(bundle, 'utf8').split('\n').forEach((text, i) => /^\/\/ (apps|libs|node_modules)\//.test(text) && marks.push([i + 1, text.slice(3)]));
    bundles.set(bundle, marks);
  }
  const marks = bundles.get(bundle);
  let found = null;
  for (let lo = 0, hi = marks.length - 1; lo <= hi; ) {
    const mid = (lo + hi) >> 1;
    if (marks[mid][0] <= line) [found, lo] = [marks[mid][1], mid + 1];
    else hi = mid - 1;
  }
  return found;
}

/** A JavaScript frame (`JS:^name /path/bundle.cjs:line:col`) as `name (source file)`, else null. */
function jsFrame(symbol) {
  const match = /^JS:\S?(\S*) (\/\S+?):(\d+):\d+/.exec(symbol);
  if (!match) return null;
  const [, name, path, line] = match;
  const source = path.endsWith('.cjs') ? sourceOf(path, Number(line)) : null;
  return `${name || '(anonymous)'}  ${source ?? path.replace(/^.*node_modules\//, '')}${source ? '' : `:${line}`}`;
}

const processes = new Map();
for (const block of script.stdout.split('\n\n')) {
  const [head, ...frames] = block.split('\n').filter(Boolean);
  const match = head && /^\s*(\S+)\s+(\d+)\//.exec(head);
  if (!match) continue;
  const pid = match[2];
  if (!processes.has(pid)) processes.set(pid, { samples: 0, bundles: new Map(), inclusive: new Map() });
  const entry = processes.get(pid);
  entry.samples++;
  const seen = new Set();
  for (const frame of frames) {
    const symbol = frame.trim().replace(/^[0-9a-f]+ /, '');
    const bundle = /paneflow[\w-]*\.cjs/.exec(symbol)?.[0];
    if (bundle) entry.bundles.set(bundle, (entry.bundles.get(bundle) ?? 0) + 1);
    const js = jsFrame(symbol);
    if (js && !seen.has(js)) {
      seen.add(js);
      entry.inclusive.set(js, (entry.inclusive.get(js) ?? 0) + 1);
    }
  }
}

const total = [...processes.values()].reduce((sum, p) => sum + p.samples, 0);
for (const [pid, { samples, bundles, inclusive }] of [...processes].sort((a, b) => b[1].samples - a[1].samples)) {
  // A process is named by its main bundle; a worker thread's (the host's terminals) shares its pid.
  const [name] = [...bundles].sort((a, b) => a[0].includes('-terminals') - b[0].includes('-terminals') || b[1] - a[1])[0] ?? [];
  if (!name) continue;
  console.log(`\n${name} (pid ${pid}): ${samples} samples, ${((100 * samples) / total).toFixed(1)} % of all; under each function (inclusive):`);
  for (const [fn, count] of [...inclusive].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
    if (fn.includes('node:internal') || fn.includes('node:events')) continue;
    console.log(`  ${((100 * count) / samples).toFixed(1).padStart(5)} %  ${fn}`);
  }
}
