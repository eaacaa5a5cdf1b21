// The answer rules' verb: rules (list), rules test, rules off, rules on.
import type { RuleStatus } from '@paneflow/protocol/supervisor';
import { displayText } from '@paneflow/view';
import { CliError } from '../errors';
import { request } from '../instance';
import { printJson, table } from '../output';
import { flag, type Run } from './common';

const ACTIONS = ['test', 'off', 'on'];

export function ruleTable(rules: RuleStatus[]): string {
  return table(
    ['NAME', 'RUNTIME', 'PATTERN', 'ANSWER', 'PER HOUR', 'USED'],
    rules.map((r) => [r.name, r.runtime ?? 'any', r.pattern, r.answer, r.per_hour === null ? '-' : String(r.per_hour), String(r.used_last_hour)]),
  );
}

/** Whether the rules act, and why not. */
function stateLine({ enabled, gated, delay_ms }: { enabled: boolean; gated: boolean; delay_ms: number }): string {
  if (!enabled) return 'answer rules: off (paneflow rules on)';
  if (gated) return 'answer rules: on, but gated: serve runs without PANEFLOW_IPC_SCRIPTING=1 and ai_unrestricted is off, so none answers';
  return `answer rules: on, each answers ${delay_ms} ms after its prompt unless you answer first`;
}

export const run: Record<string, Run> = {
  async rules(p) {
    const action = p.args.action as string | undefined;
    const message = p.args.message as string | undefined;
    if (action !== undefined && !ACTIONS.includes(action)) throw new CliError(`unknown rules action '${displayText(action)}'; it is test, off or on (see \`paneflow rules --help\`)`, 2);
    if (action === 'test' ? message === undefined : message !== undefined) throw new CliError(action === 'test' ? 'rules test needs the declared message to test' : `'rules${action ? ` ${action}` : ''}' takes no message`, 2);
    if (flag(p, 'runtime') !== undefined && action !== 'test') throw new CliError('--runtime goes with rules test only', 2);
    if (action === 'test') return test(message!, flag(p, 'runtime'), !!flag(p, 'json'));
    if (action !== undefined) {
      const result = await request('rules.set_enabled', { enabled: action === 'on' });
      if (flag(p, 'json')) printJson(result);
      else process.stdout.write(result.enabled ? 'answer rules on\n' : 'answer rules off: none answers until `paneflow rules on`\n');
      return 0;
    }
    const result = await request('rules.list', {});
    if (flag(p, 'json')) printJson(result);
    else if (result.rules.length === 0) process.stdout.write('no answer rules: the config has no answer_rules (see `paneflow rules --help`)\n');
    else process.stdout.write(`${stateLine(result)}\n${ruleTable(result.rules)}\n`);
    return 0;
  },
};

/** Exit 0 when a rule would answer the message, 1 when none would. */
async function test(message: string, runtime: string | undefined, json: boolean): Promise<number> {
  let result;
  try {
    result = await request('rules.test', { message, ...(runtime !== undefined ? { runtime_id: runtime } : {}) });
  } catch (error) {
    if (error instanceof CliError && error.reason === 'unknown_runtime') throw new CliError(error.message, 2, error.reason);
    throw error;
  }
  if (json) printJson(result);
  else process.stdout.write(displayText(result.rule ? result.reason : `no rule would answer: ${result.reason}`) + '\n');
  return result.rule ? 0 : 1;
}
