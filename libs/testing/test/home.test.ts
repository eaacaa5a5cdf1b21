import { existsSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { makeHome, ROOT } from '../src';

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
});
