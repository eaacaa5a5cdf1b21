import { CONFIG_SETTINGS } from '@paneflow/protocol';
import { parseConfig, DEFAULT_CONFIG } from '../src/config';

describe('config (REFERENCE.md §10)', () => {
  const keys = new Set(['show_agent_codex']);
  test('valid keys are taken; defaults fill the rest', () => {
    const { config, ignored } = parseConfig(
      JSON.stringify({ ai_unrestricted: true, submit_paste_delay_ms: 120, terminal: { env: { A: '1' } }, show_agent_codex: false }),
      keys,
    );
    expect(ignored).toEqual([]);
    expect(config).toMatchObject({ ai_unrestricted: true, ai_injection_fence: true, submit_paste_delay_ms: 120, terminal_env: { A: '1' }, visibility: { show_agent_codex: false } });
  });

  test('every setting of the schema is checked by it: a wrong value is named by its path and keeps the default', () => {
    for (const [path, { expected }] of Object.entries(CONFIG_SETTINGS)) {
      const [section, name] = path.split('.');
      const { config, ignored } = parseConfig(JSON.stringify(name ? { [section]: { [name]: null } } : { [path]: null }), keys);
      expect([path, ignored]).toEqual([path, [`${path}: expected ${expected}, got null`]]);
      expect(config).toEqual(DEFAULT_CONFIG);
    }
  });

  test('a paste delay outside 10–5000 ms is clamped, one between whole milliseconds rounded, and each said', () => {
    for (const [given, used] of [[9999, 5000], [-100, 10], [5000.4, 5000]]) {
      const { config, ignored } = parseConfig(JSON.stringify({ submit_paste_delay_ms: given }), keys);
      expect([config.submit_paste_delay_ms, ignored]).toEqual([used, [`submit_paste_delay_ms: ${given} is outside 10-5000 ms; ${used} is used`]]);
    }
    const { config, ignored } = parseConfig(JSON.stringify({ submit_paste_delay_ms: 12.6 }), keys);
    expect([config.submit_paste_delay_ms, ignored]).toEqual([13, ['submit_paste_delay_ms: 12.6 is not a whole number of milliseconds; 13 is used']]);
  });

  test('what is wrong is named and ignored, never fatal', () => {
    const { config, ignored } = parseConfig(JSON.stringify({ ai_unrestricted: 'yes', nope: 1, terminal: { env: { A: 1 } }, agent_stall_threshold_secs: -4 }), keys);
    expect(config).toMatchObject({ ai_unrestricted: false, agent_stall_threshold_secs: DEFAULT_CONFIG.agent_stall_threshold_secs, terminal_env: {} });
    expect(ignored).toEqual([
      'ai_unrestricted: expected true or false, got "yes"',
      'nope: unknown key',
      'terminal.env: expected an object of strings, got {"A":1}',
      'agent_stall_threshold_secs: expected a number of seconds >= 0, got -4',
    ]);
    expect(parseConfig('{not json', keys).ignored[0]).toMatch(/not valid JSON/);
  });

  test("attach's prefix key and notifications; a prefix that is not ctrl- or alt- and a letter is ignored", () => {
    expect(parseConfig(JSON.stringify({ attach: { prefix: 'ctrl-a', notifications: false } }), keys).config.attach).toEqual({ prefix: 'ctrl-a', notifications: false });
    const { config, ignored } = parseConfig(JSON.stringify({ attach: { prefix: 'enter', other: 1 } }), keys);
    expect(config.attach).toEqual({ prefix: 'ctrl-b', notifications: true });
    expect(ignored).toEqual(['attach.prefix: expected ctrl-<letter> or alt-<letter>, got "enter"', 'attach.other: unknown key']);
  });

  test('answer rules: each is checked on its own; a question rule, an unknown field, a bad pattern or a second rule of one name is left out, named, and the others kept', () => {
    const rule = (name: string, more: Record<string, unknown> = {}) => ({ name, kind: 'permission', pattern: '^approve Bash: npm test', answer: 'yes', ...more });
    const { config, ignored } = parseConfig(
      JSON.stringify({
        supervisor: { answer_delay_ms: 250 },
        answer_rules: [rule('tests', { runtime: 'claude-code', per_hour: 3 }), rule('asks', { kind: 'question' }), rule('extra', { when: 'always' }), rule('broken', { pattern: '(npm' }), rule('tests'), rule('status', { pattern: '^approve Bash: git status$' })],
      }),
      keys,
    );
    expect(ignored).toEqual([
      'answer_rules[1].kind: a rule answers only "permission" prompts, never a question; got "question"; the rule is left out',
      "answer_rules[2].when: unknown field 'when'; the rule is left out",
      expect.stringMatching(/^answer_rules: rule 'broken': pattern is not a regular expression \(.+\); the rule is left out$/),
      "answer_rules: rule 'tests' is named twice; only the first is kept",
    ]);
    expect(config.supervisor.answer_delay_ms).toBe(250);
    expect(config.answer_rules.map((r) => [r.name, r.runtime, r.per_hour])).toEqual([
      ['tests', 'claude-code', 3],
      ['status', undefined, undefined],
    ]);
    // Compiled once, here: what serve matches a declared message with.
    expect(config.answer_rules[0].regex.test('approve Bash: npm test -- --watch')).toBe(true);
    expect(config.answer_rules[1].regex.test('approve Bash: git status --short')).toBe(false);
  });

  test('answer rules are none and the delay 5 s unless set; a list that is not one, or a delay out of range, keeps them', () => {
    expect(parseConfig('{}', keys).config).toMatchObject({ answer_rules: [], supervisor: { answer_delay_ms: 5000 } });
    const { config, ignored } = parseConfig(JSON.stringify({ answer_rules: { name: 'x' }, supervisor: { answer_delay_ms: -1 } }), keys);
    expect(config).toMatchObject({ answer_rules: [], supervisor: { answer_delay_ms: 5000 } });
    expect(ignored).toEqual([expect.stringMatching(/^answer_rules: expected a list of rules/), 'supervisor.answer_delay_ms: expected a whole number of milliseconds (0-600000), got -1']);
  });

  test('restore_on_start is off unless set to true', () => {
    expect(parseConfig('{}', keys).config.restore_on_start).toBe(false);
    expect(parseConfig(JSON.stringify({ restore_on_start: true }), keys).config.restore_on_start).toBe(true);
    const { config, ignored } = parseConfig(JSON.stringify({ restore_on_start: 'yes' }), keys);
    expect(config.restore_on_start).toBe(false);
    expect(ignored).toEqual(['restore_on_start: expected true or false, got "yes"']);
  });
});

describe('machines (issue 32)', () => {
  const keys = new Set<string>();
  test('each machine is checked on its own: a bad one is named and left out, the others kept', () => {
    const { config, ignored } = parseConfig(
      JSON.stringify({
        machines: {
          devbox: { destination: 'me@devbox', ssh_options: ['Port=2222'], remote_command: '~/bin/paneflow' },
          'bad name': { destination: 'x' },
          dash: { destination: '-oProxyCommand=touch /tmp/owned' },
          proxy: { destination: 'h', ssh_options: ['ProxyCommand=nc %h %p'] },
          extra: { destination: 'h', port: 22 },
        },
      }),
      keys,
    );
    expect(config.machines).toEqual({ devbox: { destination: 'me@devbox', ssh_options: ['Port=2222'], remote_command: '~/bin/paneflow' } });
    expect(ignored).toEqual([
      expect.stringMatching(/^machines\.bad name: a machine name is .*; the machine is left out$/),
      expect.stringMatching(/^machines\.dash\.destination: .*; the machine is left out$/),
      expect.stringMatching(/^machines\.proxy\.ssh_options: 'ProxyCommand' runs commands on this machine; put it in ~\/\.ssh\/config instead; the machine is left out$/),
      expect.stringMatching(/^machines\.extra.*; the machine is left out$/),
    ]);
  });
});
