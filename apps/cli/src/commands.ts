import { READ_LINES_DEFAULT, READ_LINES_MAX, SEARCH_MATCHES_DEFAULT, SEARCH_MATCHES_MAX, TURNS_KEPT, TURNS_KEPT_PER_SESSION } from '@paneflow/protocol/limits';
import { JSON_FLAG, TOOL_VERBS } from './commands-tools';
import { TIMER_MAX_MS, type VerbSpec } from './usage';

/**
 * Every verb of REFERENCE.md §4.3: its words, flags, help and the family that runs it. Data only,
 * so that routing a call and printing help load nothing else.
 */

const SCOPE = { scope: { kind: 'string', value: 'workspace|all', help: 'where names resolve (default: this workspace)' } } as const;
const TARGET_HELP = 'target: a surface id, a pane name (exact, any case, or a unique prefix), cmdline:<text> or cwd:<path>';

export const VERBS: VerbSpec[] = [
  {
    name: 'ls',
    aliases: ['list_panes'],
    summary: 'List the panes of this workspace (or every workspace with --scope all) as JSON {surfaces}.',
    args: [],
    flags: { human: { kind: 'boolean', help: 'a table instead of JSON' }, ...SCOPE },
    example: 'paneflow ls --human --scope all',
    family: 'panes',
  },
  {
    name: 'read',
    aliases: ['read_pane'],
    summary: "Print a pane's text: its last lines (scrollback and screen), fenced as untrusted unless --raw.",
    args: [{ name: 'target' }],
    flags: {
      lines: { kind: 'integer', value: 'N', help: `how many lines (default ${READ_LINES_DEFAULT}, 1-${READ_LINES_MAX})`, range: { min: 1, max: READ_LINES_MAX } },
      offset: { kind: 'integer', value: 'N', help: 'skip this many lines from the end' },
      ...JSON_FLAG,
      raw: { kind: 'boolean', help: 'the text as it is, without the untrusted-output fence' },
      ...SCOPE,
    },
    example: 'paneflow read api --lines 50 --raw',
    details: TARGET_HELP,
    family: 'panes',
  },
  {
    name: 'search',
    aliases: ['search_pane'],
    summary: "Search a pane's kept lines for a text, case-insensitively; JSON {matches, truncated}.",
    args: [{ name: 'target' }, { name: 'pattern' }],
    flags: {
      max: { kind: 'integer', value: 'N', help: `at most N matches (default ${SEARCH_MATCHES_DEFAULT}, 1-${SEARCH_MATCHES_MAX})`, range: { min: 1, max: SEARCH_MATCHES_MAX } },
      human: { kind: 'boolean', help: "'line N: text' lines" },
      ...SCOPE,
    },
    example: 'paneflow search api "error" --max 10 --human',
    family: 'panes',
  },
  {
    name: 'attach',
    summary: 'Work in a workspace from this terminal: its panes, and every agent’s turn beside them, until detached (prefix d).',
    args: [{ name: 'workspace', optional: true }],
    flags: {
      machine: { kind: 'string', value: 'NAME', help: 'a workspace of that machine (`paneflow machine ls`), through this serve’s ssh link to it' },
    },
    example: 'paneflow attach api',
    details:
      'workspace: a name or a zero-based index (default: the active one). The prefix key (ctrl-b unless `attach.prefix` in the\nconfig says otherwise) then ? shows the keys. Detaching, or closing the terminal, leaves every session running.',
    family: 'attach',
  },
  {
    name: 'web',
    summary: 'Serve the desktop to a browser (or a phone) on this machine: prints a URL with a secret token, serves until Ctrl-C.',
    args: [],
    flags: {
      bind: { kind: 'string', value: 'ADDR', help: 'the IP address to listen on (default 127.0.0.1)' },
      port: { kind: 'integer', value: 'N', help: 'the port (default: a free one)', range: { max: 65535 } },
    },
    example: 'paneflow web --port 8765',
    details:
      'Starts the instance if needed. Every request without the token, or from a page of another origin, is refused (403).\nFrom another machine: ssh -L 8765:127.0.0.1:8765 <this host>, then open the URL there. Needs the desktop built (npx nx build desktop).',
    family: 'web',
  },
  {
    name: 'ps',
    summary: 'Show every agent in every workspace and what it declared: a table, or {agents} with --json.',
    args: [],
    flags: { ...JSON_FLAG, watch: { kind: 'boolean', help: 'a live table, redrawn on every event, until Ctrl-C' } },
    example: 'paneflow ps',
    family: 'agents',
  },
  {
    name: 'inbox',
    summary: 'Every agent waiting for you, oldest first: workspace, pane, tool, what it asks, how long, how to answer; then what rules answered this hour; {items, answered} with --json.',
    args: [],
    flags: { ...JSON_FLAG, watch: { kind: 'boolean', help: 'a live table, redrawn on every change, until Ctrl-C' } },
    example: 'paneflow inbox --watch',
    family: 'agents',
  },
  {
    name: 'turns',
    summary: "What each agent did, turn by turn: when, how long, how it ended, the files it changed (+/-), its tokens, its prompt; {turns} with --json. `turns prune [target]` removes the records and their git refs.",
    args: [
      { name: 'target', optional: true },
      { name: 'prune_target', optional: true },
    ],
    flags: {
      since: { kind: 'string', value: 'WHEN', help: 'only turns running or ended since then: 90s, 30m, 2h, 3d, or a date (2026-12-04T09:00)' },
      limit: { kind: 'integer', value: 'N', help: 'the newest N turns (default all kept)', range: { min: 1 } },
      ...JSON_FLAG,
      ...SCOPE,
    },
    example: 'paneflow turns api --since 2h',
    details: `${TARGET_HELP}; none: every pane's turns. A turn begins when an agent's declared state enters its turn (working or waiting for you) and ends when it leaves it; an agent that declares nothing has none. Records and their refs (refs/paneflow/turns/<session>/<n>) are kept for the last ${TURNS_KEPT_PER_SESSION} turns per session and ${TURNS_KEPT} in all.`,
    family: 'turns',
  },
  {
    name: 'diff',
    summary: "git's diff of what one turn changed in its pane's work tree (coloured on a terminal, plain otherwise); --stat for the summary.",
    args: [{ name: 'target' }],
    flags: {
      turn: { kind: 'integer', value: 'N', help: 'the turn (its number in `paneflow turns`); default the latest', range: { min: 1 } },
      last: { kind: 'boolean', help: 'the latest turn (the default)' },
      stat: { kind: 'boolean', help: "git's --stat instead of the diff" },
      ...JSON_FLAG,
      ...SCOPE,
    },
    example: 'paneflow diff api --turn 3 --stat',
    details: `${TARGET_HELP}. The turn's start snapshot against its end; for a turn still running, or interrupted (its end was never seen), against the working tree now, and a line on stderr says so. Exit 1 when the turn has no change (its pane was not in a git work tree), 3 when there is no such pane or turn. Nothing of your repository changes: the snapshots are commits under Paneflow's own refs, made through a temporary index.`,
    family: 'turns',
  },
  {
    name: 'digest',
    summary: 'While you were away: per agent, turns finished, files changed, errors, tokens, and what it waits for now; {since_ms, agents} with --json.',
    args: [],
    flags: {
      since: { kind: 'string', value: 'WHEN', help: 'from then (90s, 30m, 2h, 3d, or a date); default: when you last looked (an ack, attach, the web face)' },
      ...JSON_FLAG,
    },
    example: 'paneflow digest --since 8h',
    family: 'turns',
  },
  {
    name: 'answer',
    summary: "Answer a waiting agent: yes, always or no to a permission prompt, or the text of an answer to a question.",
    args: [{ name: 'target' }, { name: 'answer' }],
    flags: { seq: { kind: 'integer', value: 'N', help: "the prompt's state_seq as `inbox --json` showed it: only that prompt is answered" }, ...SCOPE },
    example: 'paneflow answer api yes',
    details: `${TARGET_HELP}. What is typed comes from the agent's runtime ([answers] in runtimes/*/runtime.toml), only while it still waits at the prompt it waits at now, or with --seq at the prompt the inbox showed: exit 1 (not_waiting) when it has moved on, and nothing is typed; exit 1 when its runtime has no answers (answer by hand in the pane); exit 4 when it was typed but the agent still waits after 3 s. Needs serve with PANEFLOW_IPC_SCRIPTING=1. From a terminal outside Paneflow it answers in any workspace, as the desktop does; inside a pane, other workspaces need PANEFLOW_IPC_ORCHESTRATION=1.`,
    family: 'agents',
  },
  {
    name: 'rules',
    summary: 'The config\'s answer rules and their answers this hour; `rules test "<message>"` says which would answer; `rules off`, `rules on`.',
    args: [
      { name: 'action', optional: true },
      { name: 'message', optional: true },
    ],
    flags: { runtime: { kind: 'string', value: 'SLUG', help: "with test: the agent's runtime (claude-code…); default any" }, ...JSON_FLAG },
    example: 'paneflow rules test "approve Bash: npm test" --runtime claude-code',
    details:
      "action: none (list), test, off or on. A rule (config.json answer_rules) answers a waiting agent's permission prompt whose declared message its pattern matches, after supervisor.answer_delay_ms in which you can still answer first, through the same path as `paneflow answer`: never a question, never past the scripting gate (serve with PANEFLOW_IPC_SCRIPTING=1, or ai_unrestricted). `rules test` exits 0 when a rule would answer, 1 when none would, and says why. `rules off` stops every rule until `rules on`, across restarts.",
    family: 'agents',
  },
  {
    name: 'status',
    summary: "One pane's agent status: a line, or the status object with --json. A pane with no agent is idle, no_agent.",
    args: [{ name: 'target' }],
    flags: { ...JSON_FLAG, ...SCOPE },
    example: 'paneflow status lead --json',
    family: 'agents',
  },
  {
    name: 'new',
    summary: 'Create a workspace with one shell pane, or one running a preset (starting Paneflow if it is not running).',
    args: [],
    flags: {
      name: { kind: 'string', value: 'NAME', help: 'the workspace name (default: the preset name)' },
      cwd: { kind: 'string', value: 'DIR', help: 'where the shell starts (must exist)' },
      preset: { kind: 'string', value: 'ID', help: "run a runtime's suggested preset (its command and env) instead of a shell" },
    },
    example: 'paneflow new --preset claude_code_team --cwd ~/src/api',
    details: "Presets are the runtimes' [[suggested_presets]] (runtimes/*/runtime.toml); `paneflow integrations list` shows them. An unknown id is a usage error (exit 2), refused before anything starts.",
    family: 'specs',
  },
  {
    name: 'select',
    summary: 'Make the workspace at this zero-based index the active one.',
    args: [{ name: 'index' }],
    flags: {},
    example: 'paneflow select 1',
    family: 'panes',
  },
  {
    name: 'split',
    summary: 'Split a pane (the focused one, or --target): h puts the new shell beside it, v below.',
    args: [{ name: 'direction' }],
    flags: { target: { kind: 'string', value: 'SEL', help: 'the pane to split' } },
    example: 'paneflow split v --target api',
    family: 'panes',
  },
  {
    name: 'restart',
    summary: "Start an exited or lost pane again: its agent's conversation resumed by id, else its latest one here, else its launch command.",
    args: [{ name: 'target' }],
    flags: { fresh: { kind: 'boolean', help: 'run the launch command, no resume' }, ...JSON_FLAG, ...SCOPE },
    example: 'paneflow restart lead',
    details: `${TARGET_HELP}. Waits up to 15 s for the resume to be confirmed (the agent reports again) or to fail (its runtime's failure text, or it exits): exit 1 when it failed, and nothing else is started in its place.`,
    family: 'panes',
  },
  {
    name: 'restore',
    summary: 'Restart every exited or lost agent pane (of one workspace, or all), two at a time, resuming their conversations.',
    args: [],
    flags: { workspace: { kind: 'string', value: 'NAME|INDEX', help: 'only this workspace' }, ...JSON_FLAG },
    example: 'paneflow restore --workspace api',
    details: 'Starts the instance if needed (after a reboot, `paneflow start` brings the workspaces back with their agents lost). Exit 1 when a resume failed.',
    family: 'panes',
  },
  {
    name: 'focus',
    summary: 'Focus a pane, and select its workspace.',
    args: [{ name: 'target' }],
    flags: { ...SCOPE },
    example: 'paneflow focus lead',
    family: 'panes',
  },
  {
    name: 'close',
    summary: "Close a pane (or with --workspace a whole workspace): its processes stopped, its managed worktree removed unless it holds work.",
    args: [{ name: 'target', optional: true }],
    flags: {
      workspace: { kind: 'boolean', help: 'close a workspace: <target> is its name or zero-based index (default: this one)' },
      force: { kind: 'boolean', help: 'close even an agent that is thinking or waiting, or a shell running a program' },
      yes: { kind: 'boolean', help: 'the same as --force' },
      'force-worktree': { kind: 'boolean', help: 'remove managed worktrees even with uncommitted changes or unpushed commits' },
      ...SCOPE,
    },
    example: 'paneflow close lead --force-worktree',
    details: `${TARGET_HELP}.
An agent thinking or waiting for input, or a program running in a shell, needs a yes: asked on a
terminal, else refused with exit 1 naming the pane and why (--force or --yes closes anyway). A
managed worktree with uncommitted changes, or commits no other branch or remote holds, is kept
and reported on stderr; its branch always stays. Exit 3 when the pane or workspace is not found.`,
    family: 'panes',
  },
  {
    name: 'send',
    summary: "Type text into a pane, verbatim (no CR unless --submit). '-' reads the text from stdin.",
    args: [{ name: 'target' }, { name: 'text' }],
    flags: {
      submit: { kind: 'boolean', help: 'press Enter after it; to an agent, confirmed by its state' },
      paste: { kind: 'boolean', help: 'send it as a paste (agents get one anyway)' },
      broadcast: { kind: 'boolean', help: 'to every pane the target matches; with --submit a busy agent is skipped (in failed)' },
      'report-file': { kind: 'string', value: 'PATH', help: 'ask the agent to write its report there and print REPORT_DONE <path>' },
      force: { kind: 'boolean', help: 'submit even to an agent that is thinking or waiting' },
      queue: { kind: 'boolean', help: "keep it until the agent's turn ends, then submit it (at once to an idle agent); see `paneflow queue`" },
      ...SCOPE,
    },
    example: 'paneflow send lead "Run the tests, then summarise." --submit',
    details:
      'Needs serve started with PANEFLOW_IPC_SCRIPTING=1 (or ai_unrestricted in the config). --queue is always a submit, to one\npane: it cannot go with --broadcast, --paste or --force; it prints {item, sent_now}.',
    family: 'panes',
  },
  {
    name: 'queue',
    summary: "The prompts queued for agents (`send --queue`), in the order they go: a table, or {queues} with --json. `queue rm ID`, `queue move ID POS`, `queue send-now ID` change them.",
    args: [
      { name: 'target', optional: true },
      { name: 'id', optional: true },
      { name: 'position', optional: true },
    ],
    flags: {
      ...JSON_FLAG,
      force: { kind: 'boolean', help: 'send-now: submit even to an agent that is thinking or waiting' },
      ...SCOPE,
    },
    example: 'paneflow queue move q7 1',
    details: `${TARGET_HELP}; none: every pane's queue. Each queued prompt goes as a submit once its agent's declared turn ends, one
per turn, in order. A queue is held (HELD, and a line below the table says why) when its agent declared an error, a delivery
started no turn, or serve refused one; \`queue send-now ID\` sends one now and releases the hold, as does the agent's next turn
ended normally. \`move ID POS\` puts it at POS (1: next). Exit 3 for an unknown pane or id; 1 when send-now's turn did not start
(as \`send --submit\`), or a write is refused (the gate: PANEFLOW_IPC_SCRIPTING=1).`,
    family: 'panes',
  },
  {
    name: 'key',
    summary: 'Press a key in a pane. Keys that would submit (enter, ctrl-m, ctrl-j) are refused, and any key to an agent waiting for an answer unless --force.',
    details: 'keystroke: [ctrl-|alt-|shift-]*<name>, name a character, space, tab, escape, backspace, delete, insert,\nup, down, left, right, home, end, pageup, pagedown or f1-f12. Needs PANEFLOW_IPC_SCRIPTING=1.',
    args: [{ name: 'target' }, { name: 'keystroke' }],
    flags: { force: { kind: 'boolean', help: 'press it even into an agent waiting for an answer, which it may answer' }, ...SCOPE },
    example: 'paneflow key lead ctrl-c',
    family: 'panes',
  },
  {
    name: 'wait',
    summary: 'Wait until a pane shows a pattern (--pattern) or its turn ends or its output settles (--idle). Exit 4 on timeout.',
    args: [],
    flags: {
      match: { kind: 'string', value: 'SEL', help: 'the pane(s) to watch (required)' },
      pattern: { kind: 'string', value: 'RE', help: 'a regular expression tested against each of the last 200 lines' },
      idle: { kind: 'boolean', help: "a declaring agent's turn is over; anything else has been quiet for --for ms" },
      for: { kind: 'integer', value: 'MS', help: 'quiet time for panes that declare nothing (default 1000)', range: { min: 1 } },
      timeout: { kind: 'integer', value: 'S', help: 'give up after S seconds, exit 4 (default 300)', range: { min: 1, max: Math.floor(TIMER_MAX_MS / 1000) } },
      any: { kind: 'boolean', help: 'every matching pane; the first to satisfy wins' },
      all: { kind: 'boolean', help: 'every matching pane; wait for all of them' },
      ...SCOPE,
    },
    example: 'paneflow wait --match lead --idle --timeout 600',
    family: 'agents',
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
    family: 'agents',
  },
  {
    name: 'sessions',
    summary: 'List the sessions behind the panes (a table, or {sessions} with --json); `sessions ack <id>…` clears unread.',
    args: [
      { name: 'action', optional: true },
      { name: 'ids', optional: true, rest: true },
    ],
    flags: {
      ...JSON_FLAG,
      follow: { kind: 'boolean', help: 'print a line per status or session change, reconnecting' },
      lost: { kind: 'boolean', help: 'only sessions that are not running, each with why (host died, machine restarted, exit code)' },
    },
    example: 'paneflow sessions --lost',
    family: 'agents',
  },
  {
    name: 'up',
    summary: 'Start a workspace from a spec file.',
    args: [{ name: 'file' }],
    flags: { 'dry-run': { kind: 'boolean', help: 'print the resolved plan; touch nothing' } },
    example: 'paneflow up team.toml --dry-run',
    details: 'Needs serve with PANEFLOW_IPC_ORCHESTRATION=1 (or scripting), asked before any worktree is made. Spec: REFERENCE.md §5.1; see examples/.',
    family: 'specs',
  },
  {
    name: 'flow run',
    summary: 'Run a multi-agent flow from a spec file.',
    args: [{ name: 'file' }],
    flags: { 'dry-run': { kind: 'boolean', help: 'validate and print the plan' }, ...JSON_FLAG, ...SCOPE },
    example: 'paneflow flow run review.toml --json',
    details:
      'Needs serve with PANEFLOW_IPC_ORCHESTRATION=1 or PANEFLOW_IPC_SCRIPTING=1; steps that submit or send need scripting (alone it will do). Checked before anything is made. Spec: REFERENCE.md §5.5; see examples/.',
    family: 'specs',
  },
  ...TOOL_VERBS,
];

/** Verbs of a group (`host start`, `flow run`) are its subcommands. */
export const GROUPS = [...new Set(VERBS.filter((v) => v.name.includes(' ')).map((v) => v.name.split(' ')[0]))];
