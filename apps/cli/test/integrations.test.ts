import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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
const USER_TOML = '# my codex config\nmodel = "o4"\n\n[mcp_servers.docs]\ncommand = "docs-mcp" # keep me\nargs = ["--port", "1"]\n';

let home: Home;
let user: string;
const read = (path: string) => readFileSync(join(user, path), 'utf8');
const json = (path: string) => JSON.parse(read(path)) as Record<string, any>;

beforeEach(() => {
  home = makeHome();
  user = home.env.HOME!;
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
    expect(home.run(['hooks', 'status']).stdout).toBe(`claude-code: absent (${user}/.claude/settings.json)\ncodex: absent (${user}/.codex/hooks.json)\n`);
    home.run(['hooks', 'setup']);
    expect(home.run(['hooks', 'status']).stdout).toMatch(/^claude-code: installed \(.*\)\ncodex: installed \(.*\)\n$/);

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
    try {
      const result = bare.run(['hooks', 'status'], { env: { PATH: '/usr/bin:/bin' } });
      expect([result.code, result.stdout]).toEqual([0, 'claude-code: not_detected\ncodex: not_detected\n']);
      expect(bare.run(['hooks', 'setup'], { env: { PATH: '/usr/bin:/bin' } }).stdout).toBe('claude-code: not_detected (skipped)\ncodex: not_detected (skipped)\n');
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
    expect(result.stdout).toBe(`claude-code: MCP server installed in ${user}/.claude.json\ncodex: MCP server installed in ${user}/.codex/config.toml\n`);
    const claude = json('.claude.json');
    expect(JSON.stringify(claude.mcpServers.paneflow)).toBe(`{"type":"stdio","command":${JSON.stringify(MCP)},"args":[],"env":{}}`);
    expect(Object.keys(claude)).toEqual(['numStartups', 'mcpServers']);
    expect(Object.keys(claude.mcpServers)).toEqual(['github', 'paneflow']);
    expect(read('.codex/config.toml')).toBe(`${USER_TOML}\n[mcp_servers.paneflow]\ncommand = ${JSON.stringify(MCP)}\nargs = []\n`);
    expect(read('.claude.json.bak')).toContain('"numStartups":3');

    const before = [read('.claude.json'), read('.codex/config.toml')];
    expect(home.run(['mcp', 'install']).stdout).toContain('already installed');
    expect([read('.claude.json'), read('.codex/config.toml')]).toEqual(before);
    expect(home.run(['mcp', 'status']).stdout).toBe(`claude-code: installed (${user}/.claude.json)\ncodex: installed (${user}/.codex/config.toml)\n`);
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
