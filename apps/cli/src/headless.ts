import { existsSync, mkdirSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureInstance, instanceEndpoints, request } from './instance';
import { fleetTable, liveTable } from './live';

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
    const demo = join(instanceEndpoints().home, 'demo');
    const bin = join(demo, 'bin');
    mkdirSync(bin, { recursive: true });
    rmSync(join(bin, 'claude'), { force: true });
    symlinkSync(agent, join(bin, 'claude'));
    // Its conversations go where Claude Code would keep them, in a directory of the demo's own.
    const env = { PATH: `${bin}:${process.env.PATH}`, CLAUDE_CONFIG_DIR: join(demo, 'claude') };
    panes.push({ name: 'demo-agent', cwd, command: 'claude --auto 6000 --block', focus: true, env });
  }
  panes.push({ name: 'demo-shell', cwd, focus: !agent, env: {} });
  await request('workspace.up', { name: 'demo', layout: 'even_h', panes });
}

/**
 * `paneflow` with no verb where no desktop can run: start the instance, open the demo workspace,
 * and in a terminal attach to it (`paneflow attach demo`); where stdout is no terminal, show the
 * live agent table instead. Either way the instance stays up.
 */
export async function headless(why: string, trace: (phase: string) => void, attachDemo: () => Promise<number>): Promise<number> {
  process.stderr.write(`paneflow: ${why}; running headless\n`);
  const info = await ensureInstance();
  trace('instance ready');
  process.stderr.write(`paneflow: instance ${info.adopted ? 'running' : 'started'} (serve pid ${info.pid}, ${instanceEndpoints().home})\n`);
  await ensureDemo();
  trace('demo workspace ready');
  return process.stdin.isTTY && process.stdout.isTTY ? attachDemo() : liveTable(fleetTable);
}
