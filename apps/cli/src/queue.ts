// `paneflow queue`: the prompts queued for agents (`send --queue`), and `queue rm|move|send-now`.
import type { PaneQueue } from '@paneflow/protocol/supervisor';
import type { Scope } from '@paneflow/protocol/wire';
import { displayText, durationText } from '@paneflow/view';
import { CliError, UsageError } from './errors';
import { request } from './instance';
import { printJson, table } from './output';
import { localPane, resolveOne } from './select';
import { wholeNumber } from './usage';

export interface QueueOptions {
  json: boolean;
  force: boolean;
  scope: Scope;
}

/** The queue's verbs: a first word that is one of these is an action, anything else a target. */
const ACTIONS = ['rm', 'move', 'send-now'] as const;
const QUEUE_TEXT_CHARS = 60;

/** Who writes: the caller's scope and workspace, as `send` says them. */
const caller = (scope: Scope) => ({ scope, ...(process.env.PANEFLOW_WORKSPACE_ID ? { workspace_id: process.env.PANEFLOW_WORKSPACE_ID } : {}) });

/** A queued prompt's text on one line: every control shown (a newline is ^J), cut to 60 characters. */
export function queuedText(text: string): string {
  const clean = displayText(text);
  return clean.length > QUEUE_TEXT_CHARS ? `${clean.slice(0, QUEUE_TEXT_CHARS - 1)}…` : clean;
}

function queueId(text: string | undefined, action: string): string {
  if (text === undefined) throw new UsageError(`queue ${action} needs the id of a queued prompt (q1, q2, … as \`paneflow queue\` lists them)`);
  if (!/^q[1-9][0-9]{0,15}$/.test(text)) throw new UsageError(`'${displayText(text)}' is not a queued prompt's id (q1, q2, …)`);
  return text;
}

/** serve's answers that are the verb's own exit codes: an unknown id is 3, a position past the end a usage error. */
async function mapped<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof CliError && error.reason === 'not_found') throw new CliError(error.message, 3, error.reason);
    if (error instanceof CliError && error.reason === 'bad_position') throw new CliError(error.message, 2, error.reason);
    throw error;
  }
}

export function queueTable(queues: PaneQueue[], names: Map<number, string | null>, nowMs: number): string {
  const rows = queues.flatMap((q) =>
    q.items.map((item) => [item.id, String(q.surface_id), names.get(q.surface_id) ?? '', String(item.position), durationText(nowMs - item.queued_at_ms), q.held?.reason ?? '', queuedText(item.text)]),
  );
  const held = queues
    .filter((q) => q.held)
    .map((q) => displayText(`held: surface ${q.surface_id}${names.get(q.surface_id) ? ` (${names.get(q.surface_id)})` : ''} since ${new Date(q.held!.since_ms).toTimeString().slice(0, 5)}, ${q.held!.reason}: ${q.held!.message}`));
  if (rows.length === 0 && held.length === 0) return 'no queued prompts';
  return [...(rows.length > 0 ? [table(['ID', 'PANE', 'NAME', 'POS', 'AGE', 'HELD', 'TEXT'], rows)] : []), ...held].join('\n');
}

export async function queue(first: string | undefined, id: string | undefined, position: string | undefined, options: QueueOptions): Promise<number> {
  const action = ACTIONS.find((a) => a === first);
  if (options.force && action !== 'send-now') throw new UsageError('--force goes only with queue send-now');
  const extra = action === 'move' ? undefined : action ? position : id;
  if (extra !== undefined) throw new UsageError(`'queue${action ? ` ${action}` : ''}' takes no '${displayText(extra)}'`);
  if (action === 'rm') {
    printJson(await mapped(request('queue.remove', { id: queueId(id, action), ...caller(options.scope) })));
    return 0;
  }
  if (action === 'move') {
    const target = queueId(id, action);
    if (position === undefined) throw new UsageError('queue move needs a position (1 goes next)');
    printJson(await mapped(request('queue.move', { id: target, position: wholeNumber('<position>', position, { min: 1 }), ...caller(options.scope) })));
    return 0;
  }
  if (action === 'send-now') {
    const result = await mapped(request('queue.send_now', { id: queueId(id, action), ...(options.force ? { force: true } : {}), ...caller(options.scope) }));
    printJson(result);
    // As `send --submit`: a turn that did not start is a failure.
    return result.sent.started === false ? 1 : 0;
  }
  const surface = first === undefined ? undefined : localPane(await resolveOne(first, { scope: options.scope }), 'queue');
  const { queues } = await request('queue.list', surface === undefined ? {} : { surface_id: surface });
  if (options.json) {
    printJson({ queues });
    return 0;
  }
  // Queues are this machine's: so are the names beside them (another's ids may be the same).
  const { surfaces } = await request('surface.list', { scope: 'all', machine: null });
  const names = new Map(surfaces.map((s) => [s.surface_id, s.name]));
  process.stdout.write(queueTable(queues, names, Date.now()) + '\n');
  return 0;
}
