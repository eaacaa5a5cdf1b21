import { MAX_SEND_TEXT_BYTES } from '@paneflow/protocol/limits';
import { isAbsolute, resolve } from 'node:path';
import { request } from './instance';
import { CliError } from './errors';
import { printJson } from './output';
import { callerWorkspaceFor, resolveOne, resolveSelector, targetOf, type Target, type Where } from './select';
import type { Scope } from '@paneflow/protocol/wire';

export interface SendOptions {
  submit: boolean;
  paste?: boolean;
  broadcast: boolean;
  force: boolean;
  reportFile?: string;
  /** Kept by serve until the agent's turn ends (`queue.add`), then submitted. */
  queue?: boolean;
  where: Where;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The block `--report-file` appends: where the agent writes its report, and the line that says so. */
export function reportProtocol(path: string): { text: string; sentinel: string } {
  const sentinel = `REPORT_DONE ${path}`;
  return {
    sentinel,
    text: `\n\nPaneflow report protocol: when you have finished, write your report to ${path}, then print this line on its own: ${sentinel}`,
  };
}

/** Where a write comes from: the caller's workspace (serve's scope check), and who asks. */
export interface WriteOrigin {
  /** The workspace the write is made from: the caller's (`PANEFLOW_WORKSPACE_ID`) or a flow's own. */
  workspaceId?: string;
  origin?: 'cli' | 'flow';
}

/** A write's params: to another machine's pane, no workspace of this one (that serve takes the caller as outside its panes). */
const writeParams = (target: Target, scope: Scope, { workspaceId = process.env.PANEFLOW_WORKSPACE_ID, origin = 'cli' }: WriteOrigin = {}) => ({
  scope,
  origin,
  ...callerWorkspaceFor(target, workspaceId),
});

/** A closed gate stops a broadcast before its first write. */
async function checkGate(scope: Scope) {
  const capabilities = await request('system.capabilities', {});
  if (!capabilities.scripting && !capabilities.ai_unrestricted) throw new CliError('surface.send_text disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1', 1);
  if (scope === 'all' && !capabilities.orchestration) throw new CliError('--scope all requires PANEFLOW_IPC_ORCHESTRATION=1', 1);
}

export async function send(selector: string, textArg: string, options: SendOptions): Promise<number> {
  if (options.reportFile && options.broadcast) throw new CliError('--report-file cannot go with --broadcast', 2);
  if (options.queue && (options.broadcast || options.paste || options.force)) {
    throw new CliError('--queue cannot go with --broadcast, --paste or --force: a queued prompt goes to one pane, as a submit, when its turn ends', 2);
  }
  let text = textArg === '-' ? await readStdin() : textArg;
  const report = options.reportFile ? reportProtocol(isAbsolute(options.reportFile) ? options.reportFile : resolve(options.reportFile)) : null;
  if (report) text += report.text;
  if (Buffer.byteLength(text) > MAX_SEND_TEXT_BYTES) throw new CliError(`the text is over ${MAX_SEND_TEXT_BYTES} bytes`, 1);

  const { scope } = options.where;
  if (options.queue) {
    const target = await resolveOne(selector, options.where);
    printJson(await request('queue.add', { ...targetOf(target), text, scope, ...callerWorkspaceFor(target) }));
    return 0;
  }

  if (options.broadcast) {
    const targets = await resolveSelector(selector, options.where, true);
    // Another machine's gates are its serve's: it refuses each write itself.
    if (!targets.some((t) => t.machine)) await checkGate(scope);
    const sent: number[] = [];
    const failed: number[] = [];
    const submitted: number[] = [];
    for (const target of targets) {
      try {
        const { out } = await sendToPane(targetOf(target), text, { ...options, scope });
        sent.push(target.surface_id);
        if (out.submitted) submitted.push(target.surface_id);
      } catch (error) {
        failed.push(target.surface_id);
        process.stderr.write(`paneflow: surface ${target.surface_id}: ${(error as Error).message}\n`);
      }
    }
    printJson({ sent, failed, submitted });
    return failed.length > 0 ? 1 : 0;
  }

  const target = await resolveOne(selector, options.where);
  const { out, confirmed } = await sendToPane(targetOf(target), text, { ...options, scope });
  if (report) Object.assign(out, { report_file: report.sentinel.slice('REPORT_DONE '.length), report_sentinel: report.sentinel });
  printJson(out);
  return confirmed === false ? 1 : 0;
}

/**
 * One pane, by the rules of REFERENCE.md §4.4, which serve applies: the busy guard, and for a
 * submit to an agent the confirmation that its turn started. `confirmed` is false when it did
 * not, null when the agent declares nothing (or nothing was submitted to an agent).
 */
export async function sendToPane(
  target: Target,
  text: string,
  options: Pick<SendOptions, 'submit' | 'paste' | 'force'> & { scope: Scope } & WriteOrigin,
): Promise<{ out: Record<string, unknown>; confirmed: boolean | null }> {
  const result = await request('surface.send_text', {
    ...target,
    text,
    submit: options.submit,
    ...(options.paste ? { paste: true } : {}),
    ...(options.force ? { force: true } : {}),
    ...writeParams(target, options.scope, options),
  });
  return { out: result, confirmed: result.started ?? null };
}
