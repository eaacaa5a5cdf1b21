import { fillCaptures, parseFlow, SpecError } from '../src';
import { fakeHost } from './host';

const FILE = '/work/specs/review.toml';
const host = fakeHost({ dirs: ['/home/me/src/api', '/home/me/src/web'] });
const plan = (text: string) => parseFlow(text, FILE, host);
function problems(text: string, h = host): string[] {
  try {
    parseFlow(text, FILE, h);
  } catch (error) {
    if (error instanceof SpecError) return error.message.split('\n');
    throw error;
  }
  throw new Error('the flow was valid');
}

const REVIEW = `
name = "review"
[defaults]
timeout_secs = 900
[[step]]
id = "impl"
foreach = ["api", "web"]
pane = { agent = "codex", cwd = "~/src/\${item}", name = "impl-\${item}", prompt = "Implement the ticket, then print DONE on a line of its own." }
submit = true
ready = { pattern = '^\\s*DONE\\s*$' }
capture = { var = "notes", lines = 200 }
[[step]]
id = "review"
needs = ["impl"]
pane = { agent = "claude", prompt = "Review:\\n\${notes.api}\\n\${notes.web}" }
submit = true
`;

describe('a valid flow', () => {
  test('foreach expands into instances; a dependency on it waits for all of them', () => {
    const flow = plan(REVIEW);
    expect(flow).toMatchObject({ name: 'review', on_failure: 'fail_fast', submits: true });
    expect(flow.steps.map((s) => [s.id, s.kind, s.item, s.needs])).toEqual([
      ['impl[api]', 'pane', 'api', []],
      ['impl[web]', 'pane', 'web', []],
      ['review', 'pane', null, ['impl[api]', 'impl[web]']],
    ]);
    expect(flow.steps[0].pane).toMatchObject({ cwd: '/home/me/src/api', name: 'impl-api', agent: 'codex' });
    expect(flow.steps[1].ready).toEqual({ pattern: '^\\s*DONE\\s*$', timeout_secs: 900 });
    expect(flow.steps[0].capture).toEqual({ var: 'notes', lines: 200 });
  });

  test('captures fill the text of a later step, per item', () => {
    const flow = plan(REVIEW);
    const captures = new Map([['notes', { api: 'API done', web: 'web done' }]]);
    expect(fillCaptures(flow.steps[2].pane!.prompt!, captures)).toBe('Review:\nAPI done\nweb done');
  });

  test('send steps, continue on failure, a ready timeout of its own', () => {
    const flow = plan(`
[defaults]
on_failure = "continue"
[[step]]
id = "shell"
pane = { command = "bash" }
ready = { pattern = "^ready$", timeout_secs = 5 }
capture = { var = "first", lines = 3 }
[[step]]
id = "poke"
needs = ["shell"]
send = { target = "shell", text = "echo \${first}", submit = true }
`);
    expect(flow.on_failure).toBe('continue');
    expect(flow.steps[1]).toMatchObject({ kind: 'send', send: { target: 'shell', text: 'echo ${first}', submit: true }, pane: null });
    expect(flow.submits).toBe(true);
    // No ready and no default: no timeout of its own (a send step's idle wait falls back to wait's).
    expect(flow.steps.map((s) => s.timeout_secs)).toEqual([5, null]);
  });

  test("a step's timeout: its ready's own, else defaults.timeout_secs, which bounds a send step without a ready", () => {
    const flow = plan(`
[defaults]
timeout_secs = 7
[[step]]
id = "shell"
pane = { command = "bash" }
ready = { pattern = "^ready$", timeout_secs = 5 }
[[step]]
id = "poke"
needs = ["shell"]
send = { target = "shell", text = "x" }
`);
    expect(flow.steps.map((s) => [s.id, s.timeout_secs])).toEqual([
      ['shell', 5],
      ['poke', 7],
    ]);
  });
});

describe('what a flow may not be (REFERENCE.md §5.6)', () => {
  const step = (body: string) => `[[step]]\nid = "root"\npane = { command = "bash" }\n${body}`;
  test.each([
    [step('[[step]]\nid = "x"\npane = { command = "a" }\nsend = { target = "root", text = "t" }\nneeds = ["root"]\n'), 'step x: a step has pane or send, not both'],
    [step('[[step]]\nid = "x"\nneeds = ["root"]\n'), 'step x: a step needs pane or send'],
    [step('[[step]]\nid = "x"\nsend = { target = "root", text = "t" }\nneeds = ["root"]\nsubmit = true\n'), 'step x: submit: submit belongs to a pane step'],
    [step('[[step]]\nid = "x"\nsend = { target = "root", text = "t" }\n'), 'step x: needs: a send step must depend on another step'],
    [step('[[step]]\nid = "x"\npane = { command = "a" }\nneeds = ["nope"]\n'), "step x: needs: unknown step 'nope'"],
    [step('[[step]]\nid = "x"\npane = { command = "a" }\nneeds = ["x"]\n'), 'step x: needs: a step cannot depend on itself'],
    [step('[[step]]\nid = "a"\npane = { command = "a" }\nneeds = ["b"]\n[[step]]\nid = "b"\npane = { command = "b" }\nneeds = ["a"]\n'), 'step: dependency cycle: a → b → a'],
    ['[[step]]\nid = "a"\nsend = { target = "x", text = "t" }\nneeds = ["a"]\n', 'step: no root pane step'],
    [step('capture = { var = "v", lines = 5 }\n'), 'step root: capture: capture needs ready'],
    [step('ready = { pattern = "x" }\n'), 'step root: ready: a ready barrier needs a timeout'],
    [step('ready = { pattern = "(", timeout_secs = 5 }\n'), 'step root: ready.pattern: not a valid regular expression'],
    [step('ready = { pattern = "x", timeout_secs = 5 }\ncapture = { var = "a-b", lines = 5 }\n'), "step root: capture.var: 'a-b' is not a variable name"],
    [step('ready = { pattern = "x", timeout_secs = 5 }\ncapture = { var = "v", lines = 501 }\n'), 'step root: capture.lines: expected 1 to 500, got 501'],
    [step('ready = { pattern = "x", timeout_secs = 5 }\ncapture = { var = "v", lines = 5 }\n[[step]]\nid = "b"\npane = { command = "b" }\nready = { pattern = "x", timeout_secs = 5 }\ncapture = { var = "v", lines = 5 }\n'), "step b: capture.var: 'v' is captured by step root too"],
    [step('[[step]]\nid = "x"\nneeds = ["root"]\nsend = { target = "root", text = "${nope}" }\n'), 'step x: send.text: ${nope} is not a capture of any step'],
    [step('ready = { pattern = "x", timeout_secs = 5 }\ncapture = { var = "v", lines = 5 }\n[[step]]\nid = "other"\npane = { command = "o" }\n[[step]]\nid = "x"\nneeds = ["other"]\nsend = { target = "other", text = "${v}" }\n'), 'step x: send.text: ${v} is captured by step root, which this step does not depend on'],
    [step('ready = { pattern = "x", timeout_secs = 5 }\ncapture = { var = "v", lines = 5 }\n[[step]]\nid = "x"\nneeds = ["root"]\npane = { agent = "claude", prompt = "${v}" }\n'), 'step x: pane.prompt: captures are only allowed in send.text and in the prompt of a submitting pane step'],
    [step('[[step]]\nid = "x"\nneeds = ["root"]\nsend = { target = "root", text = "${item}" }\n'), 'step x: send.text: ${item} is only allowed in foreach steps'],
    ['[[step]]\nid = "e"\nforeach = ["a", "b"]\npane = { command = "x" }\nready = { pattern = "x", timeout_secs = 5 }\ncapture = { var = "v", lines = 5 }\n[[step]]\nid = "x"\nneeds = ["e"]\nsend = { target = "e[a]", text = "${v}" }\n', 'step x: send.text: ${v} comes from a foreach step: name the item, as ${v.a}'],
    ['[[step]]\nid = "e"\nforeach = ["a", "a"]\npane = { command = "x" }\n', 'step e: foreach: items must be unique'],
    ['[[step]]\nid = "e"\nforeach = []\npane = { command = "x" }\n', 'step e: foreach: needs at least one item'],
    ['[[step]]\nid = "e[1]"\npane = { command = "x" }\n', "step e[1]: id: an id may not hold '[' or ']'"],
    [step('[[step]]\nid = "root"\npane = { command = "y" }\n'), "step root: id: 'root' is the id of another step"],
    [step('bogus = 1\n'), 'step root: bogus: unknown key'],
    [step('[defaults]\nretries = 3\n'), 'defaults.retries: unknown key'],
    ['[[step]]\nid = "e"\nforeach = ["a"]\npane = { cwd = "/nowhere/${item}" }\n', 'step e[a]: pane.cwd: /nowhere/a does not exist or is not a directory'],
    ['[[step]]\nid = "e"\npane = { agent = "claude", command = "x" }\n', 'step e: pane.agent: agent and command are exclusive'],
  ])('%#: %s', (text, message) => {
    const found = problems(text);
    expect(found.some((line) => line.includes(message))).toBe(true);
  });

  test('more than 32 panes after expanding foreach', () => {
    const items = Array.from({ length: 33 }, (_, i) => `"i${i}"`).join(', ');
    expect(problems(`[[step]]\nid = "many"\nforeach = [${items}]\npane = { command = "x" }\n`)).toContain(`${FILE}: step: more than 32 panes after expanding foreach (33)`);
  });

  test('a pane name with a control character, after ${item} is filled in, is refused; so is the flow name', () => {
    expect(problems('[[step]]\nid = "e"\nforeach = ["ok"]\npane = { command = "x", name = "${item}\\u001b[2J" }\n')).toEqual([
      `${FILE}:1: step e[ok]: pane.name: holds the control character U+001B (at character 3); names may not hold control characters`,
    ]);
    expect(problems('name = "f\\u0007"\n[[step]]\nid = "e"\npane = { command = "x" }\n')).toEqual([
      `${FILE}:1: name: holds the control character U+0007 (at character 2); names may not hold control characters`,
    ]);
  });

  test('errors carry the line of their step', () => {
    expect(problems('[[step]]\nid = "root"\npane = { command = "bash" }\n\n[[step]]\nid = "x"\nneeds = ["zz"]\npane = { command = "a" }\n')).toEqual([`${FILE}:7: step x: needs: unknown step 'zz'`]);
  });
});
