import { spawn } from 'node:child_process';
import { existsSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processStartTime } from '@paneflow/proc';
import { makeHome, processesOfHome, ROOT, until } from '../src';

describe('makeHome', () => {
  test('a temp home of its own: HOME, PANEFLOW_HOME and the runtime dir inside it, the fixture agent as claude, no pane identity inherited', () => {
    const home = makeHome({ EXTRA: '1' });
    try {
      for (const key of ['HOME', 'PANEFLOW_HOME', 'XDG_RUNTIME_DIR', 'PANEFLOW_CONFIG']) expect(home.env[key]!.startsWith(home.dir)).toBe(true);
      expect(readlinkSync(join(home.dir, 'bin/claude'))).toBe(join(ROOT, 'fixtures/agent.mjs'));
      expect(home.env.PATH!.split(':')[0]).toBe(join(home.dir, 'bin'));
      expect(home.env.EXTRA).toBe('1');
      for (const key of ['PANEFLOW_SOCKET_PATH', 'PANEFLOW_SESSION_ID', 'PANEFLOW_WORKSPACE_ID']) expect(home.env[key]).toBeUndefined();
    } finally {
      home.cleanup();
    }
    expect(existsSync(home.dir)).toBe(false);
  });

  test('run() is the bundled CLI: its exit code and its streams', () => {
    const home = makeHome();
    try {
      const unknown = home.run(['no-such-verb']);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toMatch(/no-such-verb/);
      expect(home.run(['ps']).code).toBe(1);
    } finally {
      home.cleanup();
    }
  });

  test('cleanup() stops the home\'s instance, its panes included, and removes the home', async () => {
    const home = makeHome({ PANEFLOW_IPC_ORCHESTRATION: '1' });
    let cleaned = false;
    try {
      expect(home.run(['start']).code).toBe(0);
      await home.rpc('workspace.up', { name: 'w', layout: 'even_h', panes: [{ command: 'claude', cwd: home.dir, focus: false, env: {} }] });
      const running = await until(() => {
        const found = processesOfHome(home.dir, home.env.PANEFLOW_HOME!).map((p) => p.cmdline);
        return found.some((cmdline) => cmdline.includes(join(home.dir, 'bin/claude'))) && found;
      }, 'the pane running the fixture agent');
      expect(running).toEqual(expect.arrayContaining([expect.stringMatching(/paneflow-host/), expect.stringMatching(/paneflow-serve/)]));
      home.cleanup();
      cleaned = true;
    } finally {
      if (!cleaned) home.cleanup();
    }
    expect(processesOfHome(home.dir, home.env.PANEFLOW_HOME!)).toEqual([]);
    expect(existsSync(home.dir)).toBe(false);
  });

  test('what `stop --force` leaves running, cleanup() kills by pid, then throws naming it', async () => {
    const home = makeHome();
    expect(home.run(['start']).code).toBe(0);
    // A stop that says it worked and stops nothing, and a process of the home no stop knows of.
    const noop = join(home.dir, 'noop.cjs');
    writeFileSync(noop, 'process.exit(0);\n');
    home.env.PANEFLOW_HOST_BIN = noop;
    home.env.PANEFLOW_SERVE_BIN = noop;
    const stray = spawn('sleep', ['1000'], { env: home.env, detached: true, stdio: 'ignore' });
    stray.unref();
    const before = processesOfHome(home.dir, home.env.PANEFLOW_HOME!);
    expect(before.map((p) => p.pid)).toContain(stray.pid);
    expect(before.map((p) => p.cmdline)).toEqual(expect.arrayContaining([expect.stringMatching(/paneflow-host/), expect.stringMatching(/paneflow-serve/)]));
    const said: unknown[] = [];
    const spy = jest.spyOn(console, 'error').mockImplementation((message) => void said.push(message));
    let thrown: Error | undefined;
    try {
      home.cleanup();
    } catch (error) {
      thrown = error as Error;
    } finally {
      spy.mockRestore();
    }
    expect(said).toEqual([thrown?.message]);
    expect(thrown?.message).toMatch(/^makeHome cleanup: `paneflow stop --force` \(exit 0\) left 3 process\(es\) of \S+ running; killed them: /);
    for (const p of before) expect(thrown?.message).toContain(`${p.pid} `);
    expect(before.filter((p) => processStartTime(p.pid) === p.startedAt)).toEqual([]);
    expect(existsSync(home.dir)).toBe(false);
  });
});

