import { InstanceClient } from '@paneflow/client';
import { runtimeCatalog } from '@paneflow/procscan/catalog-source';
import type { ReadStream, WriteStream } from 'node:tty';
import { isMachineName } from '@paneflow/protocol/machine-names';
import { displayText, type PaneStatus } from '@paneflow/view';
import { CliError, UsageError } from '../errors';
import { explain, instanceEndpoints } from '../instance';
import { AttachClient } from './client';
import { OuterTerminal } from './tty';

/**
 * `paneflow attach [<workspace>] [--machine NAME]`: takes over the terminal it runs in until
 * detached (prefix d). Closing the terminal or losing the SSH connection ends only the client;
 * sessions run on. With a machine, its workspace through this serve's link (issue 32).
 */
export async function attach(workspace: string | undefined, machine?: string): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new CliError('attach needs a terminal (stdin and stdout); for a live table elsewhere use `paneflow ps --watch`', 1);
  if (machine !== undefined && !isMachineName(machine)) throw new UsageError(`'${displayText(machine)}' is not a machine name (see \`paneflow machine ls\`)`);
  const catalog = runtimeCatalog();
  const client = new InstanceClient(instanceEndpoints(), 'attach', machine ?? null);
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
