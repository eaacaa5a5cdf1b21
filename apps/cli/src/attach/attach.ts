import { InstanceClient } from '@paneflow/client';
import { runtimeCatalog } from '@paneflow/procscan/catalog-source';
import type { ReadStream, WriteStream } from 'node:tty';
import { isMachineName } from '@paneflow/protocol/machine-names';
import { displayText, type PaneStatus } from '@paneflow/view';
import { CliError, UsageError } from '../errors';
import { explain, instanceEndpoints } from '../instance';
import { AttachClient, type AttachStart } from './client';
import { OUTPUT_FRAME_MS } from './pacing';
import { OuterTerminal } from './tty';

/**
 * `paneflow attach [<workspace>] [--machine NAME]`: takes over the terminal it runs in until
 * detached (prefix d). Closing the terminal or losing the SSH connection ends only the client;
 * sessions run on. With a machine, its workspace through this serve's link (issue 32). Going to
 * an agent on another machine (prefix a, a click in the sidebar) ends one session and starts the
 * next in that machine's instance, in the same taken-over terminal.
 */
export async function attach(workspace: string | undefined, machine?: string): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new CliError('attach needs a terminal (stdin and stdout); for a live table elsewhere use `paneflow ps --watch`', 1);
  if (machine !== undefined && !isMachineName(machine)) throw new UsageError(`'${displayText(machine)}' is not a machine name (see \`paneflow machine ls\`)`);
  const catalog = runtimeCatalog();
  const endpoints = instanceEndpoints();
  // This machine's serve: the sidebar's other machines and the fleet-wide inbox, wherever attach works.
  const local = new InstanceClient(endpoints, 'attach');
  const tty = new OuterTerminal(process.stdin as ReadStream, process.stdout as WriteStream);
  // The terminal is put back whatever ends the client.
  const restore = () => tty.leave();
  process.once('exit', restore);
  for (const signal of ['SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(signal === 'SIGHUP' ? 0 : 1));
  const options = { label: (s: PaneStatus) => s.surface_name ?? (s.runtime_id ? catalog.bySlug.get(s.runtime_id)?.label : undefined) ?? `pane ${s.surface_id}` };
  let at: string | null = machine ?? null;
  let start: AttachStart = { workspace };
  // Where the session before a switch was: a machine whose link went down since its row was read cannot start one.
  let back: { at: string | null; start: AttachStart } | null = null;
  try {
    for (;;) {
      // The host gathers each pane's output for as long as attach waits between output frames.
      const client = new InstanceClient(endpoints, 'attach', at, OUTPUT_FRAME_MS);
      try {
        const end = await new AttachClient(client, local, tty, options).run(start);
        if ('code' in end) return end.code;
        back = { at, start: end.back };
        at = end.switchTo.machine;
        start = { pane: end.switchTo.surfaceId };
      } catch (error) {
        if (!back) throw error;
        ({ at, start } = { at: back.at, start: { ...back.start, note: displayText((error as Error).message) } });
        back = null;
      } finally {
        client.close();
      }
    }
  } catch (error) {
    throw explain(error);
  } finally {
    restore();
    local.close();
  }
}
