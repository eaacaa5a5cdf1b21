// `paneflow send --queue` and `paneflow queue [rm|move|send-now]`: what they print, their exit
// codes, and their usage errors, against a real instance with the fixture agent.
import { PaneQueue, validate } from '@paneflow/protocol';
import { makeHome, until, type Home } from '@paneflow/testing';

type Status = { state: string; reason: string; supervision: { queued: number; queue_held: { reason: string } | null } };
const status = (home: Home, id: number) => home.run(['status', String(id), '--json', '--scope', 'all']).json<Status>();

describe('with scripting on', () => {
  let home: Home;
  let lead: number;
  beforeAll(async () => {
    home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
    expect(home.run(['start']).code).toBe(0);
    lead = (await home.rpc('workspace.up', { name: 'api', layout: 'even_h', panes: [{ name: 'lead', cwd: home.dir, command: 'claude', focus: true, env: {} }] })).surfaces[0].surface_id;
    await until(() => status(home, lead).reason === 'declared' || null, 'the agent declares');
  }, 60_000);
  afterAll(() => home?.cleanup());

  test('send --queue to an idle agent submits at once; to a waiting one it waits, listed in a table with its text escaped', async () => {
    const now = home.run(['send', 'lead', 'first prompt', '--queue']);
    expect(now.stderr).toBe('');
    expect(now.code).toBe(0);
    expect(now.json()).toMatchObject({ sent_now: true, item: { surface_id: lead, text: 'first prompt', position: 1 } });
    await until(() => status(home, lead).state === 'finished' || null, 'its turn ended');

    expect(home.run(['send', 'lead', 'ask permission to go on', '--submit']).code).toBe(0);
    await until(() => status(home, lead).state === 'waiting_for_input' || null, 'the agent waits');
    const queued = home.run(['send', 'lead', 'run the tests\nthen \x1b[31mreport', '--queue', '--submit']);
    expect(queued.code).toBe(0);
    expect(queued.json()).toMatchObject({ sent_now: false, item: { text: 'run the tests\nthen \x1b[31mreport', position: 1 } });
    const second = home.run(['send', 'lead', '-', '--queue'], { input: 'from stdin' }).json<{ item: { id: string } }>().item.id;

    const table = home.run(['queue']);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+PANE\s+NAME\s+POS\s+AGE\s+HELD\s+TEXT$/);
    expect(lines[1]).toMatch(new RegExp(`^q\\d+\\s+${lead}\\s+lead\\s+1\\s+\\d+(ms|s)\\s+run the tests\\^Jthen \\^\\[\\[31mreport$`));
    expect(lines[2]).toMatch(new RegExp(`^${second}\\s+${lead}\\s+lead\\s+2\\s+\\d+(ms|s)\\s+from stdin$`));
    // JSON keeps the text exact, with the controls \u-escaped.
    const json = home.run(['queue', 'lead', '--json']);
    expect(json.stdout).toContain('then \\u001b[31mreport');
    expect(validate(PaneQueue, json.json<{ queues: PaneQueue[] }>().queues[0])).toBeNull();

    // Reordered; sent now only past the busy guard; one removed; the rest goes when the turn ends.
    const moved = home.run(['queue', 'move', second, '1']);
    expect(moved.code).toBe(0);
    expect(moved.json<PaneQueue>().items.map((i) => i.id)).toEqual([second, queued.json<{ item: { id: string } }>().item.id]);
    const past = home.run(['queue', 'move', second, '3']);
    expect([past.code, past.stderr]).toEqual([2, `paneflow: position 3 is past the end of surface ${lead}'s queue (2 prompts)\n`]);
    const busy = home.run(['queue', 'send-now', second]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toMatch(/agent_busy: surface \d+ is waiting_for_input/);
    const removed = home.run(['queue', 'rm', queued.json<{ item: { id: string } }>().item.id]);
    expect(removed.code).toBe(0);
    expect(removed.json()).toMatchObject({ removed: { text: 'run the tests\nthen \x1b[31mreport', position: 2 } });
    expect(home.run(['answer', 'lead', 'yes']).code).toBe(0);
    await until(() => status(home, lead).supervision.queued === 0 || null, 'the rest delivered');
    await until(() => home.run(['turns', 'lead', '--json']).json<{ turns: Array<{ prompt: { text: string; source: string } | null }> }>().turns.some((t) => t.prompt?.source === 'queue' && t.prompt.text === 'from stdin') || null, 'its turn recorded');
    expect(home.run(['queue']).stdout).toBe('no queued prompts\n');
  }, 60_000);

  test('a held queue says why, below the table and in HELD', async () => {
    await until(() => ['finished', 'idle'].includes(status(home, lead).state) || null, 'the agent is done');
    home.run(['send', 'lead', 'error', '--submit']);
    await until(() => status(home, lead).state === 'errored' || null, 'the agent errored');
    const queued = home.run(['send', 'lead', 'after the error', '--queue']).json<{ item: { id: string } }>().item.id;
    await until(() => status(home, lead).supervision.queue_held?.reason === 'errored' || null, 'the queue is held');
    const lines = home.run(['queue']).stdout.trimEnd().split('\n');
    expect(lines[1]).toMatch(new RegExp(`^${queued}\\s+${lead}\\s+lead\\s+1\\s+\\S+\\s+errored\\s+after the error$`));
    expect(lines[2]).toMatch(new RegExp(`^held: surface ${lead} \\(lead\\) since \\d\\d:\\d\\d, errored: the fixture failed on purpose$`));
    expect(home.run(['queue', 'send-now', queued]).code).toBe(0);
    await until(() => status(home, lead).supervision.queued === 0 && status(home, lead).supervision.queue_held === null || null, 'sent and released');
  }, 60_000);

  test('usage errors are exit 2 and unknown ids or panes exit 3, each with one line naming the fault', () => {
    const cases: Array<[string[], number, RegExp]> = [
      [['send', 'lead', 'x', '--queue', '--broadcast'], 2, /--queue cannot go with --broadcast/],
      [['send', 'lead', 'x', '--queue', '--paste'], 2, /--queue cannot go with/],
      [['send', 'lead', 'x', '--queue', '--force'], 2, /--queue cannot go with/],
      [['queue', 'rm'], 2, /queue rm needs the id/],
      [['queue', 'rm', 'seven'], 2, /'seven' is not a queued prompt's id/],
      [['queue', 'move', 'q1'], 2, /queue move needs a position/],
      [['queue', 'move', 'q1', '0'], 2, /<position> is at least 1, not 0/],
      [['queue', 'rm', 'q1', 'extra'], 2, /takes no 'extra'/],
      [['queue', 'lead', '--force'], 2, /--force goes only with queue send-now/],
      [['queue', 'rm', 'q99999'], 3, /queued prompt q99999 not found/],
      [['queue', 'send-now', 'q99999'], 3, /not found/],
      [['queue', 'nosuchpane'], 3, /nosuchpane/],
      [['send', 'nosuchpane', 'x', '--queue'], 3, /nosuchpane/],
    ];
    for (const [args, code, message] of cases) {
      const run = home.run(args);
      expect([args, run.code, run.stdout]).toEqual([args, code, '']);
      expect(run.stderr).toMatch(message);
    }
  });
});

test('with the scripting gate closed, send --queue is refused (exit 1) and nothing is queued', async () => {
  const home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1' });
  try {
    expect(home.run(['start']).code).toBe(0);
    await home.rpc('workspace.up', { name: 'api', layout: 'even_h', panes: [{ name: 'lead', cwd: home.dir, command: 'claude', focus: true, env: {} }] });
    const refused = home.run(['send', 'lead', 'x', '--queue']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('paneflow: queue.add disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1\n');
    expect(home.run(['queue']).stdout).toBe('no queued prompts\n');
  } finally {
    home.cleanup();
  }
}, 60_000);
