import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { makeHome, ROOT, type Home } from '@paneflow/testing';

const HOOK = join(ROOT, 'apps/ai-hook/dist/paneflow-ai-hook.cjs');
const MCP = join(ROOT, 'apps/mcp/dist/paneflow-mcp.cjs');
const EVENTS = ['SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse', 'Notification', 'Stop', 'SubagentStart', 'SubagentStop'];

/** Settings that already hold the user's own hooks, and keys around them. */
const USER_SETTINGS = {
  model: 'opus',
  hooks: {
    Stop: [{ hooks: [{ type: 'command', command: 'say done' }] }],
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '~/bin/audit-bash', timeout: 3 }] }],
    Custom: [{ hooks: [{ type: 'command', command: 'mine' }] }],
  },
  permissions: { allow: ['Bash(npm test)'] },
};
const CLAUDE_SUMMARY = "Anthropic's coding agent in the terminal. Turn status appears as it reports it through OSC 7501 (2.1.295 and later).";
const CODEX_SUMMARY = "OpenAI's coding agent in the terminal. Turn status appears as it reports it through OSC 7501.";
const USER_TOML = '# my codex config\nmodel = "o4"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # keep me\nargs = ["--port", "1"]\n';

let home: Home;
let user: string;
const read = (path: string) => readFileSync(join(user, path), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed config files, read field by field
const json = (path: string) => JSON.parse(read(path)) as Record<string, any>;

beforeEach(() => {
  home = makeHome();
  user = home.env.HOME!;
  // opencode's config follows XDG_CONFIG_HOME: never the real one.
  home.env.XDG_CONFIG_HOME = join(user, '.config');
  mkdirSync(join(user, '.claude'));
  mkdirSync(join(user, '.codex'));
  writeFileSync(join(user, '.claude/settings.json'), JSON.stringify(USER_SETTINGS, null, 2));
  chmodSync(join(user, '.claude/settings.json'), 0o640);
  writeFileSync(join(user, '.codex/hooks.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-send codex' }] }] } }));
  writeFileSync(join(user, '.codex/config.toml'), USER_TOML);
  writeFileSync(join(user, '.claude.json'), JSON.stringify({ numStartups: 3, mcpServers: { github: { type: 'stdio', command: 'gh-mcp', args: [], env: {} } } }));
});
afterEach(() => home.cleanup());

describe('paneflow hooks', () => {
  test('setup merges nine managed events beside the user’s own hooks, idempotently, with a backup and the file’s mode', () => {
    const first = home.run(['hooks', 'setup']);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(`claude-code: hooks installed in ${user}/.claude/settings.json`);
    expect(first.stdout).toContain(`codex: hooks installed in ${user}/.codex/hooks.json`);
    expect(first.stdout).toContain('codex: trust the hooks once in Codex with /hooks');

    const settings = json('.claude/settings.json');
    expect(Object.keys(settings)).toEqual(['model', 'hooks', 'permissions']);
    expect(Object.keys(settings.hooks)).toEqual(['Stop', 'PreToolUse', 'Custom', 'SessionStart', 'SessionEnd', 'UserPromptSubmit', 'PostToolUse', 'Notification', 'SubagentStart', 'SubagentStop']);
    for (const event of EVENTS) {
      const managed = settings.hooks[event].filter((g: Record<string, unknown>) => g._paneflow_managed === true);
      expect(managed).toEqual([{ _paneflow_managed: true, hooks: [{ type: 'command', command: `'${HOOK}' ${event}`, timeout: 5 }] }]);
    }
    // The user's groups stay first and untouched.
    expect(settings.hooks.Stop[0]).toEqual(USER_SETTINGS.hooks.Stop[0]);
    expect(settings.hooks.PreToolUse[0]).toEqual(USER_SETTINGS.hooks.PreToolUse[0]);
    expect(settings.hooks.Custom).toEqual(USER_SETTINGS.hooks.Custom);
    expect(JSON.parse(read('.claude/settings.json.bak'))).toEqual(USER_SETTINGS);
    expect(statSync(join(user, '.claude/settings.json')).mode & 0o777).toBe(0o640);

    const codex = json('.codex/hooks.json');
    expect(codex.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: 'notify-send codex' }] }, { _paneflow_managed: true, hooks: [{ type: 'command', command: `'${HOOK}' --tool codex Stop`, timeout: 5 }] }]);

    const before = { text: read('.claude/settings.json'), mtime: statSync(join(user, '.claude/settings.json')).mtimeMs, codex: read('.codex/hooks.json') };
    const second = home.run(['hooks', 'setup']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('claude-code: hooks already installed in');
    expect(read('.claude/settings.json')).toBe(before.text);
    expect(statSync(join(user, '.claude/settings.json')).mtimeMs).toBe(before.mtime);
    expect(read('.codex/hooks.json')).toBe(before.codex);
  });

  test('status: installed, outdated, partial, absent, not_detected; always exit 0', () => {
    expect(home.run(['hooks', 'status']).stdout).toBe(`claude-code: absent (${user}/.claude/settings.json)\n  ${CLAUDE_SUMMARY}\ncodex: absent (${user}/.codex/hooks.json)\n  ${CODEX_SUMMARY}\n`);
    home.run(['hooks', 'setup']);
    expect(home.run(['hooks', 'status']).stdout).toMatch(/^claude-code: installed \(.*\)\n {2}.*\ncodex: installed \(.*\)\n {2}.*\n$/);

    const settings = json('.claude/settings.json');
    settings.hooks.Stop.find((g: Record<string, unknown>) => g._paneflow_managed).hooks[0].timeout = 9;
    writeFileSync(join(user, '.claude/settings.json'), JSON.stringify(settings));
    expect(home.run(['hooks', 'status']).stdout).toMatch(/^claude-code: outdated/);
    delete settings.hooks.SubagentStop;
    writeFileSync(join(user, '.claude/settings.json'), JSON.stringify(settings));
    expect(home.run(['hooks', 'status']).stdout).toMatch(/^claude-code: partial/);
    // A second setup repairs both, in place.
    home.run(['hooks', 'setup']);
    expect(home.run(['hooks', 'status']).stdout).toMatch(/^claude-code: installed/);
    expect(json('.claude/settings.json').hooks.Stop.filter((g: Record<string, unknown>) => g._paneflow_managed)).toHaveLength(1);

    const bare = makeHome();
    bare.env.XDG_CONFIG_HOME = join(bare.dir, 'xdg');
    try {
      const result = bare.run(['hooks', 'status'], { env: { PATH: '/usr/bin:/bin' } });
      expect([result.code, result.stdout]).toEqual([0, `claude-code: not_detected\n  ${CLAUDE_SUMMARY}\ncodex: not_detected\n  ${CODEX_SUMMARY}\n`]);
      expect(bare.run(['hooks', 'setup'], { env: { PATH: '/usr/bin:/bin' } }).stdout).toBe(['claude-code', 'codex', 'opencode', 'gemini'].map((slug) => `${slug}: not_detected (skipped)\n`).join(''));
    } finally {
      bare.cleanup();
    }
  });

  test('uninstall removes only the managed entries, hooks and MCP server both', () => {
    home.run(['hooks', 'setup']);
    const result = home.run(['hooks', 'uninstall']);
    expect(result.code).toBe(0);
    expect(json('.claude/settings.json')).toEqual(USER_SETTINGS);
    expect(json('.codex/hooks.json')).toEqual({ hooks: { Stop: [{ hooks: [{ type: 'command', command: 'notify-send codex' }] }] } });
    expect(json('.claude.json')).toEqual({ numStartups: 3, mcpServers: { github: { type: 'stdio', command: 'gh-mcp', args: [], env: {} } } });
    expect(read('.codex/config.toml')).toBe(USER_TOML);
    expect(home.run(['hooks', 'uninstall']).stdout).toContain('claude-code: hooks not in');
  });

  test('a settings file that is not valid JSON is never overwritten: a clear error, exit 1, and the other runtime still done', () => {
    writeFileSync(join(user, '.claude/settings.json'), '{"hooks": {,}');
    const result = home.run(['hooks', 'setup']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`paneflow: claude-code: ${user}/.claude/settings.json is not valid JSON`);
    expect(result.stderr).toContain('left untouched');
    expect(read('.claude/settings.json')).toBe('{"hooks": {,}');
    expect(existsSync(join(user, '.claude/settings.json.bak'))).toBe(false);
    expect(result.stdout).toContain('codex: hooks installed in');
    expect(home.run(['hooks', 'status']).code).toBe(0);
    expect(home.run(['hooks', 'uninstall']).code).toBe(1);
  });

  test('a symlinked settings file is edited where it lives and stays a symlink', () => {
    const real = join(home.dir, 'dotfiles-settings.json');
    writeFileSync(real, JSON.stringify(USER_SETTINGS));
    rmSync(join(user, '.claude/settings.json'));
    symlinkSync(real, join(user, '.claude/settings.json'));
    expect(home.run(['hooks', 'setup']).code).toBe(0);
    expect(lstatSync(join(user, '.claude/settings.json')).isSymbolicLink()).toBe(true);
    expect(Object.keys(JSON.parse(readFileSync(real, 'utf8')).hooks)).toHaveLength(10);
  });

  test('CLAUDE_CONFIG_DIR and CODEX_HOME move the files', () => {
    const claudeDir = join(home.dir, 'claude-cfg');
    const codexHome = join(home.dir, 'codex-home');
    const env = { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: codexHome, PATH: `${join(home.dir, 'bin')}:/usr/bin:/bin` };
    mkdirSync(codexHome);
    expect(home.run(['hooks', 'setup'], { env }).code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(claudeDir, 'settings.json'), 'utf8')).hooks)).toEqual(EVENTS);
    expect(JSON.parse(readFileSync(join(claudeDir, '.claude.json'), 'utf8')).mcpServers.paneflow.command).toBe(MCP);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe(`[mcp_servers.paneflow]\ncommand = ${JSON.stringify(MCP)}\nargs = []\n`);
  });
});

describe('paneflow mcp', () => {
  test('install writes exactly what `claude mcp add --scope user paneflow -- <path>` writes, and the Codex table', () => {
    const result = home.run(['mcp', 'install']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`claude-code: MCP server installed in ${user}/.claude.json\ncodex: MCP server installed in ${user}/.codex/config.toml\nopencode: not_detected (skipped)\ngemini: not_detected (skipped)\n`);
    const claude = json('.claude.json');
    expect(JSON.stringify(claude.mcpServers.paneflow)).toBe(`{"type":"stdio","command":${JSON.stringify(MCP)},"args":[],"env":{}}`);
    expect(Object.keys(claude)).toEqual(['numStartups', 'mcpServers']);
    expect(Object.keys(claude.mcpServers)).toEqual(['github', 'paneflow']);
    expect(read('.codex/config.toml')).toBe(`${USER_TOML}\n[mcp_servers.paneflow]\ncommand = ${JSON.stringify(MCP)}\nargs = []\n`);
    expect(read('.claude.json.bak')).toContain('"numStartups":3');

    const before = [read('.claude.json'), read('.codex/config.toml')];
    expect(home.run(['mcp', 'install']).stdout).toContain('already installed');
    expect([read('.claude.json'), read('.codex/config.toml')]).toEqual(before);
    expect(home.run(['mcp', 'status']).stdout).toBe(`claude-code: installed (${user}/.claude.json)\ncodex: installed (${user}/.codex/config.toml)\nopencode: not_detected\ngemini: not_detected\n`);
  });

  test('a moved binary shows as outdated and a new install updates the entry in place, keeping the user’s env', () => {
    home.run(['mcp', 'install'], { env: { PANEFLOW_MCP_BIN: '/old/paneflow-mcp' } });
    const claude = json('.claude.json');
    claude.mcpServers.paneflow.env = { PANEFLOW_MCP_SCOPE: 'all' };
    writeFileSync(join(user, '.claude.json'), JSON.stringify(claude));
    expect(home.run(['mcp', 'status']).stdout).toMatch(/^claude-code: outdated .*\ncodex: outdated /);
    home.run(['mcp', 'install']);
    const toml = read('.codex/config.toml');
    expect(toml.match(/\[mcp_servers\.paneflow\]/g)).toHaveLength(1);
    expect(toml).not.toContain('/old/');
    expect(home.run(['mcp', 'status']).stdout).toMatch(/^claude-code: installed .*\ncodex: installed /);
    expect(json('.claude.json').mcpServers.paneflow).toEqual({ type: 'stdio', command: MCP, args: [], env: { PANEFLOW_MCP_SCOPE: 'all' } });
  });

  test('uninstall removes only the paneflow entries; a config.toml that is not TOML is left alone', () => {
    home.run(['mcp', 'install']);
    expect(home.run(['mcp', 'uninstall']).code).toBe(0);
    expect(json('.claude.json').mcpServers).toEqual({ github: { type: 'stdio', command: 'gh-mcp', args: [], env: {} } });
    expect(read('.codex/config.toml')).toBe(USER_TOML);

    writeFileSync(join(user, '.codex/config.toml'), 'model = \n');
    const result = home.run(['mcp', 'install']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`paneflow: codex: ${user}/.codex/config.toml is not valid TOML`);
    expect(read('.codex/config.toml')).toBe('model = \n');
    expect(result.stdout).toContain('claude-code: MCP server installed in');
  });
});

describe('paneflow integrations', () => {
  /** Every file under the temp home, with its content: what a refused command must leave as it was. */
  const snapshot = (dir = user): Record<string, string> =>
    Object.fromEntries(
      (readdirSync(dir, { recursive: true, withFileTypes: true }) as Dirent[])
        .filter((e) => e.isFile())
        .map((e) => join(e.parentPath, e.name))
        .map((path) => [path, readFileSync(path, 'utf8')]),
    );
  const GEMINI_USER = { theme: 'Dracula', mcpServers: { docs: { command: 'docs-mcp', args: ['--stdio'] } }, general: { vimMode: true } };
  const OPENCODE_USER = { $schema: 'https://opencode.ai/config.json', model: 'anthropic/claude-sonnet-4-5', mcp: { jira: { type: 'remote', url: 'https://jira.example.com/mcp', enabled: false } } };

  test('list shows every agent of the catalog: what it has wired, in which file, and its summary; exit 0', () => {
    const first = home.run(['integrations', 'list']);
    expect(first.code).toBe(0);
    const lines = first.stdout.split('\n');
    expect(lines.filter((l) => !l.startsWith('  ') && l !== '').map((l) => l.split(':')[0])).toEqual(
      ['claude-code', 'codex', 'opencode', 'pi', 'hermes', 'grok', 'amp', 'gemini', 'github-copilot', 'factory', 'openclaw', 'muse-code', 'fx'],
    );
    expect(lines.slice(0, 2)).toEqual([`claude-code: absent — hooks absent (${user}/.claude/settings.json), MCP server absent (${user}/.claude.json)`, `  ${CLAUDE_SUMMARY}`]);
    expect(first.stdout).toContain('opencode: not_detected\n');
    expect(first.stdout).toContain('pi: none (no hooks or MCP server to install)\n  A minimal coding agent.');

    home.run(['mcp', 'install']);
    expect(home.run(['integrations', 'list']).stdout).toContain(`claude-code: partial — hooks absent (${user}/.claude/settings.json), MCP server installed (${user}/.claude.json)\n`);
    home.run(['hooks', 'setup']);
    expect(home.run(['integrations', 'list']).stdout).toMatch(/^claude-code: installed — hooks installed \(.*\), MCP server installed \(.*\)\n(?: {2}.*\n)+codex: installed — /);
  });

  test('install <runtime> registers the MCP server with Gemini CLI as its settings.json reads it, once, keeping the user’s settings; remove takes exactly that out', () => {
    mkdirSync(join(user, '.gemini'));
    writeFileSync(join(user, '.gemini/settings.json'), JSON.stringify(GEMINI_USER, null, 2));
    const result = home.run(['integrations', 'install', 'gemini']);
    expect([result.code, result.stdout]).toEqual([0, `gemini: MCP server installed in ${user}/.gemini/settings.json\n`]);
    const settings = JSON.parse(read('.gemini/settings.json'));
    expect(Object.keys(settings)).toEqual(['theme', 'mcpServers', 'general']);
    expect(settings.mcpServers).toEqual({ docs: GEMINI_USER.mcpServers.docs, paneflow: { command: MCP, args: [], trust: true } });
    expect(JSON.parse(read('.gemini/settings.json.bak'))).toEqual(GEMINI_USER);

    const before = { text: read('.gemini/settings.json'), mtime: statSync(join(user, '.gemini/settings.json')).mtimeMs };
    expect(home.run(['integrations', 'install', 'gemini']).stdout).toBe(`gemini: MCP server already installed in ${user}/.gemini/settings.json\n`);
    expect([read('.gemini/settings.json'), statSync(join(user, '.gemini/settings.json')).mtimeMs]).toEqual([before.text, before.mtime]);
    expect(home.run(['mcp', 'status']).stdout).toContain(`gemini: installed (${user}/.gemini/settings.json)`);

    // The user's own keys on Paneflow's entry stay through a reinstall that moves the binary.
    const edited = JSON.parse(read('.gemini/settings.json'));
    edited.mcpServers.paneflow.env = { PANEFLOW_MCP_SCOPE: 'all' };
    edited.mcpServers.paneflow.command = '/old/paneflow-mcp';
    writeFileSync(join(user, '.gemini/settings.json'), JSON.stringify(edited));
    expect(home.run(['integrations', 'list']).stdout).toContain(`gemini: outdated — MCP server outdated (${user}/.gemini/settings.json)`);
    home.run(['integrations', 'install', 'gemini']);
    expect(JSON.parse(read('.gemini/settings.json')).mcpServers.paneflow).toEqual({ command: MCP, args: [], trust: true, env: { PANEFLOW_MCP_SCOPE: 'all' } });

    const removed = home.run(['integrations', 'remove', 'gemini']);
    expect([removed.code, removed.stdout]).toEqual([0, `gemini: MCP server removed from ${user}/.gemini/settings.json\n`]);
    expect(JSON.parse(read('.gemini/settings.json'))).toEqual(GEMINI_USER);
    expect(home.run(['integrations', 'remove', 'gemini']).stdout).toBe(`gemini: MCP server not in ${user}/.gemini/settings.json\n`);
  });

  test('with GEMINI_CLI_HOME set, Gemini CLI’s settings are $GEMINI_CLI_HOME/.gemini/settings.json, and ~/.gemini is not touched', () => {
    const geminiHome = join(home.dir, 'gemini-home');
    mkdirSync(join(geminiHome, '.gemini'), { recursive: true });
    mkdirSync(join(user, '.gemini'));
    const env = { GEMINI_CLI_HOME: geminiHome };
    const result = home.run(['integrations', 'install', 'gemini'], { env });
    expect([result.code, result.stdout]).toEqual([0, `gemini: MCP server installed in ${geminiHome}/.gemini/settings.json\n`]);
    expect(JSON.parse(readFileSync(join(geminiHome, '.gemini/settings.json'), 'utf8')).mcpServers.paneflow).toEqual({ command: MCP, args: [], trust: true });
    expect(readdirSync(join(user, '.gemini'))).toEqual([]);
    expect(home.run(['mcp', 'status'], { env }).stdout).toContain(`gemini: installed (${geminiHome}/.gemini/settings.json)`);
  });

  test('opencode gets a `type: "local"` entry with its argv as `command`, in $XDG_CONFIG_HOME/opencode (else ~/.config/opencode), even before it is detected', () => {
    const xdg = join(home.dir, 'xdg');
    mkdirSync(join(xdg, 'opencode'), { recursive: true });
    writeFileSync(join(xdg, 'opencode/opencode.json'), JSON.stringify(OPENCODE_USER, null, 2));
    expect(home.run(['integrations', 'install', 'opencode'], { env: { XDG_CONFIG_HOME: xdg } }).code).toBe(0);
    const config = JSON.parse(readFileSync(join(xdg, 'opencode/opencode.json'), 'utf8'));
    expect(Object.keys(config)).toEqual(['$schema', 'model', 'mcp']);
    expect(config.mcp).toEqual({ jira: OPENCODE_USER.mcp.jira, paneflow: { type: 'local', command: [MCP], enabled: true } });
    expect(home.run(['integrations', 'remove', 'opencode'], { env: { XDG_CONFIG_HOME: xdg } }).code).toBe(0);
    expect(JSON.parse(readFileSync(join(xdg, 'opencode/opencode.json'), 'utf8'))).toEqual(OPENCODE_USER);

    // Nothing there yet: the file is made, private to the user.
    delete home.env.XDG_CONFIG_HOME;
    const fresh = home.run(['integrations', 'install', 'opencode']);
    expect([fresh.code, fresh.stdout]).toEqual([0, `opencode: MCP server installed in ${user}/.config/opencode/opencode.json\n`]);
    expect(JSON.parse(read('.config/opencode/opencode.json'))).toEqual({ mcp: { paneflow: { type: 'local', command: [MCP], enabled: true } } });
    expect(statSync(join(user, '.config/opencode/opencode.json')).mode & 0o777).toBe(0o600);
  });

  test('a runtime is named by slug or command; Claude Code gets both hooks and MCP server, Codex its post-install step', () => {
    const claude = home.run(['integrations', 'install', 'claude']);
    expect([claude.code, claude.stdout]).toEqual([0, `claude-code: hooks installed in ${user}/.claude/settings.json\nclaude-code: MCP server installed in ${user}/.claude.json\n`]);
    expect(home.run(['integrations', 'install', 'codex']).stdout).toContain('codex: trust the hooks once in Codex with /hooks\n');
    // Only the named runtime was touched.
    expect(read('.codex/config.toml')).toContain('[mcp_servers.paneflow]');
    expect(home.run(['integrations', 'remove', 'claude-code']).code).toBe(0);
    expect(json('.claude/settings.json')).toEqual(USER_SETTINGS);
    expect(read('.codex/config.toml')).toContain('[mcp_servers.paneflow]');
  });

  test('refused, changing nothing: an unknown runtime (exit 2), one with nothing to wire (exit 1), a missing name (exit 2)', () => {
    const before = snapshot();
    const unknown = home.run(['integrations', 'install', 'claudia']);
    expect([unknown.code, unknown.stdout]).toEqual([2, '']);
    expect(unknown.stderr).toMatch(/^paneflow: unknown runtime 'claudia'; one of: claude-code, codex, opencode, pi, /);
    const nothing = home.run(['integrations', 'remove', 'pi']);
    expect([nothing.code, nothing.stdout]).toEqual([1, '']);
    expect(nothing.stderr).toBe('paneflow: pi: Pi has no integration to install (no hooks, no MCP server list); these do: claude-code, codex, opencode, gemini\n');
    expect(home.run(['integrations', 'install']).code).toBe(2);
    expect(home.run(['integrations', 'frobnicate', 'gemini']).code).toBe(2);
    expect(snapshot()).toEqual(before);
  });

  test('a malformed file is never rewritten: its path, line and column on stderr, exit 1, no backup', () => {
    mkdirSync(join(user, '.gemini'));
    const broken = '{\n  "theme": "Dracula",\n  "mcpServers": { "docs": { "command": "docs-mcp" } },,\n}\n';
    writeFileSync(join(user, '.gemini/settings.json'), broken);
    const before = snapshot();
    for (const verb of ['install', 'remove']) {
      const result = home.run(['integrations', verb, 'gemini']);
      expect([result.code, result.stdout]).toEqual([1, '']);
      expect(result.stderr).toMatch(new RegExp(`^paneflow: gemini: ${user}/\\.gemini/settings\\.json is not valid JSON \\(.* at line 3 column 55\\); left untouched\\n$`));
    }
    expect(snapshot()).toEqual(before);
    expect(home.run(['integrations', 'list']).stdout).toContain('gemini: absent — MCP server absent (');

    // Valid JSON in a shape that is not the agent's: also left as it is.
    writeFileSync(join(user, '.gemini/settings.json'), '{"mcpServers": ["docs"]}');
    const shape = home.run(['integrations', 'install', 'gemini']);
    expect(shape.code).toBe(1);
    expect(shape.stderr).toContain(`${user}/.gemini/settings.json: "mcpServers" is not an object; left untouched`);
    expect(read('.gemini/settings.json')).toBe('{"mcpServers": ["docs"]}');
  });
});
