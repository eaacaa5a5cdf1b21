import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { ResultOf } from '@paneflow/protocol/schema';
import type { MachineRow } from '@paneflow/protocol/machines';
import type { InboxItem, SessionRow, StatusObject } from '@paneflow/protocol/status';
import type { AutoAnswer } from '@paneflow/protocol/supervisor';
import { displayWidth } from '@paneflow/screen';
import { displayText, endedNotice, jsonText, machineCellText, machineRowsAge, subagentsText, supervisionBadges, supervisionText } from '@paneflow/view';

/** JSON goes to stdout, one document per line; what a terminal would take as a control or a line break, \u-escaped (`jsonText`). */
export function printJson(value: unknown): void {
  process.stdout.write(jsonText(value) + '\n');
}

/** NO_COLOR (set and not empty) wins; FORCE_COLOR (not `0` or `false`) colours a pipe too. */
export function colorOn(): boolean {
  const { NO_COLOR, FORCE_COLOR } = process.env;
  if (NO_COLOR) return false;
  if (FORCE_COLOR !== undefined) return FORCE_COLOR !== '0' && FORCE_COLOR !== 'false';
  return process.stdout.isTTY === true;
}
export const paint = (code: string | undefined, text: string) => (code && colorOn() ? `\x1b[${code}m${text}\x1b[0m` : text);

/** A table cell: its text, and the SGR code of its colour if it has one. */
export type Cell = string | { text: string; color: string };

const STATE_COLOR: Record<string, string> = {
  thinking: '36',
  waiting_for_input: '33;1',
  finished: '32',
  errored: '31;1',
  stalled: '35',
  unknown_running: '2',
  idle: '2',
};

/**
 * A plain table: columns padded to their widest cell, in terminal columns (wide characters two);
 * the last one free. Every cell's text goes through `displayText` before it is measured or
 * coloured, so nothing a pane, a hook or a name holds reaches the terminal as a control.
 */
export function table(header: string[], rows: Cell[][]): string {
  const shown = (cells: Cell[]) => cells.map((c) => (typeof c === 'string' ? { text: displayText(c) } : { text: displayText(c.text), color: c.color }));
  const [head, ...body] = [shown(header), ...rows.map(shown)];
  const widths = head.map((h, i) => Math.max(displayWidth(h.text), ...body.map((r) => displayWidth(r[i]?.text ?? ''))));
  const line = (cells: Array<{ text: string; color?: string }>) =>
    cells
      .map((c, i) => paint(c.color, c.text) + (i === cells.length - 1 ? '' : ' '.repeat(widths[i] - displayWidth(c.text))))
      .join('  ')
      .trimEnd();
  return [paint('1', line(head)), ...body.map(line)].join('\n');
}

/**
 * A list's table with other machines' rows among them (issue 32): a first column, MACHINE, says
 * whose each row is (`-` for this one) and, for a machine whose link is not up, how old its row is
 * (`gpu1 (offline 3m)`, in red). Without other machines' rows the table is as it always was.
 */
export function withMachines(header: string[], rows: Cell[][], owners: Array<{ machine?: string | null }>, machines: readonly MachineRow[] = [], nowMs = Date.now()): string {
  if (!owners.some((o) => o.machine)) return table(header, rows);
  const cell = ({ machine }: { machine?: string | null }): Cell => {
    const link = machines.find((m) => m.name === machine);
    const text = machineCellText(machine, machines, nowMs);
    return link && machineRowsAge(link, nowMs) ? { text, color: '31' } : text;
  };
  return table(['MACHINE', ...header], rows.map((row, i) => [cell(owners[i]), ...row]));
}

function ago(ms: number | null): string {
  if (ms === null) return '';
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
}

/** An agent whose process is gone: what it last declared no longer holds; how to bring it back does. */
function ended(agent: StatusObject): string | null {
  const notice = endedNotice(agent);
  return notice && `${notice.text}: paneflow restart ${agent.surface_id}${notice.action === 'fresh' ? ' --fresh' : ''}`;
}

/** What a row says about an agent beyond its state: its turn, the subagents it runs, then what the supervisor saw or did (`Bash · 2 subagents · queued 2`). */
function detail(agent: StatusObject, nowMs: number): string {
  return [turnDetail(agent), subagentsText(agent), supervisionText(agent.supervision, nowMs)].filter(Boolean).join(' · ');
}

function turnDetail(agent: StatusObject): string {
  const gone = ended(agent);
  if (gone) return gone;
  if (agent.state === 'waiting_for_input') return `${agent.message ?? agent.declared?.kind ?? 'waiting'} (${ago(agent.waiting_ms)})`;
  if (agent.state === 'errored') return agent.declared?.message ?? agent.outcome ?? '';
  if (agent.state === 'finished') return [agent.last_result ?? agent.declared?.message, agent.unread ? 'unread' : null].filter(Boolean).join(' · ');
  if (agent.state === 'thinking' && agent.declared?.progress !== null && agent.declared?.progress !== undefined) return `${agent.declared.progress}%`;
  if (agent.reason === 'no_signal') return 'no status: the agent declares nothing';
  return agent.active_tool_name ?? '';
}

export function agentTable(agents: StatusObject[], nowMs = Date.now(), machines?: readonly MachineRow[]): string {
  if (agents.length === 0) return 'no agents';
  return withMachines(
    ['ID', 'NAME', 'TOOL', 'STATE', 'SEQ', 'IDLE', 'DETAIL'],
    agents.map((a) => [
      String(a.surface_id),
      a.surface_name ?? '-',
      a.tool ?? '-',
      endedNotice(a) ? { text: a.lifecycle, color: '31' } : { text: a.state, color: STATE_COLOR[a.state] ?? '0' },
      String(a.state_seq),
      ago(a.idle_ms),
      detail(a, nowMs),
    ]),
    agents,
    machines,
    nowMs,
  );
}

/** `inbox`: the agents waiting for you, oldest first, and how each can be answered from here. */
export function inboxTable(items: InboxItem[], machines?: readonly MachineRow[]): string {
  if (items.length === 0) return 'no agent is waiting for you';
  return withMachines(
    ['WAITING', 'WORKSPACE', 'ID', 'NAME', 'TOOL', 'KIND', 'ANSWERS', 'MESSAGE'],
    items.map((item) => [
      { text: ago(item.waiting_ms), color: STATE_COLOR.waiting_for_input },
      item.workspace_name,
      String(item.surface_id),
      item.surface_name ?? '-',
      item.tool ?? '-',
      item.kind ?? '-',
      item.answers ? [...item.answers.choices, ...(item.answers.text ? ['<text>'] : [])].join('|') : 'by hand',
      item.message ?? '',
    ]),
    items,
    machines,
  );
}

/** Below the inbox: what answer rules answered in the last hour, newest first, each line cleaned by `displayText`. */
export function answeredLines(answered: AutoAnswer[], nowMs: number): string[] {
  return answered.map((a) => displayText(`answered by rule '${a.rule}' ${ago(Math.max(0, nowMs - a.at_ms))} ago (${a.answer}, surface ${a.surface_id}): ${a.message}`));
}

/**
 * `status`: one line, cleaned by `displayText` as table cells are; under it, a line for each of the
 * supervisor's words that rests on facts (`  stalled: no output 12m, no CPU 12m, no hook 14m`).
 */
export function statusLine(status: StatusObject, nowMs = Date.now()): string {
  const extra = detail(status, nowMs);
  const state = endedNotice(status) ? status.lifecycle : `${status.state} (${status.reason})`;
  const facts = supervisionBadges(status.supervision, nowMs).flatMap((badge) => (badge.detail ? [`  ${badge.kind.replace('_', ' ')}: ${badge.detail}`] : []));
  return [`${status.surface_id} ${status.surface_name ?? '-'} ${status.tool ?? '-'} ${state}${extra ? ` · ${extra}` : ''}`, ...facts].map(displayText).join('\n');
}

/**
 * Under `inbox`'s table: the agents whose queue is held or that hit a usage limit, waiting for you
 * or not, with the hold's message or the limit's line; null when there are none.
 */
export function heldTable(agents: StatusObject[], nowMs = Date.now(), machines?: readonly MachineRow[]): string | null {
  const held = agents.flatMap((agent) =>
    supervisionBadges(agent.supervision, nowMs)
      .filter((badge) => badge.kind === 'queue_held' || badge.kind === 'limit')
      .map((badge) => ({ agent, row: [String(agent.surface_id), agent.surface_name ?? '-', { text: badge.text, color: badge.tone === 'error' ? '31;1' : '35' }, badge.detail ?? ''] as Cell[] })),
  );
  const shown = withMachines(['ID', 'NAME', 'SUPERVISOR', 'DETAIL'], held.map((h) => h.row), held.map((h) => h.agent), machines, nowMs);
  return held.length > 0 ? `queues held and usage limits:\n${shown}` : null;
}

export function surfaceTable(surfaces: ResultOf<PublicMethods, 'surface.list'>['surfaces'], machines?: readonly MachineRow[]): string {
  return withMachines(
    ['ID', 'WS', 'NAME', 'CMD', 'CWD'],
    surfaces.map((s) => [String(s.surface_id), String(s.workspace), s.name ?? '-', s.cmd, s.cwd]),
    surfaces,
    machines,
  );
}

/** `sessions`: one row per session; with `why`, a last column saying why it is not running. */
export function sessionTable(sessions: ResultOf<PublicMethods, 'session.list'>['sessions'], why?: (row: SessionRow) => string, machines?: readonly MachineRow[]): string {
  const header = ['SESSION', 'ID', 'WS', 'LIFECYCLE', 'STATUS', 'SEQ', 'AGENT', 'TITLE'];
  const rows = sessions.map((s) => [s.session, String(s.surface_id), String(s.workspace), s.lifecycle, s.status, String(s.state_seq), s.runtime_id ?? '-', s.title]);
  if (!why) return withMachines(header, rows, sessions, machines);
  // The reason is the line's point, so it ends the line and the title goes before it.
  return withMachines([...header, 'WHY'], rows.map((row, i) => [...row, why(sessions[i])]), sessions, machines);
}
