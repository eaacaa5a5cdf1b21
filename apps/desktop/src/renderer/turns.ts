// The turn ledger in the page: a pane's turns, newest first, and a turn opened on what it did —
// its prompt, the questions it asked and who answered them, its declared messages, its tokens,
// then git's diff of its change (the files, then each file's hunks, coloured). One panel for the
// page, opened from a pane's header, the digest or the phone's bar; serve's `turn_started` and
// `turn_ended` frames keep it current. Every text is an agent's or a file's: shown through
// textContent, cleaned by displayText.
import type { EventFrameOf } from '@paneflow/protocol/events';
import type { TurnQuestion, TurnRecord } from '@paneflow/protocol/turns';
import { changeText, diffFiles, displayText, durationText, endingText, fileLineText, promptLine, tokensText, turnMs, type DiffFile } from '@paneflow/view';
import type { PaneflowApi } from '../api';
import { el } from './dom';

type TurnFrame = EventFrameOf<'turn_started'> | EventFrameOf<'turn_ended'>;
interface TurnDiff {
  turn: TurnRecord;
  diff: string;
  truncated: boolean;
  against: 'end' | 'worktree';
}

/** A start snapshot taken later than this into its turn is said to be late. */
const LATE_START_MS = 1000;
const STATUS_LETTER = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R', type_changed: 'T' } as const;
const clock = (ms: number) => new Date(ms).toLocaleString([], { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
/** One clean line of an agent's or a file's text. */
const line = (tag: keyof HTMLElementTagNameMap, className: string, text: string) => el(tag, className, displayText(text));
/** A text of several lines (a prompt), each cleaned, its line breaks kept. */
const lines = (tag: keyof HTMLElementTagNameMap, className: string, text: string) => el(tag, className, text.split(/\r?\n/).map(displayText).join('\n'));

export class TurnsPanel {
  readonly element = el('section', 'turns-panel');
  private readonly title = el('span', 'title');
  private readonly back = el('button', 'turns-back', '‹ Turns');
  private readonly body = el('div', 'turns-body');
  /** The pane shown (of `machine`, null for this one: another machine's ledger is asked of its serve), and the turn opened in it (null: the list). */
  private surfaceId: number | null = null;
  private machine: string | null = null;
  private opened: number | null = null;
  /** Answers that come back after the panel moved on are dropped. */
  private generation = 0;

  constructor(
    private readonly api: PaneflowApi,
    private readonly label: (surfaceId: number, machine: string | null) => string,
  ) {
    const close = el('button', 'turns-close', '×');
    close.title = 'Close (Esc)';
    close.onclick = () => this.close();
    this.back.onclick = () => void this.show(this.surfaceId!, null, this.machine);
    const head = el('header');
    head.append(this.back, this.title, close);
    this.element.append(head, this.body);
    this.element.hidden = true;
    this.element.tabIndex = -1;
    this.element.addEventListener('keydown', (event) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      if (this.opened !== null) void this.show(this.surfaceId!, null, this.machine);
      else this.close();
    });
  }

  get shownSurface(): number | null {
    return this.surfaceId;
  }

  /** A pane's turns (`turn` null), or one turn of it opened; of `machine`, or this one. */
  async show(surfaceId: number, turn: number | null, machine: string | null = null): Promise<void> {
    const generation = ++this.generation;
    this.surfaceId = surfaceId;
    this.machine = machine;
    this.opened = turn;
    this.element.hidden = false;
    this.element.dataset.surface = String(surfaceId);
    if (machine) this.element.dataset.machine = machine;
    else delete this.element.dataset.machine;
    this.element.dataset.view = turn === null ? 'list' : 'turn';
    this.back.hidden = turn === null;
    const label = `${this.label(surfaceId, machine)}${machine ? ` on ${machine}` : ''}`;
    this.title.textContent = displayText(turn === null ? `Turns · ${label}` : `Turn #${turn} · ${label}`);
    this.element.focus();
    const drawn = turn === null ? await this.list(surfaceId) : await this.turn(surfaceId, turn);
    if (generation === this.generation) this.body.replaceChildren(...drawn);
  }

  close(): void {
    this.generation++;
    this.surfaceId = this.opened = null;
    this.machine = null;
    this.element.hidden = true;
    this.body.replaceChildren();
  }

  /** A turn began or ended in the pane shown (this machine's frames only): its list again, or the open turn once its record is whole. */
  onTurn(frame: TurnFrame): void {
    if (frame.surface_id !== this.surfaceId || this.machine !== null) return;
    if (this.opened === null || (this.opened === frame.turn.turn && frame.type === 'turn_ended')) void this.show(frame.surface_id, this.opened);
  }

  /** The pane asked about: another machine's carries its `machine`. */
  private target(surfaceId: number): { surface_id: number; machine?: string } {
    return this.machine ? { surface_id: surfaceId, machine: this.machine } : { surface_id: surfaceId };
  }

  private async list(surfaceId: number): Promise<HTMLElement[]> {
    const outcome = await this.api.settle('turn.list', this.target(surfaceId));
    if ('error' in outcome) return [line('p', 'turns-note', outcome.error.message)];
    const turns = (outcome.result as { turns: TurnRecord[] }).turns.slice().reverse();
    if (turns.length === 0) return [el('p', 'turns-note', 'No turns yet. A turn is what an agent declares through OSC 7501, from working to done; an agent that declares nothing has none.')];
    const now = Date.now();
    return turns.map((turn) => {
      const row = el('button', 'turn-row');
      row.dataset.turn = String(turn.turn);
      const ending = endingText(turn);
      const head = el('div', 'head');
      head.append(el('span', 'number', `#${turn.turn}`), el('span', 'when', clock(turn.started_at_ms)), el('span', 'took', durationText(turnMs(turn, now))), el('span', `ending ${ending}`, ending));
      head.append(el('span', 'change', changeText(turn)));
      const tokens = tokensText(turn.tokens);
      if (tokens) head.append(el('span', 'tokens', tokens));
      row.append(head, el('div', 'prompt', promptLine(turn.prompt?.text, 120) || '(no prompt seen)'));
      const machine = this.machine;
      row.onclick = () => void this.show(surfaceId, turn.turn, machine);
      return row;
    });
  }

  private async turn(surfaceId: number, turn: number): Promise<HTMLElement[]> {
    const outcome = await this.api.settle('turn.diff', { ...this.target(surfaceId), turn });
    if ('error' in outcome) {
      // No change to show (no git, a failed snapshot) still leaves the record worth reading.
      const listed = await this.api.settle('turn.list', this.target(surfaceId));
      const record = 'result' in listed ? (listed.result as { turns: TurnRecord[] }).turns.find((t) => t.turn === turn) : undefined;
      return [...(record ? summary(record) : []), line('p', 'turns-note', outcome.error.message)];
    }
    const result = outcome.result as TurnDiff;
    const notes: HTMLElement[] = [];
    if (result.against === 'worktree') notes.push(el('p', 'turns-note', `This turn has no end snapshot (${endingText(result.turn)}): its start against the working tree now.`));
    if (result.truncated) notes.push(el('p', 'turns-note', 'The diff is cut short here; `git diff` of the turn’s ref shows it whole.'));
    return [...summary(result.turn), ...notes, ...change(result)];
  }
}

/** What a turn was: when and how it ended, its prompt, questions, messages and tokens. */
function summary(turn: TurnRecord): HTMLElement[] {
  const parts: HTMLElement[] = [];
  const facts = el('p', 'turn-facts');
  const ending = endingText(turn);
  facts.append(el('span', `ending ${ending}`, ending), el('span', undefined, ` · began ${clock(turn.started_at_ms)} · working ${durationText(turn.working_ms)} · waiting for you ${durationText(turn.waiting_ms)}`));
  parts.push(facts);
  // A start snapshot taken late (a slow repository, a serve restarted mid-turn) misses what came before it.
  const late = turn.change?.start_at_ms == null ? 0 : turn.change.start_at_ms - turn.started_at_ms;
  if (late > LATE_START_MS) parts.push(el('p', 'turns-note', `Its start snapshot was taken ${durationText(late)} into the turn: what changed before then is not in its diff.`));
  if (turn.prompt) parts.push(el('h3', undefined, `Prompt (${turn.prompt.source})`), lines('pre', 'turn-prompt', turn.prompt.text));
  if (turn.questions.length) {
    const list = el('ul', 'turn-questions');
    list.append(...turn.questions.map((q) => line('li', 'question', questionText(q, turn.started_at_ms))));
    parts.push(el('h3', undefined, 'Questions'), list);
  }
  if (turn.messages.length) {
    const list = el('ul', 'turn-messages');
    list.append(...turn.messages.map((m) => line('li', 'message', m.text)));
    parts.push(el('h3', undefined, 'Messages'), list);
  }
  if (turn.tokens) {
    const tokens = turn.tokens;
    const detail = `${tokensText(tokens)} — input ${tokens.input}, cache read ${tokens.cache_read}, cache write ${tokens.cache_creation}, output ${tokens.output}${tokens.model ? ` · ${tokens.model}` : ''}`;
    const p = line('p', 'turn-tokens', detail);
    if (tokens.price_sources.length) p.title = `Prices from ${tokens.price_sources.join(', ')}`;
    parts.push(el('h3', undefined, 'Tokens'), p);
  }
  return parts;
}

/** `permission · approve Bash: npm test → yes, by answer, after 12s` */
function questionText(q: TurnQuestion, startedAtMs: number): string {
  const asked = [q.kind, q.message].filter(Boolean).join(' · ') || 'waiting for input';
  if (q.answered_at_ms === null) return `${asked} → not answered (${durationText(q.asked_at_ms - startedAtMs)} into the turn)`;
  const what = q.answer === null ? '' : ` ${JSON.stringify(q.answer)},`;
  return `${asked} →${what} ${q.by ? `by ${q.by}` : 'ended without an answer Paneflow saw'}, after ${durationText(q.answered_at_ms - q.asked_at_ms)}`;
}

/** The files a turn changed (git's summary), each a link to its hunks below. */
function change(result: TurnDiff): HTMLElement[] {
  const { change: summary } = result.turn;
  const files = diffFiles(result.diff);
  const parts: HTMLElement[] = [el('h3', undefined, `Files · ${summary ? changeText(result.turn) : ''}`)];
  const list = el('ul', 'turn-files');
  const anchors = new Map<string, HTMLElement>();
  const sections = files.map((file, index) => {
    const section = fileSection(file);
    section.id = `turn-file-${index}`;
    anchors.set(file.path, section);
    return section;
  });
  for (const file of summary?.files ?? []) {
    const item = el('li', `file ${file.status}`);
    const counts = file.binary ? 'binary' : `+${file.insertions} -${file.deletions}`;
    const link = line('button', 'path', file.from ? `${file.from} → ${file.path}` : file.path);
    link.onclick = () => anchors.get(file.path)?.scrollIntoView({ block: 'start' });
    item.append(el('span', 'status', STATUS_LETTER[file.status]), link, el('span', 'counts', counts));
    list.append(item);
  }
  if (summary && summary.files_changed > summary.files.length) list.append(el('li', 'more', `and ${summary.files_changed - summary.files.length} more`));
  for (const skipped of summary?.skipped ?? []) list.append(line('li', 'skipped', `${skipped.path}: left out of the snapshots (${skipped.bytes} bytes)`));
  if (summary?.files_changed === 0) list.append(el('li', 'none', 'No file changed.'));
  parts.push(list, ...sections);
  return parts;
}

/** One file of the diff: its path and header lines, then its hunks, unified, a line per row. */
function fileSection(file: DiffFile): HTMLElement {
  const section = el('section', 'diff-file');
  section.dataset.path = file.path;
  section.append(line('h4', 'path', file.path));
  const meta = file.header.filter((l) => !/^(index |--- |\+\+\+ )/.test(l.text));
  if (meta.length) section.append(...meta.map((l) => line('div', 'diff-meta', l.text)));
  for (const hunk of file.hunks) {
    const pre = el('pre', 'hunk');
    pre.append(line('span', 'diff-line hunk-head', hunk.header));
    for (const l of hunk.lines) pre.append('\n', el('span', `diff-line ${l.kind}`, fileLineText(l.text)));
    section.append(pre);
  }
  return section;
}
