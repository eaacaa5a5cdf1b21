// `paneflow doctor`: what works and what does not, each line with its fix.
import { agentChecks } from '../doctor/agents';
import { instanceChecks } from '../doctor/instance';
import { exitCodeOf, printChecks } from '../doctor/report';
import { terminalChecks } from '../doctor/terminal';
import { instanceEndpoints, request } from '../instance';
import { flag, type Run } from './common';

export const run: Record<string, Run> = {
  async doctor(p) {
    const instance = await instanceChecks(instanceEndpoints());
    // Which panes run which agent (for resume), only from a serve that runs: doctor never starts one.
    const sessions = instance.serving ? await request('session.list', { machine: null }).then((r) => r.sessions).catch(() => null) : null;
    const checks = [...instance.checks, ...agentChecks(sessions), ...(await terminalChecks())];
    printChecks(checks, flag<boolean>(p, 'json') === true);
    return exitCodeOf(checks);
  },
};
