import { InstanceClient } from '@paneflow/client';
import { runtimeCatalog } from '@paneflow/procscan/catalog-source';
import type { PaneStatus } from '@paneflow/view';
import type { ReadStream, WriteStream } from 'node:tty';
import { CliError } from '../errors';
import { explain, instanceEndpoints } from '../instance';
import { AttachClient } from './client';
import { OuterTerminal } from './tty';

/**
 * `paneflow attach [<workspace>]`: takes over the terminal it runs in until detached (prefix d).
 * Closing the terminal or losing the SSH connection ends only the client; sessions run on.
 */
export async function attach(workspace: string | undefined): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new CliError('attach needs a terminal (stdin and stdout); for a live table elsewhere use `paneflow ps --watch`', 1);
  const catalog = runtimeCatalog();
  const client = new InstanceClient(instanceEndpoints(), 'attach');
  const tty = new OuterTerminal(process.stdin as ReadStream, process.stdout as WriteStream);
  // The terminal is put back whatever ends the client.
  const restore = () => tty.leave();
  process.once('exit', restore);
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(signal === 'SIGHUP' ? 0 : 1));
  try {
    const session = new AttachClient(client, tty, {
      label: (s: PaneStatus) => s.surface_name ?? (s.runtime_id ? catalog.bySlug.get(s.runtime_id)?.label : undefined) ?? `pane ${s.surface_id}`,
    });
    return await session.run(workspace);
  } catch (error) {
    throw explain(error);
  } finally {
    restore();
    client.close();
  }
}
