// `paneflow`: the verb tree on citty; each verb's words checked by usage.ts, and its work done by
// the family bundle it belongs to, loaded only when it runs (README: start-up budget).
import { BUILD_ID } from '@paneflow/instance/build-id';
import { defineCommand, runCommand, type CommandDef } from 'citty';
import { GROUPS, VERBS } from './commands';
import { CliError, UsageError } from './errors';
import { loadFamily } from './families/load';
import { checkArgs, helpText, overview, usageLine, type Parsed, type VerbSpec } from './usage';


let exitCode = 0;

function verbCommand(spec: VerbSpec): CommandDef {
  return defineCommand({
    meta: { name: spec.name.split(' ').at(-1), description: spec.summary, alias: spec.aliases },
    async run({ rawArgs }) {
      if (rawArgs.includes('--help') || rawArgs.includes('-h')) {
        process.stdout.write(helpText(spec) + '\n');
        return;
      }
      let parsed: Parsed;
      try {
        parsed = checkArgs(spec, rawArgs);
      } catch (error) {
        if (error instanceof UsageError) throw new UsageError(`${error.message}\nusage: ${usageLine(spec)}`);
        throw error;
      }
      exitCode = await loadFamily(spec.family).run[spec.name](parsed);
    },
  });
}

const tree = defineCommand({
  meta: { name: 'paneflow', version: BUILD_ID },
  subCommands: {
    ...Object.fromEntries(VERBS.filter((v) => !v.name.includes(' ')).map((v) => [v.name, verbCommand(v)])),
    ...Object.fromEntries(
      GROUPS.map((group) => [
        group,
        defineCommand({
          meta: { name: group },
          subCommands: Object.fromEntries(VERBS.filter((v) => v.name.startsWith(`${group} `)).map((v) => [v.name.split(' ')[1], verbCommand(v)])),
        }),
      ]),
    ),
  },
});

/** citty's routing errors as the usage errors REFERENCE.md §4.1 words them. */
function routingError(error: Error & { code?: string }, argv: string[]): Error {
  if (error.name !== 'CLIError') return error;
  const group = GROUPS.includes(argv[0]) ? VERBS.filter((v) => v.name.startsWith(`${argv[0]} `)) : [];
  if (group.length > 0) return new UsageError(`'${argv[0]}' needs one of: ${group.map((v) => v.name.split(' ')[1]).join(', ')}`);
  if (error.code === 'E_UNKNOWN_COMMAND' || error.code === 'E_NO_COMMAND') return new UsageError(`unknown verb '${argv[0]}'; see \`paneflow --help\``);
  return new UsageError(error.message);
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0) return loadFamily('instance').run['']({ args: {}, flags: {} });
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    process.stdout.write(overview(VERBS) + '\n');
    return 0;
  }
  if (argv[0] === '--version') {
    process.stdout.write(`paneflow ${BUILD_ID}\n`);
    return 0;
  }
  if (argv[0].startsWith('-')) throw new UsageError(`unknown verb '${argv[0]}'; see \`paneflow --help\``);
  try {
    await runCommand(tree, { rawArgs: argv });
  } catch (error) {
    throw routingError(error as Error, argv);
  }
  return exitCode;
}

/**
 * Exits once stdout and stderr have handed everything over: on a pipe Node writes asynchronously,
 * and process.exit would drop what the reader had not taken yet (all but the first 64 KiB of a
 * long `paneflow read | less`). A reader that went away (EPIPE) ends the wait.
 */
function exitWhenWritten(code: number): void {
  let waiting = 2;
  for (const stream of [process.stdout, process.stderr]) {
    stream.once('error', () => process.exit(code));
    stream.write('', () => --waiting === 0 && process.exit(code));
  }
}

main(process.argv.slice(2)).then(exitWhenWritten, (error) => {
  if (error instanceof UsageError) {
    process.stderr.write(`paneflow: ${error.message}\n`);
    return exitWhenWritten(2);
  }
  // A family bundle has its own copy of CliError: what counts is the exit code it carries.
  const failure = typeof error?.exitCode === 'number' ? (error as CliError) : new CliError(error instanceof Error ? error.message : String(error), 1);
  process.stderr.write(`paneflow: ${failure.message}\n`);
  exitWhenWritten(failure.exitCode);
});
