/** What a flag takes: nothing, a string, a whole number, or a string each time it repeats. */
export type FlagKind = 'boolean' | 'string' | 'integer' | 'repeat';

export interface VerbSpec {
  /** One word, or two for a verb with a subcommand (`host start`). */
  name: string;
  aliases?: string[];
  summary: string;
  /** Positional arguments in order; `rest` takes all that remain. */
  args: Array<{ name: string; optional?: boolean; rest?: boolean }>;
  flags: Record<string, { kind: FlagKind; value?: string; help: string }>;
  example: string;
  /** More lines for --help. */
  details?: string;
}

export interface Parsed {
  args: Record<string, string | string[] | undefined>;
  flags: Record<string, string | number | boolean | string[] | undefined>;
}

/** A usage error: exit 2, usage on stderr, nothing started. */
export class UsageError extends Error {}

export function parseArgs(spec: VerbSpec, argv: string[]): Parsed {
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
    const flag = spec.flags[name];
    if (!flag) throw new UsageError(`unknown flag '--${name}' for '${spec.name}'`);
    if (flag.kind === 'boolean') {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      flags[name] = true;
      continue;
    }
    const value = eq !== -1 ? token.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs ${flag.value ?? 'a value'}`);
    if (flag.kind === 'integer') {
      if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} needs a whole number, not '${value}'`);
      flags[name] = Number(value);
    } else if (flag.kind === 'repeat') {
      flags[name] = [...((flags[name] as string[] | undefined) ?? []), value];
    } else flags[name] = value;
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
  if (at < positional.length) throw new UsageError(`'${spec.name}' takes no argument '${positional[at]}'`);
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
