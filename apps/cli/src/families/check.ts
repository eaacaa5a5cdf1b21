// `paneflow osc check`: a program's OSC 7501 declarations judged against the spec.
import { displayText } from '@paneflow/view';
import { OSC_CHECK_TIMEOUT_MS } from '../commands-tools';
import { CliError } from '../errors';
import { printRun } from '../osc-check/format';
import { runCheck } from '../osc-check/run';
import { readScript } from '../osc-check/script';
import { printJson } from '../output';
import { which } from '../path';
import { flag, type Run } from './common';

export const run: Record<string, Run> = {
  async 'osc check'(p) {
    const command = p.args.command as string[];
    // A PTY runs a missing program as a child that exits 1 at once: said plainly instead.
    if (which(command[0]) === null) throw new CliError(`${displayText(command[0])}: command not found`, 1);
    const timeoutMs = flag<number>(p, 'timeout') ?? OSC_CHECK_TIMEOUT_MS;
    const input = flag(p, 'input');
    const steps = input === undefined ? null : readScript(input);
    let result;
    try {
      result = await runCheck({ command, answers: !flag<boolean>(p, 'no-answer'), steps, timeoutMs });
    } catch (error) {
      throw new CliError(displayText((error as Error).message), 1);
    }
    if (flag<boolean>(p, 'json')) printJson({ ...result.report, ended: result.ended, unmet: result.unmet });
    else printRun(result);
    const conformant = result.report.verdict === 'conformant' || result.report.verdict === 'conformant_with_warnings';
    return conformant && result.unmet === null ? 0 : 1;
  },
};
