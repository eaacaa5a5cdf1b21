import texts from 'virtual:paneflow-runtimes';
import { CatalogError, configDir, parseCatalog, resolveAgent, resolvePath, runtimeCatalog } from '../src';

const catalog = runtimeCatalog();

test('the 13 runtimes load from runtimes/, in display order', () => {
  expect(catalog.runtimes.map((r) => [r.display.order, r.slug, r.tool])).toEqual([
    [0, 'claude-code', 'claude'],
    [1, 'codex', 'codex'],
    [2, 'opencode', 'opencode'],
    [3, 'pi', 'pi'],
    [4, 'hermes', 'hermes'],
    [5, 'grok', 'grok'],
    [6, 'amp', 'amp'],
    [8, 'gemini', 'gemini'],
    [11, 'github-copilot', 'copilot'],
    [13, 'factory', 'droid'],
    [15, 'openclaw', 'openclaw'],
    [17, 'muse-code', 'muse'],
    [18, 'fx', 'fx'],
  ]);
});

test('the facts of REFERENCE.md §6.2 hold', () => {
  const claude = catalog.bySlug.get('claude-code')!;
  expect(claude).toMatchObject({
    id: 'com.anthropic.claude-code',
    platforms: ['linux', 'macos', 'windows'],
    detection: { process_aliases: ['claude', 'claude-code'], script_path_signatures: ['@anthropic-ai/claude-code'] },
    integration: { hook_adapter: 'claude' },
    status: { first_version: '2.1.295' },
    resume: { session_argv: ['claude', '--resume', '{id}'], continue_argv: ['claude', '--continue'] },
  });
  expect(claude.suggested_presets).toEqual([
    expect.objectContaining({ id: 'claude_code_team', command: 'claude --teammate-mode tmux', tmux_compat: true, env: { CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1' } }),
  ]);
  expect(catalog.bySlug.get('codex')!.resume?.session_argv).toEqual(['codex', '-c', 'check_for_update_on_startup=false', 'resume', '{id}']);
  expect(catalog.bySlug.get('opencode')!.resume?.session_id_pattern).toBe('^ses_[A-Za-z0-9]+$');
  expect(catalog.bySlug.get('grok')!.detection.process_aliases).toEqual(['grok', 'grok-build']);
  expect(catalog.bySlug.get('fx')!.detection.title_prefix).toBe('fx v');
  expect(catalog.bySlug.get('openclaw')!.suggested_presets?.[0].command).toBe('openclaw tui');
  expect(catalog.runtimes.filter((r) => r.integration.hook_adapter !== 'none').map((r) => r.slug)).toEqual(['claude-code', 'codex']);
  expect(catalog.runtimes.filter((r) => r.sessions.reader !== 'none').map((r) => r.slug)).toEqual(['claude-code']);
});

describe('a descriptor that breaks the rules fails the catalog, naming the file', () => {
  const broken = (slug: string, edit: (text: string) => string) => () => parseCatalog({ ...texts, [slug]: edit(texts[slug]) });

  test('an unknown key', () => {
    expect(broken('pi', (t) => t.replace('[display]', '[display]\ncolour = "red"'))).toThrow(/runtimes\/pi\/runtime.toml: display: unknown key 'colour'/);
  });

  test('a missing field', () => {
    expect(broken('amp', (t) => t.replace(/^label = .*$/m, ''))).toThrow(/runtimes\/amp\/runtime.toml: \(top level\): missing key 'label'/);
  });

  test('a duplicate alias', () => {
    expect(broken('hermes', (t) => t.replace('process_aliases = ["hermes"]', 'process_aliases = ["hermes", "codex"]'))).toThrow(
      /runtimes\/hermes\/runtime.toml: duplicate alias 'codex'/,
    );
  });

  test('a duplicate order, a slug that is not its directory, an invalid regex', () => {
    const error = (() => {
      try {
        parseCatalog({
          ...texts,
          pi: texts.pi.replace('order = 3', 'order = 0').replace('slug = "pi"', 'slug = "pie"'),
          grok: texts.grok.replace(/session_id_pattern = '.*'/, "session_id_pattern = '(['"),
        });
      } catch (e) {
        return e as CatalogError;
      }
    })();
    expect(error).toBeInstanceOf(CatalogError);
    expect(error!.problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/runtimes\/pi\/runtime.toml: slug 'pie' is not its directory 'pi'/),
        expect.stringMatching(/runtimes\/grok\/runtime.toml: resume.session_id_pattern:/),
        expect.stringMatching(/duplicate order '0'/),
      ]),
    );
  });

  test("a session reader that is not known, or a pid_file reader without where to look", () => {
    expect(broken('pi', (t) => t.replace(/reader = ".*"/, 'reader = "pi"'))).toThrow(/runtimes\/pi\/runtime.toml: sessions.reader/);
    expect(broken('claude-code', (t) => t.replace(/^id_key = .*$/m, ''))).toThrow(/runtimes\/claude-code\/runtime.toml: sessions: reader 'pid_file' needs 'id_key'/);
  });

  test('a hook adapter or an MCP file without where to write', () => {
    expect(broken('codex', (t) => t.replace(/^hooks_file = .*$/m, ''))).toThrow(/runtimes\/codex\/runtime.toml: integration: hook_adapter 'codex' needs 'config_dir' and 'hooks_file'/);
    expect(broken('codex', (t) => t.replace(/^mcp_config = .*$/m, ''))).toThrow(/runtimes\/codex\/runtime.toml: integration: mcp_file needs 'config_dir' and 'mcp_config'/);
    expect(broken('claude-code', (t) => t.replace(/^config_dir = .*$/m, ''))).toThrow(/sessions: reader 'pid_file' needs 'integration.config_dir'/);
  });

  test('TOML that does not parse', () => {
    expect(broken('pi', (t) => t + '\nbroken = \n')).toThrow(/runtimes\/pi\/runtime.toml: .*line/);
  });
});

test.each([
  ['claude', 'claude-code'],
  ['claude-code', 'claude-code'],
  ['claude_code', 'claude-code'],
  ['Claude', 'claude-code'],
  ['codex', 'codex'],
  ['copilot', 'github-copilot'],
  ['github_copilot', 'github-copilot'],
  ['droid', 'factory'],
])('the agent name %s means %s', (name, slug) => {
  expect(resolveAgent(catalog, name)?.slug).toBe(slug);
});

test('an unknown agent name means nothing', () => {
  expect(resolveAgent(catalog, 'claudia')).toBeNull();
});

describe('where an agent keeps its configuration (`[integration]`)', () => {
  const claude = catalog.bySlug.get('claude-code')!;
  const codex = catalog.bySlug.get('codex')!;

  test('the agents that hooks and mcp wire are the ones whose descriptors say how', () => {
    expect(catalog.runtimes.filter((r) => r.integration.mcp_file).map((r) => [r.slug, r.integration.mcp_config])).toEqual([
      ['claude-code', 'claude'],
      ['codex', 'codex'],
    ]);
  });

  test('a set variable wins, else the directory under HOME; an empty variable is not set', () => {
    expect(configDir(claude, { HOME: '/home/u' })).toBe('/home/u/.claude');
    expect(configDir(claude, { HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg' })).toBe('/cfg');
    expect(configDir(codex, { HOME: '/home/u', CODEX_HOME: '' })).toBe('/home/u/.codex');
    expect(configDir(claude, {})).toBeNull();
  });

  test('a file candidate is `$VAR/…`, `~/…`, or a path under the config directory', () => {
    expect(resolvePath(claude.integration.mcp_file!, { HOME: '/home/u' }, '/home/u/.claude')).toBe('/home/u/.claude.json');
    expect(resolvePath(claude.integration.mcp_file!, { HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg' }, '/cfg')).toBe('/cfg/.claude.json');
    expect(resolvePath(codex.integration.mcp_file!, { HOME: '/home/u' }, '/home/u/.codex')).toBe('/home/u/.codex/config.toml');
  });
});
