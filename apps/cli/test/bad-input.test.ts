// Numbers, names and keys a person or a script got wrong, given to the real CLI against a real
// instance: each is a usage error (exit 2, one line naming the flag) or a refusal, and nothing
// changes; and `read`'s eof says whether the window reached the oldest kept line.
import { makeHome, screen, type Home } from '@paneflow/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

let home: Home;
let pane: number;
beforeAll(async () => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1' });
  expect(home.run(['start']).code).toBe(0);
  const up = await home.rpc('workspace.up', {
    name: 'inputs',
    layout: 'even_h',
    panes: [{ name: 'counter', cwd: home.dir, command: "bash --norc --noprofile -c 'seq 1 3000; exec sleep 600'", focus: true, env: {} }],
  });
  pane = up.surfaces[0].surface_id;
  await screen(home, 'counter', /^3000$/m);
});
afterAll(() => home?.cleanup());

/** The whole model, to show that a refused call changed nothing. */
async function model() {
  return {
    surfaces: (await home.rpc('surface.list', { scope: 'all' })).surfaces.map((s) => [s.surface_id, s.name, s.workspace_id]),
    workspaces: (await home.rpc('workspace.list', {})).workspaces.map((w) => [w.id, w.name, w.surfaces]),
  };
}

test.each([
  [['read', 'counter', '--lines', '-5'], '--lines is 1-4000, not -5'],
  [['read', 'counter', '--lines', '0'], '--lines is 1-4000, not 0'],
  [['read', 'counter', '--lines', '4001'], '--lines is 1-4000, not 4001'],
  [['read', 'counter', '--offset', '-1'], '--offset is at least 0, not -1'],
  [['search', 'counter', '7', '--max', '-1'], '--max is 1-1000, not -1'],
  [['search', 'counter', '7', '--max', '0'], '--max is 1-1000, not 0'],
  [['wait', '--match', 'counter', '--idle', '--for', '-5'], '--for is at least 1, not -5'],
  [['wait', '--match', 'counter', '--idle', '--timeout', '0'], '--timeout is 1-2147483, not 0'],
  [['turns', '--limit', '0'], '--limit is at least 1, not 0'],
  [['read', 'counter', '--lines', '1.5'], "--lines needs a whole number, not '1.5'"],
  [['read', 'counter', '--lines', '\x1b[2J'], "--lines needs a whole number, not '^[[2J'"],
  [['select', '99999999999999999999'], '<index> (zero-based) is at most 9007199254740991, not 99999999999999999999'],
  [['select', '-1'], '<index> (zero-based) is at least 0, not -1'],
])('%j is a usage error naming the flag: exit 2, nothing sent', async (args, message) => {
  const before = await model();
  const result = home.run(args);
  expect({ code: result.code, stdout: result.stdout, first: result.stderr.split('\n')[0] }).toEqual({ code: 2, stdout: '', first: `paneflow: ${message}` });
  expect(await model()).toEqual(before);
});

test('a name no selector could reach (digits, cmdline:, cwd:, blank, only invisible) is refused by every way of naming, and nothing changes', async () => {
  const unreachable = ['1', '0042', 'cmdline:x', 'cwd:/tmp', '   ', '\u200b\u200b', '\u2060\ufeff \u3164', 'a\u2028b'];
  const before = await model();
  for (const name of unreachable) {
    const refused = { code: -32602, message: expect.stringMatching(/^name /), data: { reason: expect.stringMatching(/^(unselectable_name|control_character)$/), field: 'name' } };
    await expect(home.rpc('surface.rename', { surface_id: pane, name })).rejects.toMatchObject(refused);
    await expect(home.rpc('surface.split', { direction: 'h', surface_id: pane, name })).rejects.toMatchObject(refused);
    await expect(home.rpc('workspace.create', { name, cwd: home.dir })).rejects.toMatchObject(refused);
    const cli = home.run(['new', '--name', name, '--cwd', home.dir]);
    expect({ code: cli.code, lines: cli.stderr.trimEnd().split('\n').length }).toEqual({ code: 2, lines: 1 });
    expect(cli.stderr).toMatch(/^paneflow: --name (is all digits|starts with|shows nothing|holds the line separator U\+2028)/);
  }
  const spec = join(home.dir, 'digits.toml');
  writeFileSync(spec, 'name = "specs"\n[[panes]]\nname = "7"\ncommand = "sleep 600"\n');
  const up = home.run(['up', spec]);
  expect(up.code).toBe(2);
  expect(up.stderr).toContain(`${spec}:3: pane 1: name: is all digits, which a selector reads as an id or an index; no selector could name it`);
  expect(await model()).toEqual(before);
  // A name that only looks like a selector is still a name.
  expect(await home.rpc('surface.rename', { surface_id: pane, name: 'counter 2' })).toEqual({ surface_id: pane, name: 'counter 2' });
  expect(await home.rpc('surface.rename', { surface_id: pane, name: 'counter' })).toEqual({ surface_id: pane, name: 'counter' });
});

test('an unknown key name is quoted back escaped: no ESC reaches the terminal', () => {
  const result = home.run(['key', 'counter', '\x1b[31mboom']);
  expect(result.code).toBe(1);
  expect(result.stderr).toBe("paneflow: unknown key '^[[31mboom' in '^[[31mboom'\n");
  const modifier = home.run(['key', 'counter', '\x1b]0;x\x07-a']);
  expect(modifier.stderr).toBe("paneflow: unknown modifier '^[]0;x^G' in '^[]0;x^G-a'\n");
});

test('a selector that matches nothing is quoted back escaped and bounded', () => {
  const result = home.run(['read', '\x1b[31mboom']);
  expect([result.code, result.stderr]).toEqual([3, "paneflow: no pane matches '^[[31mboom' in this workspace (try --scope all)\n"]);
  const long = home.run(['read', 'x'.repeat(5000), '--scope', 'all']);
  expect([long.code, long.stderr]).toEqual([3, `paneflow: no pane matches '${'x'.repeat(80)}… (5000 characters)'\n`]);
});

test("read's eof is true only when the window reaches the oldest kept line", () => {
  const read = (...flags: string[]) => home.run(['read', 'counter', '--json', '--raw', ...flags]).json<{ text: string; lines: number; total_lines: number; eof: boolean }>();
  const newest = read('--lines', '10');
  expect(newest.total_lines).toBeGreaterThanOrEqual(3000);
  expect(newest).toMatchObject({ lines: 10, eof: false });
  const total = newest.total_lines;
  // The oldest ten lines, by offset: the window starts at the first kept line.
  const oldest = read('--lines', '10', '--offset', String(total - 10));
  expect(oldest).toMatchObject({ lines: 10, eof: true });
  expect(oldest.text.split('\n')[0]).toBe('1');
  expect(read('--lines', '10', '--offset', String(total - 11))).toMatchObject({ eof: false });
  expect(read('--lines', '4000')).toMatchObject({ lines: total, eof: true });
  // The fence says the same.
  expect(home.run(['read', 'counter', '--lines', '10']).stdout).toMatch(/^<untrusted_terminal_output source="surface\.read" scope="workspace" total_lines="\d+" eof="false" /);
});
