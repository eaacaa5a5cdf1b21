import { BUILD_ID } from '@paneflow/instance/build-id';
import { desktopLaunch } from '@paneflow/instance/desktop';
import { spawn } from 'node:child_process';
import { helpText, parseArgs, UsageError, usageLine } from './args';
import { headless } from './headless';
import { CliError } from './instance';
import { VERBS, type Verb } from './verbs';

const GROUPS = new Set(['host', 'serve', 'flow', 'hooks', 'mcp']);

function overview(): string {
  const width = Math.max(...VERBS.map((v) => v.name.length));
  return [
    'usage: paneflow [<verb> [args…]]',
    '',
    'Paneflow: a terminal workspace for AI coding agents. With no verb it opens the desktop app, or',
    'where none can run, starts Paneflow headless with a demo and shows the live agent table.',
    '',
    'verbs:',
    ...VERBS.map((v) => `  ${v.name.padEnd(width)}  ${v.summary.split('. ')[0].replace(/\.$/, '')}`),
    '',
    "'paneflow <verb> --help' shows a verb's flags and an example. JSON goes to stdout, messages",
    'to stderr. Exit codes: 0 ok, 1 runtime error, 2 usage, 3 target not found or ambiguous, 4 timeout.',
  ].join('\n');
}

function find(argv: string[]): { verb: Verb; rest: string[] } | null {
  const [first, second] = argv;
  const name = GROUPS.has(first) && second && !second.startsWith('-') ? `${first} ${second}` : first;
  const verb = VERBS.find((v) => v.name === name || v.aliases?.includes(name));
  return verb ? { verb, rest: argv.slice(name.split(' ').length) } : null;
}

/** `paneflow` alone: the desktop app where it can open, detached; else headless, saying why. */
function openDesktop(): Promise<number> {
  const launch = desktopLaunch();
  if ('unavailable' in launch) return headless(launch.unavailable);
  const [binary, ...args] = launch.command;
  spawn(binary, args, { detached: true, stdio: 'ignore' }).unref();
  return Promise.resolve(0);
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) return openDesktop();
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(overview() + '\n');
    return 0;
  }
  if (argv[0] === '--version') {
    process.stdout.write(`paneflow ${BUILD_ID}\n`);
    return 0;
  }
  const found = find(argv);
  if (!found) {
    const group = GROUPS.has(argv[0]) ? VERBS.filter((v) => v.name.startsWith(`${argv[0]} `)) : [];
    const message = group.length
      ? `'${argv[0]}' needs one of: ${group.map((v) => v.name.split(' ')[1]).join(', ')}`
      : `unknown verb '${argv[0]}'; see \`paneflow --help\``;
    throw new UsageError(message);
  }
  const { verb, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(helpText(verb) + '\n');
    return 0;
  }
  let parsed;
  try {
    parsed = parseArgs(verb, rest);
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${error.message}\nusage: ${usageLine(verb)}`);
    throw error;
  }
  return verb.run(parsed);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof UsageError) {
      process.stderr.write(`paneflow: ${error.message}\n`);
      process.exit(2);
    }
    const failure = error instanceof CliError ? error : new CliError(error instanceof Error ? error.message : String(error), 1);
    process.stderr.write(`paneflow: ${failure.message}\n`);
    process.exit(failure.exitCode);
  },
);
