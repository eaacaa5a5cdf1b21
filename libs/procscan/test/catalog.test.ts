import texts from 'virtual:paneflow-runtimes';
import { answerInput, answerSettleMs, answersFor, CatalogError, configDir, findPreset, parseCatalog, platformOf, resolveAgent, resolvePath, runtimeCatalog, suggestedPresets } from '../src';

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

  test('an answers table that answers nothing, or an answer name that is not a word', () => {
    expect(broken('pi', (t) => `${t}\n[answers.permission]\ntext = false\n`)).toThrow(/runtimes\/pi\/runtime.toml: answers.permission: needs 'choices' or 'text = true'/);
    expect(broken('pi', (t) => `${t}\n[answers.question]\nchoices = { "Yes!" = "1" }\n`)).toThrow(/runtimes\/pi\/runtime.toml: answers.question.choices/);
    expect(broken('pi', (t) => `${t}\n[answers.nap]\ntext = true\n`)).toThrow(/runtimes\/pi\/runtime.toml: answers: unknown key 'nap'/);
    expect(broken('pi', (t) => `${t}\n[answers.question]\ntext = true\nsettle_ms = 60000\n`)).toThrow(/runtimes\/pi\/runtime.toml: answers.question.settle_ms/);
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
      ['opencode', 'opencode'],
      ['gemini', 'gemini'],
    ]);
  });

  test('a set variable wins, else the directory under HOME; an empty variable is not set', () => {
    expect(configDir(claude, { HOME: '/home/u' })).toBe('/home/u/.claude');
    expect(configDir(claude, { HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg' })).toBe('/cfg');
    expect(configDir(codex, { HOME: '/home/u', CODEX_HOME: '' })).toBe('/home/u/.codex');
    expect(configDir(claude, {})).toBeNull();
  });

  test("GEMINI_CLI_HOME stands in for Gemini CLI's home: its settings are under $GEMINI_CLI_HOME/.gemini", () => {
    const gemini = catalog.bySlug.get('gemini')!;
    expect(configDir(gemini, { HOME: '/home/u' })).toBe('/home/u/.gemini');
    expect(configDir(gemini, { HOME: '/home/u', GEMINI_CLI_HOME: '/job' })).toBe('/job/.gemini');
    expect(configDir(gemini, { HOME: '/home/u', GEMINI_CLI_HOME: '' })).toBe('/home/u/.gemini');
    expect(resolvePath(gemini.integration.mcp_file!, { HOME: '/home/u', GEMINI_CLI_HOME: '/job' }, '/job/.gemini')).toBe('/job/.gemini/settings.json');
  });

  test('a file candidate is `$VAR/…`, `~/…`, or a path under the config directory', () => {
    expect(resolvePath(claude.integration.mcp_file!, { HOME: '/home/u' }, '/home/u/.claude')).toBe('/home/u/.claude.json');
    expect(resolvePath(claude.integration.mcp_file!, { HOME: '/home/u', CLAUDE_CONFIG_DIR: '/cfg' }, '/cfg')).toBe('/cfg/.claude.json');
    expect(resolvePath(codex.integration.mcp_file!, { HOME: '/home/u' }, '/home/u/.codex')).toBe('/home/u/.codex/config.toml');
  });
});

describe('how a waiting agent is answered (`[answers]`)', () => {
  const claude = catalog.bySlug.get('claude-code')!;

  test("Claude Code's permission menu: a digit per answer, in the menu's order; its question takes text", () => {
    expect(answersFor(claude, 'permission')).toEqual({ choices: ['yes', 'always', 'no'], text: false });
    expect(answerInput(claude, 'permission', 'yes')).toEqual({ keys: '1' });
    expect(answerInput(claude, 'permission', 'no')).toEqual({ keys: '\x1b' });
    expect(answersFor(claude, 'question')).toEqual({ choices: [], text: true });
    expect(answerInput(claude, 'question', 'use atlas')).toEqual({ text: 'use atlas' });
    // It reports a menu before the menu takes keys.
    expect([answerSettleMs(claude, 'permission'), answerSettleMs(claude, 'question'), answerSettleMs(claude, 'auth')]).toEqual([1000, 1000, 0]);
  });

  test('an answer a prompt does not take, a kind without answers, a runtime without any: nothing to type', () => {
    expect(answerInput(claude, 'permission', 'maybe')).toBeNull();
    expect(answerInput(claude, 'permission', 'constructor')).toBeNull();
    expect(answersFor(claude, 'auth')).toBeNull();
    expect(answersFor(claude, null)).toBeNull();
    expect(answersFor(catalog.bySlug.get('pi'), 'permission')).toBeNull();
    expect(answersFor(undefined, 'permission')).toBeNull();
  });
});

describe('launcher presets (`[[suggested_presets]]`)', () => {
  test('Node’s and browsers’ platform names', () => {
    expect(['linux', 'darwin', 'win32', 'Linux x86_64', 'MacIntel', 'Win32'].map(platformOf)).toEqual(['linux', 'macos', 'windows', 'linux', 'macos', 'windows']);
  });

  test('the presets of a platform are those of its agents, in display order; an id finds its preset and agent', () => {
    expect(suggestedPresets(catalog, 'linux').map((p) => [p.id, p.runtime.slug])).toEqual([
      ['claude_code_team', 'claude-code'],
      ['openclaw_tui', 'openclaw'],
    ]);
    // OpenClaw runs on Linux and macOS only.
    expect(suggestedPresets(catalog, 'windows').map((p) => p.id)).toEqual(['claude_code_team']);
    expect(findPreset(catalog, 'openclaw_tui', 'linux')).toMatchObject({ command: 'openclaw tui', runtime: { slug: 'openclaw' } });
    expect(findPreset(catalog, 'openclaw_tui', 'windows')).toBeNull();
    expect(findPreset(catalog, 'claude_code_solo', 'linux')).toBeNull();
  });

  test('a preset limited to some platforms is offered only there', () => {
    const limited = parseCatalog({ ...texts, openclaw: texts.openclaw.replace('command = "openclaw tui"', 'command = "openclaw tui"\nplatforms = ["macos"]') });
    expect(suggestedPresets(limited, 'linux').map((p) => p.id)).toEqual(['claude_code_team']);
    expect(suggestedPresets(limited, 'macos').map((p) => p.id)).toEqual(['claude_code_team', 'openclaw_tui']);
  });

  test('a preset id used by two runtimes is refused', () => {
    const twice = { ...texts, openclaw: texts.openclaw.replace('id = "openclaw_tui"', 'id = "claude_code_team"') };
    expect(() => parseCatalog(twice)).toThrow(/runtimes\/openclaw\/runtime.toml: duplicate preset id 'claude_code_team' \(also in claude-code\)/);
  });
});
