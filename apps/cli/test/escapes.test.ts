// Terminal escapes from names, hooks and declared text: names with control
// characters are refused before anything changes; everything else a person reads shows them as
// visible characters, against a real instance.
import type { StatusObject } from '@paneflow/protocol';
import { makeHome, until, type Home } from '@paneflow/testing';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// An OSC 52 clipboard write, a screen clear, a carriage return, a C1 CSI and a right-to-left override.
const NASTY = 'a\x1b]52;c;cHduZWQ=\x07b\x1b[2Jc\rd\u009b2Je\u202ef';
const SHOWN = 'a^[]52;c;cHduZWQ=^Gb^[[2Jc^Md\ufffd2Jef';
// A prompt becomes a title with its whitespace (the CR) folded into spaces.
const TITLE_SHOWN = 'a^[]52;c;cHduZWQ=^Gb^[[2Jc d\ufffd2Jef';
// eslint-disable-next-line no-control-regex -- what may not be printed (LF ends lines)
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200b-\u200f]/;

let home: Home;
beforeAll(() => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  expect(home.run(['start']).code).toBe(0);
});
afterAll(() => home?.cleanup());

/** What a refusal must be: -32602, naming the field and the character, never echoing the name. */
const refusedName = { code: -32602, message: expect.stringMatching(/^name holds the control character U\+00[0-9A-F]{2} /), data: { reason: 'control_character', field: 'name' } };

test('a name with ESC, BEL, CR or a C1 control is refused by rename, split, up, new and a spec file, and nothing changes', async () => {
  const up = await home.rpc('workspace.up', { name: 'names', layout: 'even_h', panes: [{ name: 'plain', cwd: home.dir, command: 'sleep 600', focus: true, env: {} }] });
  const plain = up.surfaces[0].surface_id;
  const model = async () => ({
    surfaces: (await home.rpc('surface.list', { scope: 'all' })).surfaces.map((s) => [s.surface_id, s.name, s.workspace_id]),
    workspaces: (await home.rpc('workspace.list', {})).workspaces.map((w) => [w.id, w.name, w.surfaces]),
  });
  const before = await model();

  await expect(home.rpc('surface.rename', { surface_id: plain, name: 'x\x1b]0;pwned\x07' })).rejects.toMatchObject(refusedName);
  await expect(home.rpc('surface.split', { direction: 'h', surface_id: plain, name: 'y\x07' })).rejects.toMatchObject(refusedName);
  await expect(home.rpc('workspace.create', { name: 'w\r', cwd: home.dir })).rejects.toMatchObject(refusedName);
  await expect(home.rpc('workspace.up', { name: 'w\u009b2J', layout: 'even_h', panes: [{ cwd: home.dir, command: 'sleep 600', focus: false, env: {} }] })).rejects.toMatchObject(refusedName);
  await expect(home.rpc('workspace.up', { name: 'ok', layout: 'even_h', panes: [{ name: 'z\x1b[2J', cwd: home.dir, command: 'sleep 600', focus: false, env: {} }] })).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('pane 1: name holds the control character U+001B'),
  });

  const cli = home.run(['new', '--name', 'n\x1b]52;c;eA==\x07', '--cwd', home.dir]);
  expect(cli.code).not.toBe(0);
  expect(cli.stderr).toContain('name holds the control character U+001B');
  const spec = join(home.dir, 'escapes.toml');
  writeFileSync(spec, 'name = "spec"\n[[panes]]\nname = "s\\u001b]0;pwned\\u0007"\ncommand = "sleep 600"\n');
  const specRun = home.run(['up', spec]);
  expect(specRun.code).toBe(2);
  expect(specRun.stderr).toContain(`${spec}:3: pane 1: name: holds the control character U+001B (at character 2)`);
  for (const output of [cli.stdout, cli.stderr, specRun.stdout, specRun.stderr]) expect(output).not.toMatch(UNSAFE);

  expect(await model()).toEqual(before);
  await home.rpc('surface.close', { surface_id: plain });
});

test('hook texts, a declared message and a directory name show escaped in ps, status, sessions, ls --human and the live table', async () => {
  // A directory whose name clears the screen: the pane's cwd, shown by `ls --human`.
  const dir = join(home.dir, 'd\x1b[2Je');
  mkdirSync(dir);
  const up = await home.rpc('workspace.up', { name: 'texts', layout: 'even_h', panes: [{ cwd: dir, command: 'claude --work-ms 100', focus: true, env: {} }] });
  const id = up.surfaces[0].surface_id;
  const agent = await until(async () => {
    const s = await home.rpc('surface.status', { surface_id: id });
    return s.tool === 'claude' && s.reason === 'declared' && s.pid !== null ? s : null;
  }, 'the fixture agent declared idle');
  const hook = (method: 'ai.prompt_submit' | 'ai.stop', payload: Record<string, string>) =>
    home.rpc(method, { tool: 'claude', session: agent.session, surface_id: id, workspace_id: up.workspace.id, pid: agent.pid!, emitted_at_ms: Date.now(), payload });
  // The prompt names the unnamed pane.
  expect(await hook('ai.prompt_submit', { session_id: 'p1', prompt: NASTY })).toEqual({ accepted: true });

  // A declared message can hold no control (OSC7501.md §5.2), but a bidi override, yes.
  expect(home.run(['send', String(id), 'ship \u202e it permission', '--submit']).code).toBe(0);
  await until(async () => (await home.rpc('surface.status', { surface_id: id })).state === 'waiting_for_input', 'the agent asks');
  const asking = home.run(['ps']).stdout;
  expect(asking).toContain('approve Bash: ship  it permission (');
  expect(asking).not.toMatch(UNSAFE);

  expect(home.run(['answer', String(id), 'yes']).code).toBe(0);
  await until(async () => (await home.rpc('surface.status', { surface_id: id })).state === 'finished', 'the turn done');
  expect(await hook('ai.stop', { session_id: 'p1', last_result: NASTY })).toEqual({ accepted: true });
  expect((await home.rpc('surface.status', { surface_id: id })) as StatusObject).toMatchObject({ last_result: NASTY });

  const printed = {
    ps: home.run(['ps']).stdout,
    status: home.run(['status', String(id)]).stdout,
    sessions: home.run(['sessions']).stdout,
    ls: home.run(['ls', '--human']).stdout,
  };
  const watch = home.start(['ps', '--watch']);
  await watch.line((l) => l.startsWith('live: '));
  process.kill(watch.child.pid!, 'SIGINT');
  await watch.exited;
  const live = watch.lines.join('\n');

  for (const [what, text] of Object.entries({ ...printed, live })) expect([what, UNSAFE.exec(text)?.[0]]).toEqual([what, undefined]);
  expect(printed.ps).toContain(`${SHOWN} · unread`);
  expect(live).toContain(`${SHOWN} · unread`);
  expect(printed.status).toBe(`${id} - claude finished (declared) · ${SHOWN} · unread\n`);
  expect(printed.sessions).toContain(TITLE_SHOWN);
  expect(printed.ls).toContain(`${home.dir}/d^[[2Je`);
});

test('U+2028 and U+2029 (they break lines as LF does) reach no terminal raw: ps, inbox, status, ls --human, and the JSON of ls, ps and inbox, escaped but the same data', async () => {
  const dir = join(home.dir, 'line\u2028and\u2029para');
  mkdirSync(dir);
  const up = await home.rpc('workspace.up', { name: 'separators', layout: 'even_h', panes: [{ cwd: dir, command: 'claude --work-ms 100', focus: true, env: {} }] });
  const id = up.surfaces[0].surface_id;
  await until(async () => {
    const s = await home.rpc('surface.status', { surface_id: id });
    return s.tool === 'claude' && s.reason === 'declared' && s.pid !== null;
  }, 'the fixture agent declared idle');
  // The agent's permission question quotes the prompt (a title folds both into spaces).
  expect(home.run(['send', String(id), 'ship\u2028it\u2029now permission', '--submit']).code).toBe(0);
  await until(async () => (await home.rpc('surface.status', { surface_id: id })).state === 'waiting_for_input', 'the agent asks');

  const printed = {
    ps: home.run(['ps']).stdout,
    inbox: home.run(['inbox']).stdout,
    status: home.run(['status', String(id)]).stdout,
    ls: home.run(['ls', '--human', '--scope', 'all']).stdout,
    lsJson: home.run(['ls', '--scope', 'all']).stdout,
    psJson: home.run(['ps', '--json']).stdout,
    inboxJson: home.run(['inbox', '--json']).stdout,
  };
  for (const [what, text] of Object.entries(printed)) expect([what, /[\u2028\u2029]/.exec(text)?.[0]]).toEqual([what, undefined]);
  expect(printed.ps).toContain('approve Bash: ship\ufffdit\ufffdnow permission');
  expect(printed.inbox).toContain('ship\ufffdit\ufffdnow permission');
  expect(printed.ls).toContain('line\ufffdand\ufffdpara');
  expect(printed.lsJson).toContain('line\\u2028and\\u2029para');
  expect((JSON.parse(printed.lsJson) as { surfaces: Array<{ surface_id: number; cwd: string }> }).surfaces.find((s) => s.surface_id === id)?.cwd).toBe(dir);
  expect((JSON.parse(printed.inboxJson) as { items: Array<{ surface_id: number; message: string }> }).items.find((i) => i.surface_id === id)?.message).toBe('approve Bash: ship\u2028it\u2029now permission');
  await home.rpc('surface.close', { surface_id: id });
});
