// `paneflow read` and `search` of a pane whose host died (issue 36, item 1): until it is restarted
// they answer from the host's saved screen, the lines the pane last showed, as a read of a live
// pane does; once it is restarted they read what runs now.
import { makeHome, scaled, until, type Home } from '@paneflow/testing';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

jest.setTimeout(scaled(120_000));

let home: Home;
beforeAll(() => {
  home = makeHome({ PANEFLOW_IPC_SCRIPTING: '1', PANEFLOW_IPC_ORCHESTRATION: '1' });
  expect(home.run(['start']).code).toBe(0);
});
afterAll(() => home?.cleanup());

interface Read {
  text: string;
  lines: number;
  total_lines: number;
  eof: boolean;
  output_generation: number;
  dropped_rows: number;
}

const hostPid = () => home.run(['host', 'status']).json<{ pid: number }>().pid;
const alive = (pid: number) => existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z');

test('a lost pane reads and searches as the screen it last showed, mid-output; restarted, it reads what runs now', async () => {
  // Numbered lines without end, 150 a second: the output never settles, so the screen is saved every 3 s at least.
  const loop = `i=0; while :; do i=$((i+1)); echo "line $i"; sleep 0.005; done`;
  const command = `if [ -e ./second ]; then echo second life; exec sleep 600; fi; touch ./second; ${loop}`;
  const up = await home.rpc('workspace.up', { name: 'crash', layout: 'even_h', panes: [{ name: 'looper', cwd: home.dir, command, focus: true, env: {} }] });
  const { session, surface_id } = up.surfaces[0];
  const savedFile = join(home.env.PANEFLOW_HOME!, 'host/sessions', `${session}.screen`);
  const lastSaved = () => {
    if (!existsSync(savedFile)) return 0;
    const { checkpoint } = JSON.parse(readFileSync(savedFile, 'utf8')) as { checkpoint: string };
    return Math.max(0, ...[...checkpoint.matchAll(/line (\d+)/g)].map((m) => Number(m[1])));
  };
  // Past the screen's 24 rows, so the saved scrollback is read too.
  await until(() => lastSaved() > 100 || null, 'a screen saved with scrollback while the output goes on');
  const pid = hostPid();
  process.kill(pid, 'SIGKILL');
  await until(() => !alive(pid) || null, 'the host gone');
  const last = lastSaved();
  await until(async () => (await home.rpc('surface.status', { surface_id })).lifecycle === 'lost' || null, 'the pane lost');
  // Serve starts another host, which holds the session as lost: the read is that host's answer.
  await until(() => home.run(['host', 'status']).code === 0 || null, 'a new host');

  const read = home.run(['read', 'looper', '--json', '--raw', '--lines', '5', '--scope', 'all']);
  expect(read).toMatchObject({ code: 0, stderr: '' });
  const result = read.json<Read>();
  expect(result.text.split('\n')).toEqual([last - 4, last - 3, last - 2, last - 1, last].map((n) => `line ${n}`));
  expect(result).toMatchObject({ lines: 5, eof: false, dropped_rows: 0 });
  expect(result.total_lines).toBeGreaterThan(100);
  // Paged back to the oldest line the saved scrollback kept.
  const oldest = home.run(['read', 'looper', '--json', '--raw', '--lines', '1', '--offset', String(result.total_lines - 1), '--scope', 'all']).json<Read>();
  expect(oldest).toMatchObject({ lines: 1, eof: true, text: `line ${last - result.total_lines + 1}` });
  // Fenced by default like any read.
  expect(home.run(['read', 'looper', '--lines', '1', '--scope', 'all']).stdout).toMatch(new RegExp(`^<untrusted_terminal_output source="surface.read" [^\\n]*\\nline ${last}\\n</untrusted_terminal_output`));

  const search = home.run(['search', 'looper', `line ${last - 1}`, '--scope', 'all']);
  expect(search).toMatchObject({ code: 0, stderr: '' });
  expect(search.json<{ matches: Array<{ line: number; text: string }> }>().matches).toEqual([{ line: result.total_lines - 1, text: `line ${last - 1}` }]);
  // The status says which screen that is: the pane's, lost.
  expect(home.run(['status', 'looper', '--json', '--scope', 'all']).json<{ lifecycle: string }>().lifecycle).toBe('lost');

  expect(home.run(['restart', 'looper', '--scope', 'all']).code).toBe(0);
  await until(() => home.run(['read', 'looper', '--raw', '--lines', '1', '--scope', 'all']).stdout.trim() === 'second life' || null, 'the restarted process read');
  // Its saved screen is history above it, read like any output.
  const after = home.run(['read', 'looper', '--raw', '--lines', '3', '--scope', 'all']).stdout.trim().split('\n');
  expect(after).toEqual([`line ${last}`, expect.stringMatching(/^── above: what this pane showed before the host stopped \(/), 'second life']);
});
