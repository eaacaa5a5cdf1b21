import { matchProcess, runtimeCatalog } from '../src';

const catalog = runtimeCatalog();
const match = (argv: string[], exe?: string, title?: string) => {
  const m = matchProcess({ argv, exe, title }, catalog);
  return m ? `${m.runtime.slug}:${m.strength}` : null;
};

describe('direct matches (REFERENCE.md §6.3.4)', () => {
  const aliases = catalog.runtimes.flatMap((r) =>
    [...r.detection.process_aliases, ...r.detection.command_aliases].map((alias) => [alias, r.slug] as const),
  );
  test.each(aliases.filter(([, slug]) => slug !== 'fx'))('%s is %s', (alias, slug) => {
    expect(match([alias])).toBe(`${slug}:direct`);
    expect(match([`/usr/local/bin/${alias}`, '--flag'])).toBe(`${slug}:direct`);
  });

  test.each([
    [['/home/me/.npm/_npx/1/node_modules/@anthropic-ai/claude-code/bin/claude.exe'], 'claude-code'],
    [['-claude'], 'claude-code'],
    [['"C:\\Program Files\\Claude\\claude.exe"'], 'claude-code'],
    [['CODEX.CMD'], 'codex'],
    [['gemini.js'], 'gemini'],
    [['grok-build'], 'grok'],
  ])('%j is %s (basename, login dash, quotes, case and extensions dropped)', (argv, slug) => {
    expect(match(argv)).toBe(`${slug}:direct`);
  });

  test('the executable name alone is enough (argv[0] rewritten)', () => {
    expect(match(['MainThread'], 'codex')).toBe('codex:direct');
  });

  test('fx is the fx agent only while the pane title starts with "fx v"', () => {
    expect(match(['fx'], undefined, 'fx v1.4.0 — repo')).toBe('fx:direct');
    expect(match(['fx', 'data.json'])).toBeNull();
    expect(match(['fx', 'data.json'], undefined, 'data.json')).toBeNull();
  });
});

describe('wrappers (REFERENCE.md §6.3.5)', () => {
  test.each([
    [['node', '/usr/lib/node_modules/@openai/codex/bin/codex.js'], 'codex'],
    [['node', '/opt/x/node_modules/@anthropic-ai/claude-code/cli.js', '--resume', 'abc'], 'claude-code'],
    [['node', '--require', 'ts-node/register', '--max-old-space-size=4096', '/srv/claude.js'], 'claude-code'],
    [['node', '-r', 'dotenv/config', 'gemini'], 'gemini'],
    [['node', '--import', 'tsx', '--', '/bin/opencode'], 'opencode'],
    [['bun', '/home/me/.bun/bin/amp.js'], 'amp'],
    [['bun', 'run', 'copilot'], 'github-copilot'],
    [['bun', 'x', '@openai/codex'], 'codex'],
    [['python3', '/usr/bin/hermes', '--debug'], 'hermes'],
    [['python3.12', '-u', 'droid.py'], null],
    [['python', '-W', 'ignore', '/usr/local/bin/pi'], 'pi'],
    [['sh', '-c', 'claude --continue'], 'claude-code'],
    [['bash', '-lc', 'exec codex'], 'codex'],
    [['bash', '-lc', 'codex --full-auto'], 'codex'],
    [['zsh', '-c', '"/usr/bin/opencode" run'], 'opencode'],
    [['fish', '-c', 'env FOO=1 gemini'], 'gemini'],
    [['env', 'ANTHROPIC_API_KEY=x', 'DEBUG=1', 'claude'], 'claude-code'],
    [['env', '-u', 'HOME', '-i', 'codex'], 'codex'],
    [['command', '-p', 'droid'], 'factory'],
    [['npx', '-y', '@anthropic-ai/claude-code@latest'], 'claude-code'],
    [['npx', '--package', '@openai/codex', 'codex'], 'codex'],
    [['bunx', 'opencode-ai'], null],
    [['bunx', 'openclaw@2.0.1', 'tui'], 'openclaw'],
  ])('%j is %s', (argv, slug) => {
    expect(match(argv)).toBe(slug ? `${slug}:wrapper` : null);
  });
});

describe('what never matches', () => {
  test.each([
    [['node', '-e', "require('/usr/lib/node_modules/@openai/codex/bin/codex.js')"]],
    [['node', '--eval=claude()']],
    [['node', '-p', 'claude']],
    [['node', '--print', 'codex']],
    [['bun', '-e', 'claude']],
    [['python3', '-c', 'import claude']],
    [['python3', '-m', 'codex']],
    [['bash', '-c', 'echo claude']],
    [['bash', 'claude']],
    [['sh']],
    [['vim', 'claude.md']],
    [['cat', 'codex']],
    [['grep', 'claude', '-r', '.']],
    [['claude-desktop']],
    [['claudia']],
    [['codexx']],
    [['my-claude']],
    [['node', '/srv/claude-helper.js']],
    [['node', '/srv/app/server.js']],
    [['npx', 'prettier']],
    [['env']],
    [['fx', 'package.json']],
  ])('%j', (argv) => {
    expect(match(argv)).toBeNull();
  });
});
