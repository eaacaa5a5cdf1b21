// `paneflow new --preset <id>`: a runtime's [[suggested_presets]] started in a real pane of a real
// instance, with the preset's command, env and name.
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome, type Home } from '@paneflow/testing';

let home: Home;
beforeEach(() => {
  home = makeHome();
  // A `claude` that says how it was started, then stays (a real agent would too).
  rmSync(join(home.dir, 'bin/claude'));
  writeFileSync(join(home.dir, 'bin/claude'), '#!/bin/sh\necho "started: $* teams=$CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"\nexec sleep 600\n');
  chmodSync(join(home.dir, 'bin/claude'), 0o755);
});
afterEach(() => home.cleanup());

test("new --preset runs the preset's command with its env in a workspace named after it", () => {
  const made = home.run(['new', '--preset', 'claude_code_team', '--cwd', home.dir]);
  expect(made.code).toBe(0);
  const { surface_id, name } = made.json<{ surface_id: number; name: string }>();
  expect(name).toBe('Claude Code team');
  const waited = home.run(['wait', '--match', String(surface_id), '--pattern', 'started: ', '--timeout', '30', '--scope', 'all']);
  expect(waited.code).toBe(0);
  const text = home.run(['read', String(surface_id), '--raw', '--scope', 'all']).stdout;
  expect(text).toContain('started: --teammate-mode tmux teams=1');

  // --name still names the workspace.
  const named = home.run(['new', '--preset', 'claude_code_team', '--name', 'team', '--cwd', home.dir]);
  expect(named.json<{ name: string }>().name).toBe('team');
});

test('serve, asked by any client and with no write gate on, starts only a preset its own catalog has', async () => {
  expect(home.run(['new', '--cwd', home.dir]).code).toBe(0);
  const split = await home.rpc('surface.split', { direction: 'h', preset: 'openclaw_tui' });
  expect(split.surface_id).toBeGreaterThan(0);
  await expect(home.rpc('surface.split', { direction: 'h', preset: 'claude_code_solo' })).rejects.toThrow("unknown preset 'claude_code_solo'; presets here: claude_code_team, openclaw_tui");
  await expect(home.rpc('workspace.create', { preset: 'claude_code_solo' })).rejects.toThrow("unknown preset 'claude_code_solo'");
  await expect(home.rpc('surface.split', { direction: 'h', preset: 'openclaw_tui', agent: 'claude' })).rejects.toThrow();
  // A preset is ungated; the same command written by the caller is not.
  await expect(home.rpc('surface.split', { direction: 'h', command: 'openclaw tui' })).rejects.toThrow(/PANEFLOW_IPC_ORCHESTRATION/);
});

test('an unknown preset is a usage error before anything starts', () => {
  const result = home.run(['new', '--preset', 'claude_code_solo']);
  expect([result.code, result.stdout]).toEqual([2, '']);
  expect(result.stderr).toBe("paneflow: unknown preset 'claude_code_solo'; presets here: claude_code_team, openclaw_tui\n");
  // Nothing was started.
  expect(home.run(['serve', 'status']).code).toBe(1);
});
