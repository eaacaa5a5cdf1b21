// How every face words the turn ledger: a turn's line (when, how long, how it ended, what it
// changed, its tokens, its prompt), the digest's line per agent, and which kind each line of a
// unified diff is (for colour). Pure; every text from an agent or a file is cleaned by displayText.
import type { DigestAgent, TurnRecord, TurnTokens } from '@paneflow/protocol/turns';
import { displayText } from './text';

/** `850ms`, `42s`, `3m 05s`, `2h 10m`. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
}

/** `1234` → `1.2k`, `2500000` → `2.5M`. */
export function countText(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** `12.4k in · 1.1k out`, with the cost where the price table knew the model (`$0.042`). */
export function tokensText(tokens: TurnTokens | null): string {
  if (!tokens) return '';
  const cost = tokens.cost_usd === null ? '' : ` · $${tokens.cost_usd < 0.01 ? tokens.cost_usd.toFixed(4) : tokens.cost_usd.toFixed(2)}`;
  return `${countText(tokens.input + tokens.cache_read + tokens.cache_creation)} in · ${countText(tokens.output)} out${cost}`;
}

/** What a turn changed, in few words: `3 files +12 -4`, `no change`, `no git`. */
export function changeText(record: Pick<TurnRecord, 'change' | 'ended'>): string {
  const change = record.change;
  if (!change) return 'no git';
  if (change.error) return 'snapshot failed';
  if (!change.end_commit) return record.ended === null ? 'running' : record.ended === 'interrupted' ? 'interrupted' : 'no end snapshot';
  if (change.files_changed === 0) return 'no change';
  return `${change.files_changed} file${change.files_changed === 1 ? '' : 's'} +${change.insertions} -${change.deletions}`;
}

/** The first line of a turn's prompt, cleaned and cut to `max` characters. */
export function promptLine(text: string | null | undefined, max = 60): string {
  const line = text?.split('\n').find((l) => l.trim())?.replace(/\s+/g, ' ').trim() ?? '';
  const clean = displayText(line);
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** How a turn ended, or that it runs (with how long it has waited for its person). */
export function endingText(record: Pick<TurnRecord, 'ended' | 'questions'>): string {
  if (record.ended !== null) return record.ended;
  return record.questions.at(-1)?.answered_at_ms === null ? 'waiting' : 'running';
}

/** A turn's length: its end (or now) less its start. */
export const turnMs = (record: Pick<TurnRecord, 'started_at_ms' | 'ended_at_ms'>, nowMs: number) => (record.ended_at_ms ?? nowMs) - record.started_at_ms;

/** One line for a turn, as attach's list and a face's row give it: `#3  2m 05s  finished  3 files +12 -4  12k in · 1k out  fix the login`. */
export function turnLine(record: TurnRecord, nowMs: number): string {
  return [`#${record.turn}`, durationText(turnMs(record, nowMs)), endingText(record), changeText(record), tokensText(record.tokens), promptLine(record.prompt?.text)]
    .filter(Boolean)
    .join('  ');
}

/** The digest's words for one agent: `4 turns, 3 finished · 5 files +40 -12 · 20k in · 2k out · waits: approve Bash…`. */
export function digestLine(agent: DigestAgent): string {
  const parts = [`${agent.turns} turn${agent.turns === 1 ? '' : 's'}${agent.finished ? `, ${agent.finished} finished` : ''}`];
  if (agent.errors.length) parts.push(`${agent.errors.length} error${agent.errors.length === 1 ? '' : 's'}: ${displayText(agent.errors.at(-1)!)}`);
  if (agent.interrupted) parts.push(`${agent.interrupted} interrupted`);
  if (agent.files_changed) parts.push(`${agent.files_changed} file${agent.files_changed === 1 ? '' : 's'} +${agent.insertions} -${agent.deletions}`);
  if (agent.tokens) parts.push(tokensText(agent.tokens));
  if (agent.waiting) parts.push(`waits: ${displayText(agent.waiting.message ?? agent.waiting.kind ?? 'for you')}`);
  return parts.join(' · ');
}

/**
 * A line of a file (in a diff) as a face shows it: tabs out to the next multiple of 8 columns, as
 * git's pager shows them, then cleaned by displayText (which would show a tab as `^I`).
 */
export function fileLineText(text: string): string {
  return displayText(text.replace(/[^\t]*\t/g, (run) => run.slice(0, -1).padEnd((Math.floor((run.length - 1) / 8) + 1) * 8)));
}

export type DiffLineKind = 'file' | 'hunk' | 'add' | 'remove' | 'meta' | 'context';

/** A colour as the terminal faces give it: a palette colour (0–7; null, the default) and bold or dim. */
export interface Tone {
  color: number | null;
  bold?: true;
  dim?: true;
}

/** How `paneflow turns` and attach's list colour a turn by how it ended (`endingText`). */
export const ENDING_TONES: Record<string, Tone> = {
  finished: { color: 2 },
  error: { color: 1, bold: true },
  exited: { color: 1 },
  interrupted: { color: 5 },
  idle: { color: null, dim: true },
  running: { color: 6, bold: true },
  waiting: { color: 3, bold: true },
};

/** How `paneflow diff` and attach's pager colour a line of git's diff. */
export const DIFF_TONES: Record<DiffLineKind, Tone> = {
  file: { color: null, bold: true },
  meta: { color: null, bold: true },
  hunk: { color: 6 },
  add: { color: 2 },
  remove: { color: 1 },
  context: { color: null },
};

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

/** One file of git's unified diff: its path, its header lines (mode, index, rename, binary), its hunks. */
export interface DiffFile {
  path: string;
  header: DiffLine[];
  hunks: { header: string; lines: DiffLine[] }[];
  binary: boolean;
}

/**
 * git's unified diff, each line with its kind (for colour). `--- ` and `+++ ` are a file's header
 * only before its first hunk: inside one they are a removed `-- …` or an added `++ …` line.
 */
export function diffLines(diff: string): DiffLine[] {
  const lines = diff.endsWith('\n') ? diff.slice(0, -1).split('\n') : diff === '' ? [] : diff.split('\n');
  let inHunk = false;
  return lines.map((text): DiffLine => {
    if (text.startsWith('diff --git ')) {
      inHunk = false;
      return { kind: 'file', text };
    }
    if (text.startsWith('@@')) {
      inHunk = true;
      return { kind: 'hunk', text };
    }
    if (inHunk) return { kind: text.startsWith('+') ? 'add' : text.startsWith('-') ? 'remove' : 'context', text };
    return { kind: 'meta', text };
  });
}

/** git's unified diff as files, then hunks (a face lists the files and opens each). */
export function diffFiles(diff: string): DiffFile[] {
  const files: DiffFile[] = [];
  for (const line of diffLines(diff)) {
    if (line.kind === 'file') files.push({ path: pathOfDiffLine(line.text), header: [], hunks: [], binary: false });
    const file = files.at(-1);
    if (!file || line.kind === 'file') continue;
    if (line.kind === 'hunk') file.hunks.push({ header: line.text, lines: [] });
    else if (file.hunks.length > 0) file.hunks.at(-1)!.lines.push(line);
    else {
      file.header.push(line);
      if (line.text.startsWith('Binary files ')) file.binary = true;
      const renamed = /^rename to (.+)$/.exec(line.text);
      if (renamed) file.path = renamed[1];
    }
  }
  return files;
}

/**
 * The path of `diff --git a/P b/P`: both halves are the same path unless the file was renamed
 * (then its `rename to` line names it); a path with spaces splits only in the middle.
 */
function pathOfDiffLine(line: string): string {
  const rest = line.slice('diff --git '.length);
  const half = (rest.length - 5) / 2;
  if (Number.isInteger(half) && rest.startsWith('a/') && rest.slice(2 + half, 5 + half) === ' b/' && rest.slice(2, 2 + half) === rest.slice(5 + half)) return rest.slice(2, 2 + half);
  const b = rest.lastIndexOf(' b/');
  return b === -1 ? rest : rest.slice(b + 3);
}
