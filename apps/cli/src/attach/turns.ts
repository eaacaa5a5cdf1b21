import type { EventFrame } from '@paneflow/protocol/events';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { MethodName, ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import type { TurnRecord } from '@paneflow/protocol/turns';
import { Attr, DEFAULT_STYLE, writeText, type Grid, type KeyEvent, type Rect, type Style } from '@paneflow/screen';
import { changeText, DIFF_TONES, diffLines, ENDING_TONES, endingText, fileLineText, turnLine, type DiffLine, type Tone } from '@paneflow/view';
import { style, type Mode, type Overlay } from './frame';

/** What the turn ledger reaches of the face it runs in (`AttachClient`). */
export interface LedgerFace {
  request<M extends MethodName<PublicMethods>>(method: M, params: ParamsOf<PublicMethods, M>): Promise<ResultOf<PublicMethods, M>>;
  setMode(mode: Mode): void;
  invalidate(): void;
}

/** A tone of libs/view (the colours `paneflow turns` and `paneflow diff` use) as a cell style. */
const styleOf = (tone: Tone) => style(tone.color, (tone.bold ? Attr.bold : 0) | (tone.dim ? Attr.dim : 0));
const HEADING = style(null, Attr.bold);
const DIM = style(null, Attr.dim);
const REFUSED = style(1, Attr.bold);

/** One turn's diff as the pager shows it; `lines` is null while serve reads it. */
interface DiffView {
  record: TurnRecord;
  stat: boolean;
  lines: DiffLine[] | null;
  against: 'end' | 'worktree';
  truncated: boolean;
  refused: string | null;
  top: number;
}

/**
 * The turn ledger of one pane (prefix t), over the pane area: its turns newest first, kept from
 * `turn_started` and `turn_ended` while open, and a pager of git's diff of the one chosen. It
 * draws only when a key or an event changed something: no timer, so a running turn's length is
 * the one at the last frame.
 */
export class TurnLedger implements Overlay {
  /** Newest first. */
  private turns: TurnRecord[] = [];
  private reading = true;
  private failed: string | null = null;
  private selected = 0;
  private top = 0;
  private diff: DiffView | null = null;
  /** The rows of text the last frame had room for: a page. */
  private rows = 1;
  /** Counts what the user asked: an answer to an older ask (or after q) is dropped. */
  private asked = 0;
  private closed = false;

  constructor(
    private readonly face: LedgerFace,
    private readonly surfaceId: number,
    private readonly title: string,
  ) {
    void this.read();
  }

  get hint(): string {
    return this.diff ? 'DIFF  ↑↓ PgUp PgDn  g G  s stat  q back' : 'TURNS  ↑↓ select  Enter diff  q close';
  }

  private async read(): Promise<void> {
    try {
      // Merged, not replaced: an event may have brought a newer record while this was asked.
      for (const record of (await this.face.request('turn.list', { surface_id: this.surfaceId })).turns) this.merge(record);
      this.failed = null;
    } catch (error) {
      this.failed = (error as Error).message;
    }
    this.reading = false;
    if (!this.closed) this.face.invalidate();
  }

  /** A record in place of the one it updates; once read, the selection stays on its turn as others come. */
  private merge(record: TurnRecord): void {
    const chosen = this.reading ? undefined : this.turns[this.selected];
    const at = this.turns.findIndex((t) => same(t, record));
    if (at !== -1 && this.turns[at].updated_at_ms > record.updated_at_ms) return;
    if (at !== -1) this.turns.splice(at, 1);
    this.turns.push(record);
    this.turns.sort((a, b) => b.started_at_ms - a.started_at_ms || b.turn - a.turn);
    if (chosen) this.selected = this.turns.findIndex((t) => same(t, chosen));
  }

  event(frame: EventFrame): void {
    // Events were lost (a slow reader): the list is read again.
    if (frame.type === 'dropped') return void this.read();
    if ((frame.type !== 'turn_started' && frame.type !== 'turn_ended') || frame.surface_id !== this.surfaceId) return;
    this.merge(frame.turn);
    this.face.invalidate();
  }

  key(event: KeyEvent): void {
    const diff = this.diff;
    const step = stepOf(event, this.rows);
    if (step !== null) {
      if (diff) diff.top = clamp(diff.top + step, (diff.lines?.length ?? 0) - this.rows);
      else this.selected = clamp(this.selected + step, this.turns.length - 1);
      return this.face.invalidate();
    }
    if (event.name === 'q' || event.name === 'escape') {
      this.asked++;
      if (diff) {
        this.diff = null;
        return this.face.invalidate();
      }
      this.closed = true;
      return this.face.setMode({ kind: 'normal' });
    }
    if (diff && event.name === 's') return void this.open(diff.record, !diff.stat);
    const record = this.turns[this.selected];
    if (!diff && event.name === 'enter' && record) void this.open(record, false);
  }

  /** The pager on a turn's diff (git's `--stat` with `stat`), read by session and turn: exactly that turn. */
  private async open(record: TurnRecord, stat: boolean): Promise<void> {
    const asked = ++this.asked;
    this.diff = { record, stat, lines: null, against: 'end', truncated: false, refused: null, top: 0 };
    this.face.invalidate();
    let next: DiffView;
    try {
      const result = await this.face.request('turn.diff', { session: record.session, turn: record.turn, stat });
      next = { ...this.diff, record: result.turn, lines: diffLines(result.diff).map((l) => ({ ...l, text: fileLineText(l.text) })), against: result.against, truncated: result.truncated };
    } catch (error) {
      // Serve's own words: no git work tree, no snapshot yet, no such turn.
      next = { ...this.diff, lines: [], refused: (error as Error).message };
    }
    if (asked !== this.asked) return;
    this.diff = next;
    this.face.invalidate();
  }

  draw(grid: Grid, area: Rect): void {
    grid.fill(area, DEFAULT_STYLE);
    // One column of margin each side, when there is room for it; every line cut to the width.
    const margin = area.width > 20 ? 1 : 0;
    const line = (row: number, text: string, lineStyle: Style) =>
      row < area.height && writeText(grid, area.x + margin, area.y + row, text, lineStyle, { maxWidth: Math.max(0, area.width - 2 * margin), ellipsis: '…' });
    this.rows = Math.max(1, area.height - 1);
    if (this.diff) return this.drawDiff(this.diff, line);
    line(0, `Turns of ${this.title}, newest first`, HEADING);
    const empty = this.reading ? 'reading the turns…' : this.failed ?? (this.turns.length === 0 ? 'no turns: only an agent that declares its state (OSC 7501) has turns' : null);
    if (empty) return void line(1, empty, this.failed ? REFUSED : DIM);
    // The selection stays in view.
    this.top = Math.min(this.selected, Math.max(this.top, this.selected - this.rows + 1));
    const nowMs = Date.now();
    this.turns.slice(this.top, this.top + this.rows).forEach((record, i) => {
      const chosen = this.top + i === this.selected;
      const ending = styleOf(ENDING_TONES[endingText(record)]);
      const lineStyle = chosen ? { ...ending, attrs: ending.attrs | Attr.inverse } : ending;
      if (chosen) grid.fill({ x: area.x, y: area.y + 1 + i, width: area.width, height: 1 }, lineStyle);
      line(1 + i, `${chosen ? '▸' : ' '} ${turnLine(record, nowMs)}`, lineStyle);
    });
  }

  private drawDiff(diff: DiffView, line: (row: number, text: string, style: Style) => void): void {
    const { record } = diff;
    const notes = [diff.stat && 'stat', diff.against === 'worktree' && 'no end snapshot: its start against the working tree now', diff.truncated && 'cut short'];
    line(0, [`turn #${record.turn}  ${endingText(record)}  ${changeText(record)}`, ...notes.filter(Boolean)].join(' · '), HEADING);
    if (diff.refused !== null) return line(1, diff.refused, REFUSED);
    if (diff.lines === null) return line(1, 'reading the diff…', DIM);
    if (diff.lines.length === 0) return line(1, 'nothing changed', DIM);
    diff.lines.slice(diff.top, diff.top + this.rows).forEach((l, i) => line(1 + i, l.text, styleOf(DIFF_TONES[l.kind])));
  }
}

const same = (a: TurnRecord, b: TurnRecord) => a.session === b.session && a.turn === b.turn;
const clamp = (value: number, max: number) => Math.max(0, Math.min(max, value));

/** How far a key moves the selection or the page: a line, a page, or to either end. */
function stepOf(event: KeyEvent, page: number): number | null {
  switch (event.name) {
    case 'up':
    case 'k':
      return -1;
    case 'down':
    case 'j':
      return 1;
    case 'pageup':
    case 'b':
      return -page;
    case 'pagedown':
    case 'space':
      return page;
    case 'g':
    case 'home':
      return -Infinity;
    case 'G':
    case 'end':
      return Infinity;
    default:
      return null;
  }
}
