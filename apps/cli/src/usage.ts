import { displayText } from '@paneflow/view';
import { UsageError } from './errors';

/** What a flag takes: nothing, a string, a whole number, or a string each time it repeats. */
export type FlagKind = 'boolean' | 'string' | 'integer' | 'repeat';

/** Node fires a timer with a longer delay at once: a flag that becomes one is bounded by it. */
export const TIMER_MAX_MS = 2 ** 31 - 1;

/** The whole numbers a flag or argument takes: from `min` (default 0) to `max` (default the largest exact one). */
export interface Range {
  min?: number;
  max?: number;
}

/**
 * A whole number a person typed for `what` (`--lines`, `<index>`), checked against its range: a
 * word, a sign, a fraction or a number out of range (one too large to hold exactly, too) is a
 * usage error naming `what`, so nothing is sent that serve would clamp, round or take.
 */
export function wholeNumber(what: string, text: string, { min = 0, max = Number.MAX_SAFE_INTEGER }: Range = {}): number {
  if (!/^-?\d+$/.test(text)) throw new UsageError(`${what} needs a whole number, not '${displayText(text)}'`);
  const value = Number(text);
  if (value >= min && value <= max) return value;
  const range = max !== Number.MAX_SAFE_INTEGER ? `${min}-${max}` : value < min ? `at least ${min}` : `at most ${max}`;
  throw new UsageError(`${what} is ${range}, not ${text}`);
}

/** Which bundle carries a verb: a call loads only its own (apps/cli/README.md). */
export type Family = 'panes' | 'agents' | 'turns' | 'instance' | 'osc' | 'integrations' | 'specs' | 'attach' | 'web' | 'doctor' | 'check' | 'bridge';

export interface VerbSpec {
  /** One word, or two for a verb of a group (`host start`). */
  name: string;
  aliases?: string[];
  summary: string;
  /** Positional arguments in order; `rest` takes all that remain. */
  args: Array<{ name: string; optional?: boolean; rest?: boolean }>;
  /** `range` bounds an integer flag (REFERENCE.md's limits); without it, any whole number from 0. */
  flags: Record<string, { kind: FlagKind; value?: string; help: string; range?: Range }>;
  example: string;
  /** More lines for --help. */
  details?: string;
  family: Family;
}

export interface Parsed {
  args: Record<string, string | string[] | undefined>;
  flags: Record<string, string | number | boolean | string[] | undefined>;
}

/**
 * A verb's words after its name, read as REFERENCE.md §4.1 wants before anything starts: an
 * unknown flag, a flag without its value, a number that is not one, a missing or extra argument
 * is a usage error. citty carries the verb tree and routes to the verb; its own argument parsing
 * (node:util's, lenient) would let unknown flags through, keep only the last of a repeated flag
 * and read a text that starts with '-' as short options, so a verb reads its words here.
 */
export function checkArgs(spec: VerbSpec, argv: string[]): Parsed {
  const flags: Parsed['flags'] = {};
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i];
    if (token === '--') {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith('--') || token === '-') {
      positional.push(token);
      continue;
    }
    const eq = token.indexOf('=');
    const name = token.slice(2, eq === -1 ? undefined : eq);
    const flag = Object.hasOwn(spec.flags, name) ? spec.flags[name] : undefined;
    if (!flag) throw new UsageError(`unknown flag '--${displayText(name)}' for '${spec.name}'`);
    if (flag.kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = eq !== -1 ? token.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs ${flag.value ?? 'a value'}`);
    if (flag.kind === 'integer') flags[name] = wholeNumber(`--${name}`, value, flag.range);
    else if (flag.kind === 'repeat') flags[name] = [...((flags[name] as string[] | undefined) ?? []), value];
    else flags[name] = value;
  }
  const args: Parsed['args'] = {};
  let at = 0;
  for (const arg of spec.args) {
    if (arg.rest) {
      args[arg.name] = positional.slice(at);
      if (!arg.optional && positional.length <= at) throw new UsageError(`'${spec.name}' needs <${arg.name}>`);
      at = positional.length;
      break;
    }
    if (at < positional.length) args[arg.name] = positional[at++];
    else if (!arg.optional) throw new UsageError(`'${spec.name}' needs <${arg.name}>`);
  }
  if (at < positional.length) throw new UsageError(`'${spec.name}' takes no argument '${displayText(positional[at])}'`);
  return { args, flags };
}

export function usageLine(spec: VerbSpec): string {
  const args = spec.args.map((a) => (a.optional ? `[${a.name}${a.rest ? '…' : ''}]` : `<${a.name}>${a.rest ? '…' : ''}`));
  const flags = Object.entries(spec.flags).map(([name, f]) => `[--${name}${f.kind === 'boolean' ? '' : ` ${f.value ?? 'V'}`}]`);
  return ['paneflow', spec.name, ...args, ...flags].join(' ');
}

export function helpText(spec: VerbSpec): string {
  const lines = [`usage: ${usageLine(spec)}`, '', spec.summary];
  if (spec.aliases?.length) lines.push(`alias: ${spec.aliases.join(', ')}`);
  const flagLines = Object.entries(spec.flags).map(([name, f]) => {
    const left = `  --${name}${f.kind === 'boolean' ? '' : ` ${f.value ?? 'V'}`}${f.kind === 'repeat' ? ' (repeatable)' : ''}`;
    return `${left.padEnd(28)} ${f.help}`;
  });
  if (flagLines.length) lines.push('', 'flags:', ...flagLines);
  if (spec.details) lines.push('', spec.details);
  lines.push('', `example: ${spec.example}`);
  return lines.join('\n');
}

/** `paneflow --help`. */
export function overview(verbs: VerbSpec[]): string {
  const width = Math.max(...verbs.map((v) => v.name.length));
  return [
    'usage: paneflow [<verb> [args…]]',
    '',
    'Paneflow: a terminal workspace for AI coding agents. With no verb it opens the desktop app, or',
    'where none can run, starts Paneflow headless with a demo and shows the live agent table.',
    '',
    'verbs:',
    ...verbs.map((v) => `  ${v.name.padEnd(width)}  ${v.summary.split('. ')[0].replace(/\.$/, '')}`),
    '',
    "'paneflow <verb> --help' shows a verb's flags and an example. JSON goes to stdout, messages",
    'to stderr. Exit codes: 0 ok, 1 runtime error, 2 usage, 3 target not found or ambiguous, 4 timeout.',
  ].join('\n');
}
