import type { EventType } from '@paneflow/protocol/events';
import { CliError } from './errors';
import { request } from './instance';
import { printJson } from './output';
import { resolveSelector, targetOf, type Target, type Where } from './select';
import { waitUntil } from './watching';

export interface WaitOptions {
  pattern?: string;
  idle: boolean;
  forMs: number;
  timeoutS: number;
  any: boolean;
  all: boolean;
  where: Where;
}

interface Outcome {
  surface_id: number;
  machine?: string;
  matched: 'pattern' | 'idle';
  state: string;
  line?: string;
}

/**
 * `wait --idle` for one pane, as a check to repeat (REFERENCE.md §4.6): a declaring agent is idle
 * once it is not busy; anything else once its output has not moved for `forMs`. A `detecting`
 * agent is classified first. `flow run`'s send steps wait the same way.
 */
export function idleCheck(forMs: number): (target: Target) => Promise<{ state: string } | null> {
  const quiet = new Map<number, { generation: number; since: number }>();
  return async (target) => {
    const surfaceId = target.surface_id;
    const status = await request('surface.status', target);
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
export async function matchingLine(target: Target, regex: RegExp, lines = 200): Promise<string | null> {
  const { text } = await request('surface.read', { ...target, lines, fenced: false });
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
  // One selector names panes of one machine: their ids are that machine's.
  const targets = (await resolveSelector(selector, options.where, options.any || options.all)).map(targetOf);
  const ids = targets.map((t) => t.surface_id);
  const machine = targets[0]?.machine;
  const idle = idleCheck(options.forMs);
  const done = new Map<number, Outcome>();
  const outcomeOf = async (target: Target): Promise<Outcome | null> => {
    const line = regex ? await matchingLine(target, regex) : null;
    if (line !== null) return { ...target, matched: 'pattern', state: (await request('surface.status', target)).state, line };
    const quiet = options.idle ? await idle(target) : null;
    return quiet ? { ...target, matched: 'idle', state: quiet.state } : null;
  };
  const types: EventType[] = ['surface_changed', 'status_changed'];
  const result = await waitUntil(
    // Another machine's frames come to a subscriber that asks for every machine's; a filter by id would be this machine's ids.
    machine ? { types, machines: true } : { surfaces: ids, types },
    async () => {
      for (const target of targets) {
        const id = target.surface_id;
        if (done.has(id)) continue;
        const outcome = await outcomeOf(target);
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
