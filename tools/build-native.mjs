// Compiles a one-file Node-API module (C) into a `.node` file: `build-native.mjs <source.c> <out.node>`.
// Node's headers come with Node itself (<prefix>/include/node, beside bin/: the official builds and
// Debian's nodejs alike); the compiler is the one node-pty's install needs anyway. A module that
// cannot be built here (no compiler, no headers, not glibc) is left out with one line saying why:
// what loads it goes on without it.
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { writeBuiltFrom } from './bundle-inputs.mjs';

const [source, outfile] = process.argv.slice(2).map((path) => resolve(path));
if (!source || !outfile) throw new Error('usage: build-native.mjs <source.c> <out.node>');
const headers = join(dirname(dirname(process.execPath)), 'include', 'node');
const compiler = process.env.CC || 'cc';
const partial = `${outfile}.${process.pid}.tmp`;
rmSync(outfile, { force: true });
// A module left out has no record: the tests then run without it, as its loader does.
rmSync(`${outfile}.inputs.json`, { force: true });
try {
  if (!existsSync(join(headers, 'node_api.h'))) throw new Error(`no Node headers at ${headers}`);
  execFileSync(compiler, ['-shared', '-fPIC', '-O2', '-Wall', `-I${headers}`, '-o', partial, source], { stdio: ['ignore', 'ignore', 'pipe'] });
  renameSync(partial, outfile);
  writeBuiltFrom(outfile, [source]);
} catch (error) {
  rmSync(partial, { force: true });
  const reason = error.stderr?.toString().trim() || error.message;
  console.warn(`build-native: ${outfile} not built (${reason.split('\n')[0]}); what loads it goes on without it`);
}
