import type { StatusObject } from '@paneflow/rpc/public-protocol';
import { isAbsolute, resolve } from 'node:path';
import { CliError, request, subscribe } from './instance';
import { printJson } from './output';
import { resolveOne, resolveSelector, type Scope } from './select';

/** REFERENCE.md §4.4: a submit to a declaring agent is confirmed by its state_seq within 3 s. */
export const CONFIRM_MS = 3000;
const MAX_TEXT_BYTES = 64 * 1024;

export interface SendOptions {
  submit: boolean;
  paste?: boolean;
  broadcast: boolean;
  force: boolean;
  reportFile?: string;
  scope: Scope;
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

const writeParams = (scope: Scope) => ({
  scope,
  origin: 'cli' as const,
  ...(process.env.PANEFLOW_WORKSPACE_ID ? { workspace_id: process.env.PANEFLOW_WORKSPACE_ID } : {}),
});

/** A closed gate stops a broadcast before its first write. */
async function checkGate(scope: Scope) {
  const capabilities = await request('system.capabilities', {});
  if (!capabilities.scripting && !capabilities.ai_unrestricted) throw new CliError('surface.send_text disabled: relaunch with PANEFLOW_IPC_SCRIPTING=1', 1);
  if (scope === 'all' && !capabilities.orchestration) throw new CliError('--scope all requires PANEFLOW_IPC_ORCHESTRATION=1', 1);
}

export async function send(selector: string, textArg: string, options: SendOptions): Promise<number> {
  if (options.reportFile && options.broadcast) throw new CliError('--report-file cannot go with --broadcast', 2);
  let text = textArg === '-' ? await readStdin() : textArg;
  const report = options.reportFile ? reportProtocol(isAbsolute(options.reportFile) ? options.reportFile : resolve(options.reportFile)) : null;
  if (report) text += report.text;
  if (Buffer.byteLength(text) > MAX_TEXT_BYTES) throw new CliError(`the text is over ${MAX_TEXT_BYTES} bytes`, 1);

  if (options.broadcast) {
    const targets = await resolveSelector(selector, options.scope, true);
    await checkGate(options.scope);
    const sent: number[] = [];
    const failed: number[] = [];
    const submitted: number[] = [];
    for (const target of targets) {
      try {
        const result = await request('surface.send_text', { surface_id: target.surface_id, text, submit: options.submit, ...(options.paste ? { paste: true } : {}), ...writeParams(options.scope) });
        sent.push(target.surface_id);
        if (result.submitted) submitted.push(target.surface_id);
      } catch (error) {
        failed.push(target.surface_id);
        process.stderr.write(`paneflow: surface ${target.surface_id}: ${(error as Error).message}\n`);
      }
    }
    printJson({ sent, failed, submitted });
    return failed.length > 0 ? 1 : 0;
  }

  const target = await resolveOne(selector, options.scope);
  const { out, confirmed } = await sendToPane(target.surface_id, text, options);
  if (report) Object.assign(out, { report_file: report.sentinel.slice('REPORT_DONE '.length), report_sentinel: report.sentinel });
  printJson(out);
  return confirmed === false ? 1 : 0;
}

/**
 * One pane, the rules of REFERENCE.md §4.4: the busy guard, then for a submit to an agent the
 * confirmation — subscribed before sending, a declaring agent must move its state_seq into
 * thinking or waiting_for_input within 3 s. `confirmed` is false when it did not, null when the
 * agent declares nothing (or nothing was submitted to an agent).
 */
export async function sendToPane(
  surfaceId: number,
  text: string,
  options: Pick<SendOptions, 'submit' | 'paste' | 'force' | 'scope'>,
): Promise<{ out: Record<string, unknown>; confirmed: boolean | null }> {
  const before = options.submit ? await request('surface.status', { surface_id: surfaceId }) : null;
  const agentInFront = before !== null && before.tool !== null;
  if (before && agentInFront && !options.force && (before.state === 'thinking' || before.state === 'waiting_for_input')) {
    throw new CliError(`agent_busy: surface ${surfaceId} is ${before.state}; a submit now would answer it (use --force to send anyway)`, 1);
  }
  // Subscribe before sending, so that no transition can come and go unseen.
  const transitions: Array<Pick<StatusObject, 'state_seq' | 'state' | 'reason'>> = [];
  let wake: () => void = () => undefined;
  const stream =
    before && agentInFront
      ? await subscribe({ surfaces: [surfaceId], types: ['status_changed'] }, (frame) => {
          if (frame.type !== 'status_changed') return;
          transitions.push(frame as never);
          wake();
        })
      : null;
  try {
    const result = await request('surface.send_text', {
      surface_id: surfaceId,
      text,
      submit: options.submit,
      ...(options.paste ? { paste: true } : {}),
      ...writeParams(options.scope),
    });
    const out: Record<string, unknown> = { ...result };
    if (!options.submit || !result.agent_target || !before) return { out, confirmed: null };
    const waitFor = (test: () => boolean, ms: number) =>
      new Promise<boolean>((resolveWait) => {
        if (test()) return resolveWait(true);
        const timer = setTimeout(() => resolveWait(test()), ms);
        wake = () => {
          if (test()) {
            clearTimeout(timer);
            resolveWait(true);
          }
        };
      });
    let reason = before.reason;
    if (reason === 'detecting') {
      // Classified when its detection window ends: by a transition, or the next status.
      await waitFor(() => transitions.some((t) => t.reason !== 'detecting'), CONFIRM_MS);
      reason = transitions.find((t) => t.reason !== 'detecting')?.reason ?? (await request('surface.status', { surface_id: surfaceId })).reason;
    }
    if (reason === 'declared' || reason === 'capable') {
      const started = await waitFor(() => transitions.some((t) => t.state_seq > before.state_seq && (t.state === 'thinking' || t.state === 'waiting_for_input')), CONFIRM_MS);
      const seq = transitions.at(-1)?.state_seq ?? before.state_seq;
      return { out: { ...out, started, start_reason: started ? 'state_changed' : 'not_started', state_seq: seq }, confirmed: started };
    }
    return { out: { ...out, started: null, start_reason: 'no_signal', state_seq: before.state_seq }, confirmed: null };
  } finally {
    stream?.destroy();
  }
}
