import type { Scope } from '@paneflow/protocol/wire';
import { CliError } from './errors';
import { request } from './instance';
import { printJson } from './output';
import { resolveSelector } from './select';
import { waitUntil } from './watching';

export interface WaitOptions {
  pattern?: string;
  idle: boolean;
  forMs: number;
  timeoutS: number;
  any: boolean;
  all: boolean;
  scope: Scope;
}

interface Outcome {
  surface_id: number;
  matched: 'pattern' | 'idle';
  state: string;
  line?: string;
}

/**
 * `wait --idle` for one pane, as a check to repeat (REFERENCE.md §4.6): a declaring agent is idle
 * once it is not busy; anything else once its output has not moved for `forMs`. A `detecting`
 * agent is classified first. `flow run`'s send steps wait the same way.
 */
export function idleCheck(forMs: number): (surfaceId: number) => Promise<{ state: string } | null> {
  const quiet = new Map<number, { generation: number; since: number }>();
  return async (surfaceId) => {
    const status = await request('surface.status', { surface_id: surfaceId });
    if (status.reason === 'declared' || status.reason === 'capable') return status.status !== 'busy' ? { state: status.state } : null;
    if (status.reason === 'detecting') return null;
    const generation = status.output_generation ?? 0;
    const seen = quiet.get(surfaceId);
    if (!seen || seen.generation !== generation) quiet.set(surfaceId, { generation, since: Date.now() });
    else if (Date.now() - seen.since >= forMs) return { state: status.state };
    return null;
  };
}

/** The first of the pane's last `lines` lines that matches; text already on screen counts. */
export async function matchingLine(surfaceId: number, regex: RegExp, lines = 200): Promise<string | null> {
  const { text } = await request('surface.read', { surface_id: surfaceId, lines, fenced: false });
  return text.split('\n').find((line) => regex.test(line)) ?? null;
}

/** REFERENCE.md §4.6: a pattern in the last 200 lines, or the end of a turn, for one pane, any or all. */
export async function wait(selector: string, options: WaitOptions): Promise<number> {
  let regex: RegExp | null = null;
  if (options.pattern !== undefined) {
    try {
      regex = new RegExp(options.pattern);
    } catch (error) {
      throw new CliError(`--pattern is not a valid regular expression: ${(error as Error).message}`, 2);
    }
  }
  const targets = await resolveSelector(selector, options.scope, options.any || options.all);
  const ids = targets.map((t) => t.surface_id);
  const idle = idleCheck(options.forMs);
  const done = new Map<number, Outcome>();
  const outcomeOf = async (id: number): Promise<Outcome | null> => {
    const line = regex ? await matchingLine(id, regex) : null;
    if (line !== null) return { surface_id: id, matched: 'pattern', state: (await request('surface.status', { surface_id: id })).state, line };
    const quiet = options.idle ? await idle(id) : null;
    return quiet ? { surface_id: id, matched: 'idle', state: quiet.state } : null;
  };
  const result = await waitUntil(
    { surfaces: ids, types: ['surface_changed', 'status_changed'] },
    async () => {
      for (const id of ids) {
        if (done.has(id)) continue;
        const outcome = await outcomeOf(id);
        if (!outcome) continue;
        if (!options.all) return outcome;
        done.set(id, outcome);
      }
      return options.all && done.size === ids.length ? { results: ids.map((id) => done.get(id)) } : null;
    },
    { timeoutMs: options.timeoutS * 1000 },
  );
  if (result === null) {
    process.stderr.write(`paneflow: wait timed out after ${options.timeoutS} s\n`);
    return 4;
  }
  printJson(result);
  return 0;
}
