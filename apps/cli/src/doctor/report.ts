// What `paneflow doctor` finds, line by line, and how it is shown.
import { displayText } from '@paneflow/view';
import { paint, printJson } from '../output';

/**
 * `fail`: something does not work and the exit code says so; `warn`: works, with less than it
 * could (no hooks, no jemalloc); `info`: a fact worth knowing; `ok`: checked and fine.
 */
export type CheckState = 'ok' | 'info' | 'warn' | 'fail';
export type CheckGroup = 'instance' | 'agents' | 'terminal';

export interface Check {
  group: CheckGroup;
  /** What was checked, short: `serve`, `claude-code hooks`. */
  name: string;
  state: CheckState;
  /** What was found, one line. */
  detail: string;
  /** What to do about it; null when nothing needs doing. */
  fix: string | null;
}

export const check = (group: CheckGroup, name: string, state: CheckState, detail: string, fix: string | null = null): Check => ({ group, name, state, detail, fix });

const MARK: Record<CheckState, { text: string; color: string }> = {
  ok: { text: 'ok', color: '32' },
  info: { text: 'info', color: '2' },
  warn: { text: 'warn', color: '33' },
  fail: { text: 'FAIL', color: '31;1' },
};

const GROUP_TITLE: Record<CheckGroup, string> = { instance: 'Instance', agents: 'Agents', terminal: 'This terminal' };

/** Exit 1 when something is broken; warnings alone are not. */
export const exitCodeOf = (checks: Check[]) => (checks.some((c) => c.state === 'fail') ? 1 : 0);

export function printChecks(checks: Check[], json: boolean): void {
  if (json) {
    printJson({ ok: exitCodeOf(checks) === 0, checks });
    return;
  }
  const lines: string[] = [];
  const width = Math.max(...checks.map((c) => c.name.length));
  for (const group of Object.keys(GROUP_TITLE) as CheckGroup[]) {
    const mine = checks.filter((c) => c.group === group);
    if (mine.length === 0) continue;
    lines.push(paint('1', GROUP_TITLE[group]));
    for (const c of mine) {
      const mark = MARK[c.state];
      // Paths, versions and replies come from the machine: cleaned before they reach the terminal.
      lines.push(`  ${paint(mark.color, mark.text.padEnd(4))}  ${displayText(c.name).padEnd(width)}  ${displayText(c.detail)}`);
      if (c.fix) lines.push(`        ${' '.repeat(width)}  ${paint('36', '→')} ${displayText(c.fix)}`);
    }
  }
  const counts = (['fail', 'warn'] as const).map((state) => `${checks.filter((c) => c.state === state).length} ${state === 'fail' ? 'broken' : 'warnings'}`);
  lines.push('', counts.join(', '));
  process.stdout.write(lines.join('\n') + '\n');
}
