import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { ResultOf } from '@paneflow/protocol/schema';
import type { StatusObject } from '@paneflow/protocol/status';

/** JSON goes to stdout, one document per line. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value) + '\n');
}

const colorOn = () => process.stdout.isTTY === true && !process.env.NO_COLOR;
const paint = (code: string, text: string) => (colorOn() ? `\x1b[${code}m${text}\x1b[0m` : text);

const STATE_COLOR: Record<string, string> = {
  thinking: '36',
  waiting_for_input: '33;1',
  finished: '32',
  errored: '31;1',
  stalled: '35',
  unknown_running: '2',
  idle: '2',
};

/** A plain table: columns padded to their widest cell, the last one free. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => [...(r[i] ?? '')].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c + ' '.repeat(widths[i] - [...c].length)))
      .join('  ')
      .trimEnd();
  return [paint('1', line(header)), ...rows.map(line)].join('\n');
}

function ago(ms: number | null): string {
  if (ms === null) return '';
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s}s` : s < 3600 ? `${Math.round(s / 60)}m` : `${Math.round(s / 3600)}h`;
}

/** What a row says about an agent beyond its state. */
function detail(agent: StatusObject): string {
  if (agent.state === 'waiting_for_input') return `${agent.message ?? agent.declared?.kind ?? 'waiting'} (${ago(agent.waiting_ms)})`;
  if (agent.state === 'errored') return agent.declared?.message ?? agent.outcome ?? '';
  if (agent.state === 'finished') return [agent.last_result ?? agent.declared?.message, agent.unread ? 'unread' : null].filter(Boolean).join(' · ');
  if (agent.state === 'thinking' && agent.declared?.progress !== null && agent.declared?.progress !== undefined) return `${agent.declared.progress}%`;
  if (agent.reason === 'no_signal') return 'no status: the agent declares nothing';
  return agent.active_tool_name ?? '';
}

export function agentTable(agents: StatusObject[]): string {
  if (agents.length === 0) return 'no agents';
  return table(
    ['ID', 'NAME', 'TOOL', 'STATE', 'SEQ', 'IDLE', 'DETAIL'],
    agents.map((a) => [
      String(a.surface_id),
      a.surface_name ?? '-',
      a.tool ?? '-',
      paint(STATE_COLOR[a.state] ?? '0', a.state),
      String(a.state_seq),
      ago(a.idle_ms),
      detail(a),
    ]),
  );
}

export function statusLine(status: StatusObject): string {
  const extra = detail(status);
  return `${status.surface_id} ${status.surface_name ?? '-'} ${status.tool ?? '-'} ${status.state} (${status.reason})${extra ? ` · ${extra}` : ''}`;
}

export function surfaceTable(surfaces: ResultOf<PublicMethods, 'surface.list'>['surfaces']): string {
  return table(
    ['ID', 'WS', 'NAME', 'CMD', 'CWD'],
    surfaces.map((s) => [String(s.surface_id), String(s.workspace), s.name ?? '-', s.cmd, s.cwd]),
  );
}

export function sessionTable(sessions: ResultOf<PublicMethods, 'session.list'>['sessions']): string {
  return table(
    ['SESSION', 'ID', 'WS', 'LIFECYCLE', 'STATUS', 'SEQ', 'AGENT', 'TITLE'],
    sessions.map((s) => [s.session, String(s.surface_id), String(s.workspace), s.lifecycle, s.status, String(s.state_seq), s.runtime_id ?? '-', s.title]),
  );
}
