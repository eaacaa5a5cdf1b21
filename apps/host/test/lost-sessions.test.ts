import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { running, startHost, waitUntil, type TestHost } from './helpers';

// Sessions an earlier host left (REFERENCE.md §1.2): lost, and their processes signalled only
// while their start time proves them the recorded ones.

let host: TestHost | null = null;
afterEach(async () => {
  await host?.cleanup();
  host = null;
});

test('restarting a lost session whose process outlived its host ends that process first: one agent per pane, never two', async () => {
  host = await startHost();
  const client = await host.connect();
  // Deaf to the hangup the host's death sends, as an agent that outlives its host is.
  const { session, pid } = await client.create({ argv: ['sh', '-c', "trap '' HUP; echo life-$$; exec sleep 600"] });
  await client.screenMatching(session, /life-\d+/);
  const manifest = join(host.env.PANEFLOW_HOME!, 'host/sessions', `${session}.json`);
  await waitUntil(() => JSON.parse(readFileSync(manifest, 'utf8')).process?.pid === pid, 'the manifest records the process');
  process.kill(host.pid, 'SIGKILL');
  await waitUntil(() => !running(host!.pid), 'the killed host is gone');
  expect(running(pid)).toBe(true);

  host.start();
  const after = await host.connect();
  const restarted = await after.request('session.restart', { session });
  expect(running(pid)).toBe(false);
  expect(restarted).toMatchObject({ generation: 2 });
  expect(restarted.pid).not.toBe(pid);
  await after.screenMatching(session, new RegExp(`life-${restarted.pid}`));
});
