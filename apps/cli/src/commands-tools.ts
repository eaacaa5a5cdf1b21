import { TIMER_MAX_MS, type VerbSpec } from './usage';

/**
 * The verbs around the instance rather than its panes (REFERENCE.md §4.3): the daemons, the agents'
 * integrations, the OSC 7501 tools and `doctor`. Data only, as commands.ts is.
 */

export const JSON_FLAG = { json: { kind: 'boolean', help: 'print the result object as JSON' } } as const;

/** How long `osc check` lets a program run with nothing to type into it. */
export const OSC_CHECK_TIMEOUT_MS = 30_000;

const integrations: VerbSpec[] = (
  [
    ['hooks setup', 'Install the hooks (and the MCP server) for every detected agent.', 'Claude Code: $CLAUDE_CONFIG_DIR/settings.json (default ~/.claude/settings.json); Codex: $CODEX_HOME/hooks.json. Idempotent; your own hooks stay; <file>.bak before the first change. Exit 1 if a runtime failed.'],
    ['hooks status', "Show each agent's hook state (installed, partial, outdated, absent, not_detected).", 'Always exits 0.'],
    ['hooks uninstall', "Remove Paneflow's hooks and MCP server entries, and nothing else.", 'Exit 1 if a runtime failed.'],
    ['mcp install', 'Register paneflow-mcp with every detected agent.', 'Claude Code: ~/.claude.json mcpServers.paneflow (as `claude mcp add --scope user` writes it); Codex: $CODEX_HOME/config.toml [mcp_servers.paneflow]; Gemini CLI: ~/.gemini/settings.json mcpServers.paneflow; opencode: ~/.config/opencode/opencode.json mcp.paneflow.'],
    ['mcp status', "Show each agent's MCP registration.", 'Always exits 0.'],
    ['mcp uninstall', 'Remove the paneflow-mcp registration.', 'Exit 1 if a runtime failed.'],
  ] as const
).map(([name, summary, details]): VerbSpec => ({ name, summary, details, args: [], flags: {}, example: `paneflow ${name}`, family: 'integrations' }));

const RUNTIME_HELP = "runtime: an agent's slug or command (claude-code, claude, codex, gemini, opencode…); `paneflow integrations list` shows them all.";
const integrationVerbs: VerbSpec[] = [
  {
    name: 'integrations list',
    summary: 'Show every agent: what Paneflow can wire for it (hooks, MCP server), their state, its summary and its presets.',
    details: 'Always exits 0.',
    args: [],
    flags: {},
    example: 'paneflow integrations list',
    family: 'integrations',
  },
  ...(['install', 'remove'] as const).map(
    (sub): VerbSpec => ({
      name: `integrations ${sub}`,
      summary: sub === 'install' ? "Install one agent's hooks and MCP server registration, even before it is detected." : "Remove one agent's hooks and MCP server registration, and nothing else.",
      details: `${RUNTIME_HELP}\nIdempotent; your own settings stay; <file>.bak before the first change; a file that is not valid JSON or TOML is left untouched (exit 1). Exit 2 for an unknown runtime, 1 for one with nothing to wire.`,
      args: [{ name: 'runtime' }],
      flags: {},
      example: `paneflow integrations ${sub} gemini`,
      family: 'integrations',
    }),
  ),
];

const hostVerbs: VerbSpec[] = (['start', 'status', 'stop'] as const).map((sub): VerbSpec => ({
  name: `host ${sub}`,
  summary: { start: 'Ensure the host runs; prints {pid, endpoint, home, protocol, adopted}.', status: 'Print host.status; exit 1 when no host runs.', stop: 'Stop the host; refused while sessions are live unless --force.' }[sub],
  args: [],
  flags: sub === 'stop' ? { force: { kind: 'boolean', help: 'stop every live session first' } } : {},
  example: `paneflow host ${sub}`,
  family: 'instance',
}));

const serveVerbs: VerbSpec[] = (['start', 'status', 'stop', 'run'] as const).map((sub): VerbSpec => ({
  name: `serve ${sub}`,
  summary: {
    start: 'Ensure serve runs (and the host); adopts a running one.',
    status: 'Print {pid, protocol, home, sessions, capabilities}; exit 1 when serve is not running.',
    stop: 'Stop serve after letting requests and streams drain.',
    run: 'Run serve in the foreground.',
  }[sub],
  args: [],
  flags: sub === 'stop' ? { 'drain-ms': { kind: 'integer', value: 'N', help: 'how long to let them drain (default 5000)', range: { max: TIMER_MAX_MS } } } : {},
  example: `paneflow serve ${sub}`,
  family: 'instance',
}));

export const TOOL_VERBS: VerbSpec[] = [
  ...integrations,
  ...integrationVerbs,
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
    family: 'osc',
  },
  {
    name: 'decode',
    summary: 'Read terminal output on stdin; print each OSC 7501 sequence in it as one JSON line.',
    args: [],
    flags: {},
    example: 'cat session.log | paneflow decode',
    family: 'osc',
  },
  {
    name: 'strip',
    summary: 'Copy stdin to stdout without its OSC 7501 sequences; every other byte unchanged.',
    args: [],
    flags: {},
    example: 'cat session.log | paneflow strip > clean.log',
    family: 'osc',
  },
  {
    name: 'osc check',
    summary: "Run a program under an OSC 7501 terminal and judge what it declares against OSC7501.md: each violation and warning with its section, then a verdict.",
    args: [{ name: 'command', rest: true }],
    flags: {
      'no-answer': { kind: 'boolean', help: "never answer the `?` query, to check the program's fallback" },
      input: { kind: 'string', value: 'FILE', help: 'what to type, line by line: `send TEXT`, `key NAME`, `wait MS`, `wait-for STATE` (see --help)' },
      timeout: { kind: 'integer', value: 'MS', help: `hang the program up after this long (default ${OSC_CHECK_TIMEOUT_MS})`, range: { min: 1, max: TIMER_MAX_MS } },
      ...JSON_FLAG,
    },
    example: 'paneflow osc check --input turn.txt -- claude',
    details:
      'The command runs in a fresh 80x24 PTY with TERM=xterm-256color under a receiver that answers the query and DA1 in stream order (as the host does).\nWithout --input it runs until it exits (or --timeout); after the script, the program is hung up.\n--input lines: `send TEXT` submits TEXT (pasted, then Enter); `type TEXT` types it without Enter; `key NAME` presses a key (enter, esc, tab, up, down, ctrl-c…);\n`wait MS` waits; `wait-for STATE` waits until the program declares STATE (idle, working, done, blocked, error); `#` starts a comment.\nExit 0 when conformant (with or without warnings), 1 when not conformant or when it declared nothing, 2 for a usage error.',
    family: 'check',
  },
  {
    name: 'doctor',
    summary: 'Say what works and what does not: the instance, each agent on PATH, this terminal; each problem with its fix.',
    args: [],
    flags: { ...JSON_FLAG },
    example: 'paneflow doctor',
    details: 'Starts nothing. Exit 1 when something is broken (FAIL), 0 otherwise, warnings included.',
    family: 'doctor',
  },
  {
    name: 'start',
    summary: 'Start the host and serve, detached, if they are not running.',
    args: [],
    flags: {},
    example: 'PANEFLOW_IPC_SCRIPTING=1 paneflow start',
    family: 'instance',
  },
  {
    name: 'stop',
    summary: 'Stop serve, then the host; refused while sessions are live unless --force, which stops them.',
    args: [],
    flags: { force: { kind: 'boolean', help: 'stop every live session too' } },
    example: 'paneflow stop --force',
    family: 'instance',
  },
  ...hostVerbs,
  ...serveVerbs,
  {
    name: 'rpc',
    summary: "Carry newline-delimited JSON-RPC between stdin/stdout and this machine's serve: another machine's Paneflow runs it over ssh.",
    args: [],
    flags: { stdio: { kind: 'boolean', help: 'speak on stdin and stdout (its one transport, required)' } },
    example: 'ssh devbox paneflow rpc --stdio',
    details:
      'Starts the instance if needed, then says hello (rpc.hello) before anything else; each request goes to serve on a connection of its own\nand its answer comes back with its id, any number at once; an events.subscribe\'s frames follow as rpc.frame, its end as rpc.end,\nand rpc.cancel ends one. Exits 0 when stdin ends; 1, with one line on stderr and no hello, when the instance cannot start.',
    family: 'bridge',
  },
];
