// `paneflow rules`: the config's answer rules listed, `rules test` saying which would answer a
// declared message (exit 0) or why none would (exit 1), `rules off` and `on`; and `paneflow inbox`
// showing, below the agents that wait, what the rules answered in the person's place.
import { makeHome, scaled, screen, until, type Home } from '@paneflow/testing';

const RULES = [
  { name: 'tests', runtime: 'claude-code', kind: 'permission', pattern: '^approve Bash: run the tests', answer: 'yes', per_hour: 20 },
  { name: 'status', kind: 'permission', pattern: '^approve Bash: git status$', answer: 'always' },
];
const DELAY_MS = 300;

describe('paneflow rules', () => {
  let home: Home;
  let agent: number;
  beforeAll(async () => {
    home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1', PANEFLOW_IPC_SCRIPTING: '1' });
    home.writeConfig({ supervisor: { answer_delay_ms: DELAY_MS }, answer_rules: RULES });
    expect(home.run(['start']).code).toBe(0);
    agent = (await home.rpc('workspace.up', { name: 'api', layout: 'even_h', panes: [{ name: 'lead', cwd: home.dir, command: 'claude', focus: true, env: {} }] })).surfaces[0].surface_id;
    await until(() => home.run(['status', String(agent), '--json']).json<{ reason: string }>().reason === 'declared' || null, 'the agent declares');
  }, scaled(60_000));
  afterAll(() => home?.cleanup());

  test('lists each rule with its runtime, pattern, answer, hour limit and answers this hour, and whether they act', () => {
    const shown = home.run(['rules']);
    expect(shown.code).toBe(0);
    const lines = shown.stdout.split('\n');
    expect(lines[0]).toBe(`answer rules: on, each answers ${DELAY_MS} ms after its prompt unless you answer first`);
    expect(lines[1]).toMatch(/^NAME\s+RUNTIME\s+PATTERN\s+ANSWER\s+PER HOUR\s+USED$/);
    expect(lines[2]).toMatch(/^tests\s+claude-code\s+\^approve Bash: run the tests\s+yes\s+20\s+0$/);
    expect(lines[3]).toMatch(/^status\s+any\s+\^approve Bash: git status\$\s+always\s+-\s+0$/);
    expect(home.run(['rules', '--json']).json()).toEqual({
      enabled: true,
      gated: false,
      delay_ms: DELAY_MS,
      rules: [
        { name: 'tests', runtime: 'claude-code', kind: 'permission', pattern: '^approve Bash: run the tests', answer: 'yes', per_hour: 20, used_last_hour: 0 },
        { name: 'status', runtime: null, kind: 'permission', pattern: '^approve Bash: git status$', answer: 'always', per_hour: null, used_last_hour: 0 },
      ],
    });
  });

  test('rules test: exit 0 naming the rule that would answer, exit 1 saying why none would; usage errors exit 2', () => {
    const yes = home.run(['rules', 'test', 'approve Bash: run the tests --ci', '--runtime', 'claude-code']);
    expect([yes.code, yes.stdout]).toEqual([0, `rule 'tests' answers 'yes' after ${DELAY_MS} ms\n`]);
    const none = home.run(['rules', 'test', 'approve Bash: rm -rf build']);
    expect([none.code, none.stdout]).toEqual([1, 'no rule would answer: no rule matches this message\n']);
    expect(home.run(['rules', 'test', 'approve Bash: git status', '--json']).json()).toEqual({ rule: 'status', answer: 'always', reason: `rule 'status' answers 'always' after ${DELAY_MS} ms` });

    for (const [args, message] of [
      [['rules', 'test'], 'rules test needs the declared message to test'],
      [['rules', 'maybe'], "unknown rules action 'maybe'; it is test, off or on"],
      [['rules', 'off', 'now'], "'rules off' takes no message"],
      [['rules', '--runtime', 'codex'], '--runtime goes with rules test only'],
      [['rules', 'test', 'x', '--runtime', 'nope'], "unknown runtime 'nope'"],
    ] as const) {
      const result = home.run([...args]);
      expect([args, result.code]).toEqual([args, 2]);
      expect(result.stderr).toContain(message);
    }
  });

  test('inbox shows, below the waiting agents, what a rule answered this hour, escaped; ps shows it in the pane', async () => {
    expect(home.run(['send', String(agent), 'run the tests \u202eplease permission', '--submit']).code).toBe(0);
    await screen(home, String(agent), /^allowed$/m);
    const shown = await until(() => {
      const out = home.run(['inbox']).stdout;
      return /answered by rule/.test(out) ? out : null;
    }, 'the automatic answer in the inbox');
    const lines = shown.split('\n');
    expect(lines[0]).toBe('no agent is waiting for you');
    expect(lines[1]).toBe('');
    // The bidi override of the message is removed on the way to the terminal (displayText).
    expect(lines[2]).toMatch(new RegExp(`^answered by rule 'tests' \\d+s ago \\(yes, surface ${agent}\\): approve Bash: run the tests please permission$`));
    const json = home.run(['inbox', '--json']).json<{ items: unknown[]; answered: Array<{ rule: string; message: string }> }>();
    expect(json.items).toEqual([]);
    expect(json.answered).toEqual([expect.objectContaining({ rule: 'tests', answer: 'yes', surface_id: agent, message: 'approve Bash: run the tests \u202eplease permission' })]);
    expect(home.run(['rules', '--json']).json<{ rules: Array<{ used_last_hour: number }> }>().rules[0].used_last_hour).toBe(1);
    // ps says it too, in the pane's DETAIL, for as long as its status shows it.
    expect(home.run(['ps']).stdout).toMatch(new RegExp(`^${agent}\\s+lead\\s+claude\\s+finished\\s.*answered 'yes' by rule 'tests' \\d+s ago$`, 'm'));
  }, scaled(60_000));

  test('rules off: every rule stops, rules test says so (exit 1); rules on acts again', async () => {
    const off = home.run(['rules', 'off']);
    expect([off.code, off.stdout]).toEqual([0, 'answer rules off: none answers until `paneflow rules on`\n']);
    expect(home.run(['rules']).stdout.split('\n')[0]).toBe('answer rules: off (paneflow rules on)');
    const test = home.run(['rules', 'test', 'approve Bash: run the tests']);
    expect([test.code, test.stdout]).toEqual([1, "no rule would answer: rule 'tests' matches, but the answer rules are off (paneflow rules on)\n"]);
    expect(home.run(['rules', 'on', '--json']).json()).toEqual({ enabled: true });
    expect(home.run(['rules', 'test', 'approve Bash: run the tests']).code).toBe(0);
  });
});
