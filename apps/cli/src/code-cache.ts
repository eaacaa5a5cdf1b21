import { closeSync, fstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { BUILD_ID } from '@paneflow/instance/build-id';

// A verb's start is mostly Node's own (README: start-up budget); of what is ours, compiling the
// entry's and its family's bundles was the largest part, about 3 ms of each call. V8 can hand back
// the code it compiled: kept per user, per build and per Node, the next call skips the compile.

/** `$XDG_CACHE_HOME/paneflow/code`, else `~/.cache/paneflow/code`: the user's own, never shared. */
function cacheDir(): string {
  const { XDG_CACHE_HOME, HOME } = process.env;
  const base = XDG_CACHE_HOME?.startsWith('/') ? XDG_CACHE_HOME : join(HOME || homedir(), '.cache');
  return join(base, 'paneflow', 'code');
}

/** The name a bundle's code is kept under: the bundle, its build (a hash of the bundles) and the Node that compiled it. */
const keptName = (bundle: string) => `${bundle}-${BUILD_ID}-${process.version}-${process.arch}.v8`;

/** A kept compile, if there is one this user alone could have written; anything else is no cache. */
function readKept(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const ownedAlone = stat.isFile() && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
    return ownedAlone ? readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Writes the compile at exit, when it also holds the functions this call ran; whole or not at all, and older builds' copies go. */
function keepAtExit(script: Script, dir: string, bundle: string): void {
  process.once('exit', () => {
    const name = keptName(bundle);
    const temp = join(dir, `.${name}.${process.pid}`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(temp, script.createCachedData(), { mode: 0o600 });
      renameSync(temp, join(dir, name));
      for (const other of readdirSync(dir)) if (other !== name && other.startsWith(`${bundle}-`) && other.endsWith('.v8')) rmSync(join(dir, other), { force: true });
    } catch {
      // No cache is only slower; a write cut short (a full disk) leaves nothing behind.
      rmSync(temp, { force: true });
    }
  });
}

/**
 * Runs a CommonJS bundle as `require` would (once; in `require.cache`), compiled from the code V8
 * kept the last time this build ran, or compiled now and kept at exit. Without a cache directory
 * it can write, it is `require` with a compile each time.
 */
export function requireBundle(file: string): unknown {
  const loaded = require.cache[file];
  if (loaded) return loaded.exports;
  const dir = cacheDir();
  const bundle = basename(file, '.cjs');
  const kept = readKept(join(dir, keptName(bundle)));
  // The shebang line is left blank, so that line numbers in stacks stay the file's.
  const source = readFileSync(file, 'utf8').replace(/^#!.*/, '');
  // The bundles hold no `import()` (tools/build-app.mjs makes each a `require`): a vm.Script has none without a flag.
  const script = new Script(Module.wrap(source), { filename: file, cachedData: kept });
  if (!kept || script.cachedDataRejected) keepAtExit(script, dir, bundle);
  const module = new Module(file);
  module.filename = file;
  require.cache[file] = module;
  const run = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  module.loaded = true;
  return module.exports;
}
