import type { StatusObject } from '@paneflow/protocol';
import { makeHome, until, type Home } from '@paneflow/testing';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { Terminal } from '@xterm/headless';
import { agentTable, sessionTable, statusLine, surfaceTable, table } from '../src/output';
import { restartLine } from '../src/restarts';

type SessionRows = Parameters<typeof sessionTable>[0];

/** Each line of `text` as a terminal lays it out: one string per cell, '' behind a wide character. */
async function onScreen(text: string, cols = 200): Promise<string[][]> {
  const lines = text.replace(/\n$/, '').split('\n');
  const terminal = new Terminal({ cols, rows: lines.length + 1, allowProposedApi: true });
  terminal.loadAddon(new Unicode11Addon());
  terminal.unicode.activeVersion = '11';
  await new Promise<void>((resolve) => terminal.write(lines.join('\r\n'), resolve));
  const buffer = terminal.buffer.active;
  const screen = lines.map((_, y) => {
    const line = buffer.getLine(y)!;
    return Array.from({ length: cols }, (_, x) => {
      const cell = line.getCell(x)!;
      return cell.getWidth() === 0 ? '' : cell.getChars() || ' ';
    });
  });
  terminal.dispose();
  return screen;
}

/**
 * Every line cut at the columns where the header's labels start on screen, trailing blanks
 * dropped: a cell that starts left or right of its label's column shows up as cut or indented.
 */
function cutAtHeader(screen: string[][], labels: string[]): string[][] {
  const header = screen[0].join(''); // the labels are ASCII: one character per column
  const starts: number[] = [];
  for (const label of labels) starts.push(header.indexOf(label, starts.length === 0 ? 0 : starts.at(-1)! + 1));
  expect(starts).not.toContain(-1);
  return screen.map((line) => starts.map((x, i) => line.slice(x, starts[i + 1] ?? line.length).join('').trimEnd()));
}

const ESC = '\x1b';
const colour = (code: string, text: string) => `${ESC}[${code}m${text}${ESC}[0m`;

describe('table, agentTable and sessionTable in colour', () => {
  const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
  beforeEach(() => {
    delete process.env.NO_COLOR;
    process.env.FORCE_COLOR = '1';
  });
  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  test('each cell starts under its header, whatever its colour codes and wide characters', async () => {
    const plain = [
      ['日本語の名前', 'finished', '12', 'done · unread'],
      ['🚀 rocket', 'waiting_for_input', '3', 'approve Bash'],
      ['plain', 'idle', '100', ''],
      ['cafe\u0301', 'idle', '7', 'a combining mark takes no column'],
    ];
    // The states in colour; one left plain.
    const codes = ['32', '33;1', null, '2'];
    const rows = plain.map(([name, state, ...rest], i) => [name, codes[i] ? { text: state, color: codes[i] } : state, ...rest]);
    const printed = table(['NAME', 'STATE', 'SEQ', 'DETAIL'], rows);
    expect(printed.split('\n')[0]).toMatch(new RegExp(`^${ESC}\\[1mNAME`));
    expect(printed).toContain(colour('33;1', 'waiting_for_input'));
    expect(cutAtHeader(await onScreen(printed), ['NAME', 'STATE', 'SEQ', 'DETAIL'])).toEqual([['NAME', 'STATE', 'SEQ', 'DETAIL'], ...plain]);
  });

  test('agentTable paints each state and keeps the columns', async () => {
    const agent = (surface_id: number, surface_name: string, state: StatusObject['state'], state_seq: number) =>
      ({ surface_id, surface_name, tool: 'claude', state, state_seq, reason: 'declared', idle_ms: 5000, waiting_ms: 2000, message: null, declared: null, outcome: null, last_result: 'ok', unread: false, active_tool_name: null, lifecycle: 'live', restart: null, revision: 0 }) as StatusObject;
    const printed = agentTable([agent(1, '名前', 'finished', 12), agent(2, '🚀 rocket', 'waiting_for_input', 3), agent(13, 'plain', 'thinking', 140)]);
    expect(printed).toContain(colour('33;1', 'waiting_for_input'));
    expect(printed).toContain(colour('36', 'thinking'));
    const labels = ['ID', 'NAME', 'TOOL', 'STATE', 'SEQ', 'IDLE', 'DETAIL'];
    expect(cutAtHeader(await onScreen(printed), labels)).toEqual([
      labels,
      ['1', '名前', 'claude', 'finished', '12', '5s', 'ok'],
      ['2', '🚀 rocket', 'claude', 'waiting_for_input', '3', '5s', 'waiting (2s)'],
      ['13', 'plain', 'claude', 'thinking', '140', '5s', ''],
    ]);
  });

  test('sessionTable keeps its WHY column in place behind a wide title', async () => {
    const row = (session: string, title: string) =>
      ({ session, surface_id: 4, workspace: 0, lifecycle: 'lost', status: 'idle', state_seq: 2, runtime_id: 'claude-code', title }) as SessionRows[number];
    const printed = sessionTable([row('a1', 'タイトル🚀'), row('b2', 'plain title')], (s) => `host died (${s.session})`);
    const labels = ['SESSION', 'ID', 'WS', 'LIFECYCLE', 'STATUS', 'SEQ', 'AGENT', 'TITLE', 'WHY'];
    expect(cutAtHeader(await onScreen(printed), labels)).toEqual([
      labels,
      ['a1', '4', '0', 'lost', 'idle', '2', 'claude-code', 'タイトル🚀', 'host died (a1)'],
      ['b2', '4', '0', 'lost', 'idle', '2', 'claude-code', 'plain title', 'host died (b2)'],
    ]);
  });

  test('NO_COLOR wins over FORCE_COLOR, and FORCE_COLOR=0 prints plain', () => {
    const coloured = table(['A'], [['x']]);
    process.env.NO_COLOR = '1';
    const noColor = table(['A'], [['x']]);
    delete process.env.NO_COLOR;
    process.env.FORCE_COLOR = '0';
    expect({ coloured, noColor, forcedOff: table(['A'], [['x']]) }).toEqual({ coloured: `${colour('1', 'A')}\nx`, noColor: 'A\nx', forcedOff: 'A\nx' });
  });
});

describe('text that is not ours reaches the terminal only as visible characters', () => {
  // An OSC 52 clipboard write, a screen clear, a carriage return, a C1 CSI and a right-to-left override.
  const NASTY = 'a\x1b]52;c;cHduZWQ=\x07b\x1b[2Jc\rd\u009b2Je\u202ef';
  const SHOWN = 'a^[]52;c;cHduZWQ=^Gb^[[2Jc^Md\ufffd2Jef';
  // eslint-disable-next-line no-control-regex -- what may not be printed (LF ends lines)
  const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/;
  const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
  afterEach(() => {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });
  const agent = { surface_id: 3, surface_name: NASTY, tool: 'claude', state: 'finished', state_seq: 4, reason: 'declared', idle_ms: 1000, waiting_ms: null, message: null, declared: null, outcome: null, last_result: NASTY, unread: true, active_tool_name: null, lifecycle: 'live', restart: null } as unknown as StatusObject;
  const session = { session: 's1', surface_id: 3, workspace: 0, lifecycle: 'live', status: 'idle', state_seq: 4, runtime_id: 'claude-code', title: NASTY } as SessionRows[number];
  const surface = { surface_id: 3, workspace: 0, name: NASTY, title: NASTY, cwd: `/tmp/${NASTY}`, cmd: NASTY, workspace_id: 'w', session: 's1' };
  const restarted = { surface_id: 3, session: 's1', generation: 2, mode: 'session', restart: { mode: 'session', provider_session_id: NASTY, argv: [], outcome: 'failed', reason: NASTY, at_ms: 1 } } as Parameters<typeof restartLine>[1];

  test('ps, status, ls --human, sessions and restart lines escape controls and drop bidi overrides', () => {
    process.env.NO_COLOR = '1';
    const printed = {
      ps: agentTable([agent]),
      status: statusLine(agent),
      ls: surfaceTable([surface]),
      sessions: sessionTable([session], () => NASTY),
      restart: restartLine(NASTY, restarted),
    };
    for (const [what, text] of Object.entries(printed)) {
      expect([what, UNSAFE.exec(text)?.[0]]).toEqual([what, undefined]);
      expect(text).toContain(SHOWN);
    }
    expect(printed.status).toBe(`3 ${SHOWN} claude finished (declared) · ${SHOWN} · unread`);
    expect(printed.restart).toBe(`${SHOWN}: resume failed: ${SHOWN}; the pane keeps its screen — \`paneflow restart 3 --fresh\` starts it anew`);
  });

  test('in colour, only the colour codes are escapes, and the columns still line up', async () => {
    delete process.env.NO_COLOR;
    process.env.FORCE_COLOR = '1';
    const printed = table(['NAME', 'STATE', 'DETAIL'], [[NASTY, { text: NASTY, color: '33;1' }, 'x'], ['plain', { text: 'idle', color: '2' }, NASTY]]);
    // eslint-disable-next-line no-control-regex -- paint's own SGR sequences
    expect(printed.replace(/\x1b\[[0-9;]*m/g, '')).not.toMatch(UNSAFE);
    expect(printed).toContain(colour('33;1', SHOWN));
    expect(cutAtHeader(await onScreen(printed), ['NAME', 'STATE', 'DETAIL'])).toEqual([
      ['NAME', 'STATE', 'DETAIL'],
      [SHOWN, SHOWN, 'x'],
      ['plain', 'idle', SHOWN],
    ]);
  });
});

describe('the real ps, ps --watch and sessions with colour forced', () => {
  let home: Home;
  beforeAll(() => {
    home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1', NO_COLOR: '', FORCE_COLOR: '1' });
    expect(home.run(['start']).code).toBe(0);
  });
  afterAll(() => home?.cleanup());

  test('their columns line up on screen with coloured states and wide names', async () => {
    const pane = (name: string, command: string) => ({ name, cwd: home.dir, command, focus: false, env: {} });
    const up = await home.rpc('workspace.up', { name: 'widths', layout: 'even_h', panes: [pane('名前のエージェント', 'claude'), pane('🚀 rocket', 'claude --block'), pane('plain', 'claude')] });
    const rocket = up.surfaces.find((s) => s.name === '🚀 rocket')!.surface_id;
    await until(async () => (await home.rpc('fleet.list', {})).agents.filter((a) => a.state === 'idle').length === 3, 'three idle agents');
    // One agent asks a question: a longer state, in another colour.
    expect(home.run(['send', String(rocket), 'go', '--submit']).code).toBe(0);
    const agents = await until(async () => {
      const { agents } = await home.rpc('fleet.list', {});
      return agents.some((a) => a.state === 'waiting_for_input') ? agents : null;
    }, 'the agent waiting');
    // The columns whose cells do not move with the clock.
    const stable = (labels: string[], cut: string[][]) => cut.map((row) => row.slice(0, labels.indexOf('IDLE')));
    const expected = agents.map((a) => [String(a.surface_id), a.surface_name!, a.tool!, a.state, String(a.state_seq)]).sort();
    const labels = ['ID', 'NAME', 'TOOL', 'STATE', 'SEQ', 'IDLE', 'DETAIL'];

    const ps = home.run(['ps']);
    expect(ps.stdout).toContain(colour('33;1', 'waiting_for_input'));
    const [header, ...rows] = stable(labels, cutAtHeader(await onScreen(ps.stdout), labels));
    expect({ header, rows: rows.sort() }).toEqual({ header: labels.slice(0, 5), rows: expected });

    const watch = home.start(['ps', '--watch']);
    await watch.line((l) => l.startsWith('live: '));
    process.kill(watch.child.pid!, 'SIGINT');
    await watch.exited;
    const drawn = watch.lines.slice(0, watch.lines.indexOf(''));
    expect(drawn.join('\n')).toContain(colour('33;1', 'waiting_for_input'));
    const [liveHeader, ...liveRows] = stable(labels, cutAtHeader(await onScreen(drawn.join('\n')), labels));
    expect({ header: liveHeader, rows: liveRows.sort() }).toEqual({ header: labels.slice(0, 5), rows: expected });

    const sessions = home.run(['sessions']);
    const sessionLabels = ['SESSION', 'ID', 'WS', 'LIFECYCLE', 'STATUS', 'SEQ', 'AGENT', 'TITLE'];
    const { sessions: listed } = await home.rpc('session.list', {});
    const [sessionHeader, ...sessionRows] = cutAtHeader(await onScreen(sessions.stdout), sessionLabels).map((row) => row.slice(0, 7));
    expect({ header: sessionHeader, rows: sessionRows.sort() }).toEqual({
      header: sessionLabels.slice(0, 7),
      rows: listed.map((s) => [s.session, String(s.surface_id), String(s.workspace), s.lifecycle, s.status, String(s.state_seq), s.runtime_id ?? '-']).sort(),
    });
  });

  test("an agent's running subagents are counted in ps's DETAIL and status's line; --json keeps their ids as they were", async () => {
    const up = await home.rpc('workspace.up', { name: 'subagents', layout: 'even_h', panes: [{ name: 'lead', cwd: home.dir, command: 'claude --work-ms 60000', focus: false, env: {} }] });
    const lead = up.surfaces[0].surface_id;
    const agent = await until(async () => {
      const s = await home.rpc('surface.status', { surface_id: lead });
      return s.state === 'idle' && s.pid !== null ? s : null;
    }, 'the agent idle');
    expect(home.run(['send', 'lead', 'a long task', '--submit', '--scope', 'all']).code).toBe(0);
    await until(async () => (await home.rpc('surface.status', { surface_id: lead })).state === 'thinking', 'the agent thinking');
    // What paneflow-ai-hook sends for Claude Code's SubagentStart and SubagentStop.
    const subagent = (agent_id: string, phase: 'start' | 'stop') =>
      home.rpc('ai.subagent', { tool: 'claude', session: agent.session, surface_id: lead, workspace_id: up.workspace.id, pid: agent.pid!, emitted_at_ms: Date.now(), payload: { agent_id, phase } });
    const labels = ['ID', 'NAME', 'TOOL', 'STATE', 'SEQ', 'IDLE', 'DETAIL'];
    // The row without its IDLE cell, which moves with the clock.
    const leadRow = async () => (cutAtHeader(await onScreen(home.run(['ps']).stdout), labels).find((row) => row[0] === String(lead)) ?? []).filter((_, i) => i !== 5);
    try {
      for (const id of ['explore-1', 'plan-2']) expect(await subagent(id, 'start')).toEqual({ accepted: true });
      expect(await leadRow()).toEqual([String(lead), 'lead', 'claude', 'thinking', expect.any(String), '2 subagents']);
      expect(home.run(['status', 'lead', '--scope', 'all']).stdout).toMatch(new RegExp(`^${lead} lead claude thinking \\(\\w+\\) · 2 subagents\n$`));
      expect(home.run(['ps', '--json']).json<{ agents: StatusObject[] }>().agents.find((a) => a.surface_id === lead)?.subagents).toEqual(['explore-1', 'plan-2']);

      expect(await subagent('explore-1', 'stop')).toEqual({ accepted: true });
      expect((await leadRow())[5]).toBe('1 subagent');
      expect(await subagent('plan-2', 'stop')).toEqual({ accepted: true });
      expect((await leadRow())[5]).toBe('');
    } finally {
      home.run(['key', 'lead', 'ctrl-c', '--scope', 'all']);
    }
  });
});
