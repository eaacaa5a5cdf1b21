import { SHELL_NAMES } from '@paneflow/protocol/shells';
import { normalizeName, type Catalog, type Runtime } from './catalog';

export type MatchStrength = 'direct' | 'wrapper';

export interface Match {
  runtime: Runtime;
  strength: MatchStrength;
}

export interface ProcessFacts {
  /** The full command line. */
  argv: readonly string[];
  /** The executable's own name (`/proc/<pid>/comm`, or the basename of `/proc/<pid>/exe`). */
  exe?: string;
  /** The pane's title: the `fx` agent is only the `fx` agent while its title says so. */
  title?: string;
}

const NODE = new Set(['node', 'nodejs', 'bun']);
const NODE_NEVER = new Set(['-e', '--eval', '-p', '--print']);
const NODE_VALUED = new Set(['-r', '--require', '--loader', '--experimental-loader', '--import', '-C', '--conditions', '--env-file', '--inspect-port', '--title', '--input-type']);
const PYTHON = /^python(\d+(\.\d+)?)?$/;
const PYTHON_NEVER = new Set(['-c', '-m']);
const PYTHON_VALUED = new Set(['-W', '-X', '--check-hash-based-pycs']);
const ENV_VALUED = new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']);
const NPX = new Set(['npx', 'bunx', 'pnpx']);
const NPX_VALUED = new Set(['-p', '--package', '-c', '--call', '--registry', '--cache']);

/**
 * Which agent a process is (REFERENCE.md §6.3), or null. A direct match is the executable or
 * argv[0] by name; a wrapper match sees through node/bun, python, `sh -c`, env/command and
 * npx/bunx to the program they run. Evaluated code (`node -e`, `python -c`, `-m`) never matches:
 * a wrong match may mislabel which agent runs, but must never invent one.
 */
export function matchProcess(facts: ProcessFacts, catalog: Catalog): Match | null {
  const candidates = [facts.argv[0], facts.exe].filter((n): n is string => !!n).map(normalizeName);
  for (const name of candidates) {
    const runtime = byName(catalog, name, facts.title);
    if (runtime) return { runtime, strength: 'direct' };
  }
  const wrapped = throughWrapper(facts.argv, catalog, facts.title, 0);
  return wrapped ? { runtime: wrapped, strength: 'wrapper' } : null;
}

function byName(catalog: Catalog, name: string, title: string | undefined): Runtime | null {
  for (const runtime of catalog.runtimes) {
    if (!runtime.names.has(name)) continue;
    const prefix = runtime.detection.title_prefix;
    if (prefix !== undefined && !(title ?? '').startsWith(prefix)) return null;
    return runtime;
  }
  return null;
}

function byScript(catalog: Catalog, script: string, title: string | undefined): Runtime | null {
  const named = byName(catalog, normalizeName(script), title);
  if (named) return named;
  const path = script.replaceAll('\\', '/');
  return catalog.runtimes.find((r) => r.detection.script_path_signatures.some((sig) => path.includes(sig))) ?? null;
}

/** The first argument that is not an option, skipping the values of options that take one. */
function firstOperand(args: readonly string[], valued: ReadonlySet<string>, never: ReadonlySet<string>): string | null | 'never' {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const flag = arg.split('=')[0];
    if (never.has(flag)) return 'never';
    if (arg === '--') return args[i + 1] ?? null;
    if (!arg.startsWith('-') || arg === '-') return arg;
    if (valued.has(arg)) i++;
  }
  return null;
}

/** Splits a `sh -c` command into words, honouring simple quotes. */
function words(command: string): string[] {
  return [...command.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

function throughWrapper(argv: readonly string[], catalog: Catalog, title: string | undefined, depth: number): Runtime | null {
  if (argv.length < 2 || depth > 4) return null;
  const program = normalizeName(argv[0]);
  const args = argv.slice(1);
  if (NODE.has(program)) {
    const script = firstOperand(args, NODE_VALUED, NODE_NEVER);
    if (script === 'never' || script === null) return null;
    if (program === 'bun' && (script === 'run' || script === 'x')) return throughWrapper(['bun', ...args.slice(args.indexOf(script) + 1)], catalog, title, depth + 1);
    return byScript(catalog, script, title);
  }
  if (PYTHON.test(program)) {
    const script = firstOperand(args, PYTHON_VALUED, PYTHON_NEVER);
    return script === 'never' || script === null ? null : byScript(catalog, script, title);
  }
  if (SHELL_NAMES.has(program)) {
    // `-c CMD`, or `-lc CMD`: a cluster of single-letter flags that holds c.
    const flag = args.findIndex((a) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(a));
    if (flag === -1 || args[flag + 1] === undefined) return null;
    return matchWords(words(args[flag + 1]), catalog, title, depth);
  }
  if (program === 'env' || program === 'command' || program === 'exec') {
    let i = 0;
    while (i < args.length && (args[i].startsWith('-') || (program === 'env' && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i])))) {
      if (ENV_VALUED.has(args[i])) i++;
      i++;
    }
    return matchWords(args.slice(i), catalog, title, depth);
  }
  if (NPX.has(program)) {
    const packageFlag = args.findIndex((a) => a === '-p' || a === '--package');
    const spec = packageFlag !== -1 ? args[packageFlag + 1] : firstOperand(args, NPX_VALUED, new Set());
    if (!spec || spec === 'never') return null;
    const name = spec.replace(/(?<=.)@[^/]*$/, ''); // drop a version: @openai/codex@latest → @openai/codex
    return byScript(catalog, name, title);
  }
  return null;
}

function matchWords(argv: string[], catalog: Catalog, title: string | undefined, depth: number): Runtime | null {
  if (argv.length === 0) return null;
  return byName(catalog, normalizeName(argv[0]), title) ?? throughWrapper(argv, catalog, title, depth + 1);
}
