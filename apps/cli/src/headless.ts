import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureInstance, instanceEndpoints, request, subscribe } from './instance';
import { agentTable } from './output';

/** The fixture agent beside the bundle (apps/cli/dist → fixtures/), when this is a checkout. */
function fixtureAgent(): string | null {
  const path = join(dirname(realpathSync(process.argv[1] ?? '.')), '../../../fixtures/agent.mjs');
  return existsSync(path) ? path : null;
}

/**
 * The demo workspace: the fixture agent, run as `claude` so that it is identified like Claude
 * Code, running a turn by itself every few seconds, and a shell. Made once per home.
 */
async function ensureDemo(): Promise<void> {
  const { workspaces } = await request('workspace.list', {});
  if (workspaces.some((w) => w.name === 'demo')) return;
  const agent = fixtureAgent();
  const cwd = process.cwd();
  const panes: Array<{ name: string; cwd: string; command?: string; focus: boolean; env: Record<string, string> }> = [];
  if (agent) {
    const bin = join(instanceEndpoints().home, 'demo', 'bin');
    mkdirSync(bin, { recursive: true });
    rmSync(join(bin, 'claude'), { force: true });
    symlinkSync(agent, join(bin, 'claude'));
    panes.push({ name: 'demo-agent', cwd, command: 'claude --auto 6000 --block', focus: true, env: { PATH: `${bin}:${process.env.PATH}` } });
  }
  panes.push({ name: 'demo-shell', cwd, focus: !agent, env: {} });
  await request('workspace.up', { name: 'demo', layout: 'even_h', panes });
}

/**
 * `paneflow` with no verb where no desktop can run: start the instance, open the demo workspace,
 * and show the live agent table — redrawn on every event — until Ctrl-C. The instance stays up.
 */
export async function headless(why: string): Promise<number> {
  process.stderr.write(`paneflow: ${why}; running headless\n`);
  const info = await ensureInstance();
  process.stderr.write(`paneflow: instance ${info.adopted ? 'running' : 'started'} (serve pid ${info.pid}, ${instanceEndpoints().home})\n`);
  await ensureDemo();
  const tty = process.stdout.isTTY === true;
  let drawing = false;
  let pending = false;
  const draw = async () => {
    if (drawing) {
      pending = true;
      return;
    }
    drawing = true;
    try {
      const { agents } = await request('fleet.list', {});
      const screen = `${agentTable(agents)}\n\nlive: refreshed on every event · Ctrl-C leaves the instance running (paneflow ps, paneflow stop)\n`;
      process.stdout.write(tty ? `\x1b[H\x1b[2J${screen}` : `${screen}\n`);
    } finally {
      drawing = false;
      if (pending) {
        pending = false;
        void draw();
      }
    }
  };
  const stream = await subscribe({ types: ['status_changed', 'surface_created', 'surface_closed', 'session_changed'] }, () => void draw());
  await draw();
  return new Promise<number>((resolve) => {
    process.once('SIGINT', () => {
      stream.destroy();
      resolve(0);
    });
    stream.onClose(() => resolve(1));
  });
}
