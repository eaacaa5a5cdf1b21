import type { ReportInput } from '@paneflow/osc7501';
import { programCommand, type ProgramName } from '@paneflow/instance/programs';
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Parsed, VerbSpec } from './args';
import { CliError, ensureInstance, instanceEndpoints, request, subscribe } from './instance';
import { decode, emit, strip } from './osc';
import { agentTable, printJson, sessionTable, statusLine, surfaceTable } from './output';
import { resolveOne, resolveSelector } from './select';
import type { Scope } from '@paneflow/protocol/wire';
import { send } from './send';
import { wait } from './wait';

export interface Verb extends VerbSpec {
  run(parsed: Parsed): Promise<number>;
}

const SCOPE = { scope: { kind: 'string', value: 'workspace|all', help: 'where names resolve (default: this workspace)' } } as const;
const JSON_FLAG = { json: { kind: 'boolean', help: 'print the result object as JSON' } } as const;

function scopeOf(parsed: Parsed): Scope {
  const scope = parsed.flags.scope ?? 'workspace';
  if (scope !== 'workspace' && scope !== 'all') throw new CliError(`--scope is workspace or all, not '${String(scope)}'`, 2);
  return scope;
}

const str = (parsed: Parsed, name: string) => parsed.args[name] as string;
const flag = <T = string>(parsed: Parsed, name: string) => parsed.flags[name] as T | undefined;

/** Runs another Paneflow program with these arguments, its output and exit code passed through. */
function delegate(program: ProgramName, args: string[]): number {
  const [node, script] = programCommand(program);
  const home = process.env.PANEFLOW_HOME;
  const result = spawnSync(node, [script, ...(home ? ['--home', home] : []), ...args], { stdio: 'inherit' });
  return result.status ?? 1;
}

export const VERBS: Verb[] = [
  {
    name: 'ls',
    aliases: ['list_panes'],
    summary: 'List the panes of this workspace (or every workspace with --scope all) as JSON {surfaces}.',
    args: [],
    flags: { human: { kind: 'boolean', help: 'a table instead of JSON' }, ...SCOPE },
    example: 'paneflow ls --human --scope all',
    async run(p) {
      const scope = scopeOf(p);
      const workspaceId = process.env.PANEFLOW_WORKSPACE_ID;
      const result = await request('surface.list', scope === 'all' || !workspaceId ? { scope } : { scope, workspace_id: workspaceId });
      if (flag(p, 'human')) process.stdout.write(surfaceTable(result.surfaces) + '\n');
      else printJson(result);
      return 0;
    },
  },
  {
    name: 'read',
    aliases: ['read_pane'],
    summary: "Print a pane's text: its last lines (scrollback and screen), fenced as untrusted unless --raw.",
    args: [{ name: 'target' }],
    flags: {
      lines: { kind: 'integer', value: 'N', help: 'how many lines (default 200, 1-4000)' },
      offset: { kind: 'integer', value: 'N', help: 'skip this many lines from the end' },
      ...JSON_FLAG,
      raw: { kind: 'boolean', help: 'the text as it is, without the untrusted-output fence' },
      ...SCOPE,
    },
    example: 'paneflow read api --lines 50 --raw',
    details: 'target: a surface id, a pane name (exact, any case, or a unique prefix), cmdline:<text> or cwd:<path>',
    async run(p) {
      const target = await resolveOne(str(p, 'target'), scopeOf(p));
      const result = await request('surface.read', {
        surface_id: target.surface_id,
        ...(flag<number>(p, 'lines') !== undefined ? { lines: flag<number>(p, 'lines') } : {}),
        ...(flag<number>(p, 'offset') !== undefined ? { offset: flag<number>(p, 'offset') } : {}),
        ...(flag(p, 'raw') ? { fenced: false } : {}),
        scope: scopeOf(p),
      });
      if (flag(p, 'json')) printJson(result);
      else process.stdout.write(result.text + '\n');
      return 0;
    },
  },
  {
    name: 'search',
    aliases: ['search_pane'],
    summary: "Search a pane's kept lines for a text, case-insensitively; JSON {matches, truncated}.",
    args: [{ name: 'target' }, { name: 'pattern' }],
    flags: { max: { kind: 'integer', value: 'N', help: 'at most N matches (default 50, 1-1000)' }, human: { kind: 'boolean', help: "'line N: text' lines" }, ...SCOPE },
    example: 'paneflow search api "error" --max 10 --human',
    async run(p) {
      const target = await resolveOne(str(p, 'target'), scopeOf(p));
      const result = await request('surface.search', {
        surface_id: target.surface_id,
        pattern: str(p, 'pattern'),
        ...(flag<number>(p, 'max') !== undefined ? { max_matches: flag<number>(p, 'max') } : {}),
        scope: scopeOf(p),
      });
      if (!flag(p, 'human')) printJson(result);
      else {
        for (const m of result.matches) process.stdout.write(`line ${m.line}: ${m.text}\n`);
        if (result.matches.length === 0) process.stdout.write('(no matches)\n');
        if (result.truncated) process.stdout.write('(more matches not shown)\n');
      }
      return 0;
    },
  },
  {
    name: 'ps',
    summary: 'Show every agent in every workspace and what it declared: a table, or {agents} with --json.',
    args: [],
    flags: { ...JSON_FLAG },
    example: 'paneflow ps',
    async run(p) {
      const result = await request('fleet.list', {});
      if (flag(p, 'json')) printJson(result);
      else process.stdout.write(agentTable(result.agents) + '\n');
      return 0;
    },
  },
  {
    name: 'status',
    summary: "One pane's agent status: a line, or the status object with --json. A pane with no agent is idle, no_agent.",
    args: [{ name: 'target' }],
    flags: { ...JSON_FLAG, ...SCOPE },
    example: 'paneflow status lead --json',
    async run(p) {
      const target = await resolveOne(str(p, 'target'), scopeOf(p));
      const status = await request('surface.status', { surface_id: target.surface_id });
      if (flag(p, 'json')) printJson(status);
      else process.stdout.write(statusLine(status) + '\n');
      return 0;
    },
  },
  {
    name: 'new',
    summary: 'Create a workspace with one shell pane (starting Paneflow if it is not running).',
    args: [],
    flags: { name: { kind: 'string', value: 'NAME', help: 'the workspace name' }, cwd: { kind: 'string', value: 'DIR', help: 'where the shell starts (must exist)' } },
    example: 'paneflow new --name api --cwd ~/src/api',
    async run(p) {
      const cwd = flag(p, 'cwd');
      if (cwd !== undefined && (!existsSync(cwd) || !statSync(cwd).isDirectory())) throw new CliError(`--cwd ${cwd} is not a directory`, 2);
      await ensureInstance();
      const name = flag(p, 'name');
      printJson(await request('workspace.create', { ...(name ? { name } : {}), ...(cwd ? { cwd: resolve(cwd) } : {}) }));
      return 0;
    },
  },
  {
    name: 'select',
    summary: 'Make the workspace at this zero-based index the active one.',
    args: [{ name: 'index' }],
    flags: {},
    example: 'paneflow select 1',
    async run(p) {
      const index = str(p, 'index');
      if (!/^\d+$/.test(index)) throw new CliError(`<index> is a zero-based number, not '${index}'`, 2);
      printJson(await request('workspace.select', { index: Number(index) }));
      return 0;
    },
  },
  {
    name: 'split',
    summary: 'Split a pane (the focused one, or --target): h puts the new shell beside it, v below.',
    args: [{ name: 'direction' }],
    flags: { target: { kind: 'string', value: 'SEL', help: 'the pane to split' } },
    example: 'paneflow split v --target api',
    async run(p) {
      const direction = str(p, 'direction');
      if (!['h', 'horizontal', 'v', 'vertical'].includes(direction)) throw new CliError(`<direction> is h, horizontal, v or vertical, not '${direction}'`, 2);
      const target = flag(p, 'target') !== undefined ? await resolveOne(flag(p, 'target')!, 'workspace') : null;
      printJson(await request('surface.split', { direction: direction as 'h', ...(target ? { surface_id: target.surface_id } : {}) }));
      return 0;
    },
  },
  {
    name: 'focus',
    summary: 'Focus a pane, and select its workspace.',
    args: [{ name: 'target' }],
    flags: { ...SCOPE },
    example: 'paneflow focus lead',
    async run(p) {
      const target = await resolveOne(str(p, 'target'), scopeOf(p));
      printJson(await request('surface.focus', { surface_id: target.surface_id }));
      return 0;
    },
  },
  {
    name: 'send',
    summary: "Type text into a pane, verbatim (no CR unless --submit). '-' reads the text from stdin.",
    args: [{ name: 'target' }, { name: 'text' }],
    flags: {
      submit: { kind: 'boolean', help: 'press Enter after it; to an agent, confirmed by its state' },
      paste: { kind: 'boolean', help: 'send it as a paste (agents get one anyway)' },
      broadcast: { kind: 'boolean', help: 'to every pane the target matches' },
      'report-file': { kind: 'string', value: 'PATH', help: 'ask the agent to write its report there and print REPORT_DONE <path>' },
      force: { kind: 'boolean', help: 'submit even to an agent that is thinking or waiting' },
      ...SCOPE,
    },
    example: 'paneflow send lead "Run the tests, then summarise." --submit',
    details: 'Needs serve started with PANEFLOW_IPC_SCRIPTING=1 (or ai_unrestricted in the config).',
    run: (p) =>
      send(str(p, 'target'), str(p, 'text'), {
        submit: !!flag(p, 'submit'),
        paste: !!flag(p, 'paste'),
        broadcast: !!flag(p, 'broadcast'),
        force: !!flag(p, 'force'),
        reportFile: flag(p, 'report-file'),
        scope: scopeOf(p),
      }),
  },
  {
    name: 'key',
    summary: 'Press a key in a pane. Keys that would submit (enter, ctrl-m, ctrl-j) are refused.',
    details: 'keystroke: [ctrl-|alt-|shift-]*<name>, name a character, space, tab, escape, backspace, delete, insert,\nup, down, left, right, home, end, pageup, pagedown or f1-f12. Needs PANEFLOW_IPC_SCRIPTING=1.',
    args: [{ name: 'target' }, { name: 'keystroke' }],
    flags: { ...SCOPE },
    example: 'paneflow key lead ctrl-c',
    async run(p) {
      const target = await resolveOne(str(p, 'target'), scopeOf(p));
      const workspaceId = process.env.PANEFLOW_WORKSPACE_ID;
      printJson(await request('surface.send_keystroke', { surface_id: target.surface_id, keystroke: str(p, 'keystroke'), scope: scopeOf(p), ...(workspaceId ? { workspace_id: workspaceId } : {}) }));
      return 0;
    },
  },
  {
    name: 'wait',
    summary: 'Wait until a pane shows a pattern (--pattern) or its turn ends or its output settles (--idle). Exit 4 on timeout.',
    args: [],
    flags: {
      match: { kind: 'string', value: 'SEL', help: 'the pane(s) to watch (required)' },
      pattern: { kind: 'string', value: 'RE', help: 'a regular expression tested against each of the last 200 lines' },
      idle: { kind: 'boolean', help: "a declaring agent's turn is over; anything else has been quiet for --for ms" },
      for: { kind: 'integer', value: 'MS', help: 'quiet time for panes that declare nothing (default 1000)' },
      timeout: { kind: 'integer', value: 'S', help: 'give up after S seconds, exit 4 (default 300)' },
      any: { kind: 'boolean', help: 'every matching pane; the first to satisfy wins' },
      all: { kind: 'boolean', help: 'every matching pane; wait for all of them' },
      ...SCOPE,
    },
    example: "paneflow wait --match lead --idle --timeout 600",
    async run(p) {
      const match = flag(p, 'match');
      if (!match) throw new CliError('wait needs --match SEL', 2);
      if (flag(p, 'pattern') === undefined && !flag(p, 'idle')) throw new CliError('wait needs --pattern RE or --idle (or both)', 2);
      if (flag(p, 'any') && flag(p, 'all')) throw new CliError('--any and --all cannot go together', 2);
      return wait(match, {
        pattern: flag(p, 'pattern'),
        idle: !!flag(p, 'idle'),
        forMs: flag<number>(p, 'for') ?? 1000,
        timeoutS: flag<number>(p, 'timeout') ?? 300,
        any: !!flag(p, 'any'),
        all: !!flag(p, 'all'),
        scope: scopeOf(p),
      });
    },
  },
  {
    name: 'watch',
    summary: 'Print every event as one JSON line, the subscription first, until Ctrl-C (exit 0) or a lost connection (exit 1).',
    args: [],
    flags: {
      surface: { kind: 'repeat', value: 'SEL', help: 'only these panes' },
      type: { kind: 'repeat', value: 'T', help: 'only these event types' },
      'events-only': { kind: 'boolean', help: 'leave out the subscription and heartbeats' },
    },
    example: 'paneflow watch --surface lead --type status_changed --type notification',
    async run(p) {
      const selectors = flag<string[]>(p, 'surface') ?? [];
      const surfaces: number[] = [];
      for (const selector of selectors) surfaces.push(...(await resolveSelector(selector, 'all', true)).map((s) => s.surface_id));
      const types = flag<string[]>(p, 'type');
      const eventsOnly = !!flag(p, 'events-only');
      const params = { ...(selectors.length ? { surfaces } : {}), ...(types ? { types: types as never[] } : {}) };
      // `subscribed` says every later event will be seen: printed once serve has the subscription,
      // and before a first frame that came with serve's answer.
      let announced = eventsOnly;
      const announce = () => {
        if (!announced) printJson({ type: 'subscribed', surfaces: params.surfaces ?? null, types: types ?? null });
        announced = true;
      };
      const stream = await subscribe(params, (frame) => {
        if (eventsOnly && frame.type === 'heartbeat') return;
        announce();
        printJson(frame);
      });
      announce();
      return new Promise((resolveWatch) => {
        process.once('SIGINT', () => {
          stream.destroy();
          resolveWatch(0);
        });
        stream.onClose(() => resolveWatch(1));
      });
    },
  },
  {
    name: 'sessions',
    summary: 'List the sessions behind the panes (a table, or {sessions} with --json); `sessions ack <id>…` clears unread.',
    args: [{ name: 'action', optional: true }, { name: 'ids', optional: true, rest: true }],
    flags: { ...JSON_FLAG, follow: { kind: 'boolean', help: 'print a line per status or session change, reconnecting' } },
    example: 'paneflow sessions --json',
    async run(p) {
      const action = p.args.action as string | undefined;
      if (action !== undefined && action !== 'ack') throw new CliError(`unknown sessions action '${action}'; see \`paneflow sessions --help\``, 2);
      if (action === 'ack') {
        const ids = p.args.ids as string[];
        if (ids.length === 0) throw new CliError('sessions ack needs session ids', 2);
        printJson(await request('session.ack', { sessions: ids }));
        return 0;
      }
      if (!flag(p, 'follow')) {
        const result = await request('session.list', {});
        if (flag(p, 'json')) printJson(result);
        else process.stdout.write(sessionTable(result.sessions) + '\n');
        return 0;
      }
      for (;;) {
        const lost = await new Promise<boolean>((resolveFollow) => {
          subscribe({ types: ['status_changed', 'session_changed'] }, (frame) => printJson(frame))
            .then((stream) => {
              process.once('SIGINT', () => resolveFollow(false));
              stream.onClose(() => resolveFollow(true));
            })
            .catch(() => resolveFollow(true));
        });
        if (!lost) return 0;
        await new Promise((r) => setTimeout(r, 1000));
      }
    },
  },
  {
    name: 'up',
    summary: 'Start a workspace from a spec file.',
    args: [{ name: 'file' }],
    flags: { 'dry-run': { kind: 'boolean', help: 'print the resolved plan; touch nothing' } },
    example: 'paneflow up team.toml --dry-run',
    details: 'Needs serve with PANEFLOW_IPC_ORCHESTRATION=1 (or scripting). Spec: REFERENCE.md §5.1; see examples/.',
    // Loaded only when used: the spec engine is the CLI's largest part.
    run: async (p) => (await import('./up')).up(str(p, 'file'), !!flag(p, 'dry-run')),
  },
  {
    name: 'flow run',
    summary: 'Run a multi-agent flow from a spec file.',
    args: [{ name: 'file' }],
    flags: { 'dry-run': { kind: 'boolean', help: 'validate and print the plan' }, ...JSON_FLAG, ...SCOPE },
    example: 'paneflow flow run review.toml --json',
    details: 'Steps that submit need serve with PANEFLOW_IPC_SCRIPTING=1. Spec: REFERENCE.md §5.5; see examples/.',
    run: async (p) => (await import('./flow')).flowRun(str(p, 'file'), { dryRun: !!flag(p, 'dry-run'), json: !!flag(p, 'json'), scope: scopeOf(p) }),
  },
  ...(
    [
      ['hooks setup', 'hooksSetup', 'Install the hooks (and the MCP server) for every detected agent.', 'Claude Code: $CLAUDE_CONFIG_DIR/settings.json (default ~/.claude/settings.json); Codex: $CODEX_HOME/hooks.json. Idempotent; your own hooks stay; <file>.bak before the first change. Exit 1 if a runtime failed.'],
      ['hooks status', 'hooksStatus', "Show each agent's hook state (installed, partial, outdated, absent, not_detected).", 'Always exits 0.'],
      ['hooks uninstall', 'hooksUninstall', "Remove Paneflow's hooks and MCP server entries, and nothing else.", 'Exit 1 if a runtime failed.'],
      ['mcp install', 'mcpInstall', 'Register paneflow-mcp with every detected agent.', 'Claude Code: ~/.claude.json mcpServers.paneflow (as `claude mcp add --scope user` writes it); Codex: $CODEX_HOME/config.toml [mcp_servers.paneflow].'],
      ['mcp status', 'mcpStatus', "Show each agent's MCP registration.", 'Always exits 0.'],
      ['mcp uninstall', 'mcpUninstall', 'Remove the paneflow-mcp registration.', 'Exit 1 if a runtime failed.'],
    ] as const
  ).map(
    ([name, action, summary, details]): Verb => ({
      name,
      summary,
      args: [],
      flags: {},
      example: `paneflow ${name}`,
      details,
      run: async () => (await import('./integrations'))[action](),
    }),
  ),
  {
    name: 'emit',
    summary: 'Write an OSC 7501 status report to the controlling terminal (for scripts and hooks).',
    args: [{ name: 'state' }],
    flags: {
      kind: { kind: 'string', value: 'K', help: 'permission, question or auth (with blocked)' },
      msg: { kind: 'string', value: 'TEXT', help: 'a one-line message' },
      app: { kind: 'string', value: 'NAME', help: 'the program name' },
      id: { kind: 'string', value: 'ID', help: 'a child record, such as build/test' },
      progress: { kind: 'integer', value: 'N', help: '0-100 (with working or blocked)' },
      title: { kind: 'string', value: 'TEXT', help: 'a short title' },
    },
    example: "paneflow emit blocked --kind permission --msg 'Apply the migration?'",
    details: 'state: idle, working, done, blocked, error, or clear (removes the record and its children)',
    async run(p) {
      emit({
        state: str(p, 'state') as ReportInput['state'],
        kind: flag(p, 'kind') as ReportInput['kind'],
        msg: flag(p, 'msg'),
        app: flag(p, 'app'),
        id: flag(p, 'id'),
        progress: flag<number>(p, 'progress'),
        title: flag(p, 'title'),
      });
      return 0;
    },
  },
  {
    name: 'decode',
    summary: 'Read terminal output on stdin; print each OSC 7501 sequence in it as one JSON line.',
    args: [],
    flags: {},
    example: 'cat session.log | paneflow decode',
    async run() {
      await decode();
      return 0;
    },
  },
  {
    name: 'strip',
    summary: 'Copy stdin to stdout without its OSC 7501 sequences; every other byte unchanged.',
    args: [],
    flags: {},
    example: 'cat session.log | paneflow strip > clean.log',
    async run() {
      await strip();
      return 0;
    },
  },
  {
    name: 'start',
    summary: 'Start the host and serve, detached, if they are not running.',
    args: [],
    flags: {},
    example: 'PANEFLOW_IPC_SCRIPTING=1 paneflow start',
    async run() {
      const serve = await ensureInstance();
      printJson({ serve, home: instanceEndpoints().home });
      return 0;
    },
  },
  {
    name: 'stop',
    summary: 'Stop serve, then the host; refused while sessions are live unless --force, which stops them.',
    args: [],
    flags: { force: { kind: 'boolean', help: 'stop every live session too' } },
    example: 'paneflow stop --force',
    async run(p) {
      const live = await request('session.list', {})
        .then((r) => r.sessions.filter((s) => s.live).map((s) => s.session))
        .catch(() => [] as string[]);
      if (live.length > 0 && !flag(p, 'force')) {
        throw new CliError(`refused: ${live.length} session(s) live (use --force to stop them):\n${live.map((s) => `  ${s}`).join('\n')}`, 1);
      }
      delegate('paneflow-serve', ['stop']);
      return delegate('paneflow-host', ['stop', ...(flag(p, 'force') ? ['--force'] : [])]);
    },
  },
  ...(['start', 'status', 'stop'] as const).map(
    (sub): Verb => ({
      name: `host ${sub}`,
      summary: { start: 'Ensure the host runs; prints {pid, endpoint, home, protocol, adopted}.', status: 'Print host.status; exit 1 when no host runs.', stop: 'Stop the host; refused while sessions are live unless --force.' }[sub],
      args: [],
      flags: sub === 'stop' ? { force: { kind: 'boolean', help: 'stop every live session first' } } : {},
      example: `paneflow host ${sub}`,
      run: async (p) => delegate('paneflow-host', [sub, ...(flag(p, 'force') ? ['--force'] : [])]),
    }),
  ),
  ...(['start', 'status', 'stop', 'run'] as const).map(
    (sub): Verb => ({
      name: `serve ${sub}`,
      summary: {
        start: 'Ensure serve runs (and the host); adopts a running one.',
        status: 'Print {pid, protocol, home, sessions, capabilities}; exit 1 when serve is not running.',
        stop: 'Stop serve after letting requests and streams drain.',
        run: 'Run serve in the foreground.',
      }[sub],
      args: [],
      flags: sub === 'stop' ? { 'drain-ms': { kind: 'integer', value: 'N', help: 'how long to let them drain (default 5000)' } } : {},
      example: `paneflow serve ${sub}`,
      run: async (p) => delegate('paneflow-serve', [sub, ...(flag(p, 'drain-ms') !== undefined ? ['--drain-ms', String(flag(p, 'drain-ms'))] : [])]),
    }),
  ),
];
