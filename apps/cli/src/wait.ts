import { CliError, request, subscribe } from './instance';
import { printJson } from './output';
import { resolveSelector } from './select';
import type { Scope } from '@paneflow/protocol/wire';

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

const RECHECK_MS = 250;

/**
 * REFERENCE.md §4.6: waits for a pattern in the last 200 lines, or for the end of a turn (a
 * declaring agent) or quiet output (anything else), re-checking on every event for the pane and
 * at least every 250 ms. Exit 4 on timeout, 1 if the connection to serve is lost.
 */
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
  const quiet = new Map<number, { generation: number; since: number }>();
  const done = new Map<number, Outcome>();
  let checking = false;
  let again = false;
  let settled = false;
  let finish: (code: number) => void = () => undefined;
  const finished = new Promise<number>((resolve) => {
    finish = (code) => {
      settled = true;
      resolve(code);
    };
  });

  const check = async (id: number): Promise<Outcome | null> => {
    if (regex) {
      const { text } = await request('surface.read', { surface_id: id, lines: 200, fenced: false });
      const line = text.split('\n').find((l) => regex!.test(l));
      if (line !== undefined) {
        const { state } = await request('surface.status', { surface_id: id });
        return { surface_id: id, matched: 'pattern', state, line };
      }
    }
    if (options.idle) {
      const status = await request('surface.status', { surface_id: id });
      if (status.reason === 'declared' || status.reason === 'capable') {
        if (status.status !== 'busy') return { surface_id: id, matched: 'idle', state: status.state };
      } else if (status.reason !== 'detecting') {
        // Declares nothing: idle once its output has not moved for --for ms.
        const generation = status.output_generation ?? 0;
        const seen = quiet.get(id);
        if (!seen || seen.generation !== generation) quiet.set(id, { generation, since: Date.now() });
        else if (Date.now() - seen.since >= options.forMs) return { surface_id: id, matched: 'idle', state: status.state };
      }
    }
    return null;
  };

  const run = async () => {
    if (checking) {
      again = true;
      return;
    }
    checking = true;
    try {
      do {
        again = false;
        for (const id of ids) {
          if (done.has(id)) continue;
          const outcome = await check(id);
          if (!outcome) continue;
          done.set(id, outcome);
          if (!options.all) {
            printJson(outcome);
            return finish(0);
          }
        }
        if (options.all && done.size === ids.length) {
          printJson({ results: ids.map((id) => done.get(id)) });
          return finish(0);
        }
      } while (again);
    } catch (error) {
      process.stderr.write(`paneflow: ${(error as Error).message}\n`);
      finish(error instanceof CliError ? error.exitCode : 1);
    } finally {
      checking = false;
    }
  };

  const stream = await subscribe({ surfaces: ids, types: ['surface_changed', 'status_changed'] }, () => void run());
  stream.onClose(() => {
    if (settled) return;
    process.stderr.write('paneflow: lost the connection to serve\n');
    finish(1);
  });
  const ticker = setInterval(() => void run(), RECHECK_MS);
  const timeout = setTimeout(() => {
    process.stderr.write(`paneflow: wait timed out after ${options.timeoutS} s\n`);
    finish(4);
  }, options.timeoutS * 1000);
  void run();
  const code = await finished;
  clearInterval(ticker);
  clearTimeout(timeout);
  stream.destroy();
  return code;
}
