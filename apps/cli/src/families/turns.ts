// The turn ledger's verbs: turns (and turns prune), diff, digest.
import type { TurnRecord } from '@paneflow/protocol/turns';
import { changeText, DIFF_TONES, diffLines, digestLine, durationText, ENDING_TONES, endingText, fileLineText, promptLine, tokensText, turnMs, type Tone } from '@paneflow/view';
import { CliError } from '../errors';
import { request } from '../instance';
import { colorOn, paint, printJson, table, withMachines, type Cell } from '../output';
import { resolveOne, targetOf, type Target } from '../select';
import { flag, machineOf, str, whereOf, type Run } from './common';

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since`: a span back from now (`90s`, `30m`, `2h`, `3d`) or a date; anything else is a usage error. */
export function sinceMs(text: string | undefined, nowMs = Date.now()): number | undefined {
  if (text === undefined) return undefined;
  const span = /^(\d+)([smhd])$/.exec(text);
  if (span) return nowMs - Number(span[1]) * UNIT_MS[span[2]];
  const date = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(date)) throw new CliError(`--since takes a span (90s, 30m, 2h, 3d) or a date (2026-12-04T09:00), not '${text}'`, 2);
  return date;
}

/** A tone as SGR parameters (`31;1`), or none for the default. */
const sgr = (tone: Tone) => [tone.color === null ? '' : String(30 + tone.color), tone.bold ? '1' : '', tone.dim ? '2' : ''].filter(Boolean).join(';') || undefined;
const clock = (ms: number) => new Date(ms).toTimeString().slice(0, 5);

export function turnTable(turns: TurnRecord[], nowMs: number): string {
  if (turns.length === 0) return 'no turns';
  return table(
    ['ID', 'TURN', 'STARTED', 'TOOK', 'ENDED', 'CHANGE', 'TOKENS', 'PROMPT'],
    turns.map((t): Cell[] => {
      const ending = endingText(t);
      return [String(t.surface_id), `#${t.turn}`, clock(t.started_at_ms), durationText(turnMs(t, nowMs)), { text: ending, color: sgr(ENDING_TONES[ending]) ?? '0' }, changeText(t), tokensText(t.tokens), promptLine(t.prompt?.text)];
    }),
  );
}

/** The pane a selector names, or none: every pane (of `--machine`'s machine when it names one). */
async function surfaceOf(target: string | undefined, parsed: Parameters<Run>[0]): Promise<Partial<Target>> {
  return target === undefined ? machineOf(parsed) : targetOf(await resolveOne(target, whereOf(parsed)));
}

/** serve's "not found" for a turn is the verb's exit 3, as for a pane. */
async function orNotFound<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof CliError && error.reason === 'not_found') throw new CliError(error.message, 3, error.reason);
    throw error;
  }
}

export const run: Record<string, Run> = {
  async turns(p) {
    const first = p.args.target as string | undefined;
    const second = p.args.prune_target as string | undefined;
    if (first === 'prune') {
      printJson(await request('turn.prune', await surfaceOf(second, p)));
      return 0;
    }
    if (second !== undefined) throw new CliError(`'turns' takes one target, not '${second}' too (or: turns prune [target])`, 2);
    const since = sinceMs(flag(p, 'since'));
    const limit = flag<number>(p, 'limit');
    const { turns } = await request('turn.list', { ...(await surfaceOf(first, p)), since_ms: since, limit });
    if (flag(p, 'json')) printJson({ turns });
    else process.stdout.write(turnTable(turns, Date.now()) + '\n');
    return 0;
  },
  async diff(p) {
    const turn = flag<number>(p, 'turn');
    if (turn !== undefined && flag(p, 'last')) throw new CliError('--turn and --last cannot go together', 2);
    const target = await resolveOne(str(p, 'target'), whereOf(p));
    const result = await orNotFound(request('turn.diff', { ...targetOf(target), turn, stat: !!flag(p, 'stat') }));
    if (flag(p, 'json')) {
      printJson(result);
      return 0;
    }
    if (result.against === 'worktree') process.stderr.write(`paneflow: turn ${result.turn.turn} has no end snapshot (${endingText(result.turn)}): its start against the working tree now\n`);
    // A pipe gets git's text as serve sent it (for `git apply`; serve sends UTF-8, so a byte that is
    // not comes as U+FFFD); what a file holds never reaches a person's terminal as a control: on a
    // terminal (or in colour) each line is cleaned, then coloured.
    if (!colorOn() && process.stdout.isTTY !== true) process.stdout.write(result.diff);
    else for (const line of diffLines(result.diff)) process.stdout.write(paint(sgr(DIFF_TONES[line.kind]), fileLineText(line.text)) + '\n');
    if (result.truncated) process.stderr.write('paneflow: the diff is cut short; `git diff` of the turn ref shows it whole\n');
    return 0;
  },
  async digest(p) {
    const result = await request('fleet.digest', { since_ms: sinceMs(flag(p, 'since')), ...machineOf(p) });
    if (flag(p, 'json')) {
      printJson(result);
      return 0;
    }
    const given = flag(p, 'since') !== undefined;
    const why = given ? '' : result.looked_at_ms === result.since_ms ? ' (when you last looked)' : ' (the last 24 hours: you have not looked yet)';
    process.stdout.write(`since ${new Date(result.since_ms).toLocaleString()}${why}\n`);
    if (result.agents.length === 0) process.stdout.write('nothing happened\n');
    else {
      const rows = result.agents.map((a) => [String(a.surface_id), a.pane_name ?? '-', a.runtime_id ?? '-', digestLine(a), promptLine(a.last_prompt, 40)]);
      process.stdout.write(withMachines(['ID', 'NAME', 'AGENT', 'WHAT HAPPENED', 'LAST PROMPT'], rows, result.agents, result.machines) + '\n');
    }
    return 0;
  },
};
