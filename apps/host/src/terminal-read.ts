import { ErrorCode, READ_LINES_DEFAULT, READ_LINES_MAX, RpcError, SEARCH_MATCHES_DEFAULT, SEARCH_MATCHES_MAX } from '@paneflow/protocol';
import { joinRows, modesBeyondSerialize, rowToSgr } from '@paneflow/screen';
import type { SerializeAddon } from '@xterm/addon-serialize';
import type { Terminal } from '@xterm/headless';
import type { DeepRows } from './deep-rows';
import { rowsOf, tailText } from './terminal-text';

// What a read, a search, the text kept at exit and a checkpoint are made of: the deep store's
// rows, oldest first, then the terminal's own, read only as deep as each needs.

/** A session's kept text, read from its terminal and its deep rows (none when it keeps no more than the terminal does). */
export class TerminalText {
  constructor(
    private readonly term: Terminal,
    private readonly deep: DeepRows | null,
    private readonly serializer: SerializeAddon,
  ) {}

  /** Rows of scrollback dropped, oldest first, past the deep store's limits since the session started. */
  get droppedRows(): number {
    return this.deep?.store.droppedRows ?? 0;
  }

  /**
   * The deep rows asked for that fit in `deepBytes` (UTF-8), redrawn with their colours, then the
   * terminal's own serialization: at most `scrollback` rows of scrollback, the newest.
   */
  serialize(scrollback: number, deepBytes: number): { checkpoint: string; scrollback_rows: number } {
    const buffer = this.term.buffer.normal;
    const border = this.deep?.firstUnarchived() ?? 0;
    // Rows above the border are the store's, on the screen too after a resize to more rows brought
    // them back (until the program draws over them: DeepRows.reclaimDrawnOver): the terminal is then
    // serialized from the border (a negative scrollback starts inside the screen), and the store's
    // rows the screen shows are taken whatever `scrollback` allows: those rows, or after a reflow
    // the lines they show, whole (their rows are at the width they were printed at).
    const onScreen = Math.max(0, border - buffer.baseY);
    const screen = this.deep?.screenFromStore() ?? { rows: 0 };
    let screenRowsLeft = 'rows' in screen ? screen.rows : Infinity;
    let screenLines = 'lines' in screen ? screen.lines : Infinity;
    const inTerminal = onScreen > 0 ? -onScreen : Math.min(scrollback, Math.max(0, buffer.baseY - border));
    let rowsLeft = scrollback - Math.max(0, inTerminal);
    let bytesLeft = deepBytes;
    let screenRows = 0;
    // Each deep row's replay: its SGR text, after a CR LF unless it continues the row above.
    const replayed: string[][] = [];
    const forScreen = () => screenRowsLeft > 0 && screenLines > 0;
    const deepRows = !this.deep || (rowsLeft <= 0 && !forScreen()) ? [] : this.deep.store.rowsFromEnd((rows) => {
        const block: string[] = [];
        for (let i = rows.length - 1; i >= 0 && (rowsLeft > 0 || forScreen()); i--) {
          const text = rowToSgr(rows[i]);
          const size = Buffer.byteLength(text) + 2;
          if (forScreen()) {
            screenRows++;
            screenRowsLeft--;
            if (!rows[i].wrapped) screenLines--;
          } else if (size > bytesLeft) break;
          else rowsLeft--;
          bytesLeft -= size;
          block.push(text);
        }
        replayed.unshift(block.reverse());
        return block.length;
      });
    const texts = replayed.flat();
    let prefix = texts.map((text, i) => (i > 0 && !deepRows[i].wrapped ? '\r\n' : '') + text).join('');
    if (inTerminal <= 0 && deepRows.length > 0) {
      // Without scrollback the addon lays its rows out from where it starts writing, as on a screen
      // of their own (blank rows at the end left out, the cursor moved down to its row): the deep
      // rows go up until only the store's rows the screen shows are on it, and it starts below them:
      // where the last of them ends, written again, when the terminal's first row continues it.
      const continued = onScreen > 0 && buffer.getLine(border)?.isWrapped === true;
      prefix += '\r\n'.repeat(this.term.rows - onScreen) + (continued ? `\x1b[${onScreen};1H${texts[texts.length - 1]}` : `\x1b[${onScreen + 1};1H`);
    } else if (deepRows.length > 0 && !buffer.getLine(buffer.baseY - inTerminal)?.isWrapped) {
      // The terminal's first row starts a line of its own unless it continues the last deep row.
      prefix += '\r\n';
    }
    const checkpoint = prefix + this.serializer.serialize({ scrollback: inTerminal }) + modesBeyondSerialize(this.term);
    return { checkpoint, scrollback_rows: deepRows.length - screenRows + Math.max(0, inTerminal) };
  }

  /** Lines counted from the end: `offset` 0 ends at the last line. */
  read(lines = READ_LINES_DEFAULT, offset = 0) {
    const rows = this.terminalRows();
    const inTerminal = joinRows(rows);
    const deepLines = this.deep?.shown?.lines ?? 0;
    const continues = deepLines > 0 && rows[0]?.wrapped === true;
    const total = deepLines + inTerminal.length - (continues ? 1 : 0);
    const count = Math.min(READ_LINES_MAX, Math.max(1, lines));
    if (offset > 0 && offset >= total) {
      throw new RpcError(ErrorCode.InvalidParams, `offset ${offset} is out of range: ${total} lines are kept`, { reason: 'offset_out_of_range', field: 'offset' });
    }
    const end = total - offset;
    const start = Math.max(0, end - count);
    // `tail` ends with the last line; only the deep blocks that hold lines from `start` on are read.
    const tail = start >= deepLines ? inTerminal : joinRows(rows, this.deepTail(deepLines - start + 1));
    const text = tail.slice(tail.length - (total - start), tail.length - offset).join('\n');
    // `eof`: the window reaches the oldest kept line (REFERENCE.md §2.3), however near the end it ends.
    return { text, lines: end - start, total_lines: total, eof: start === 0, dropped_rows: this.droppedRows };
  }

  /** Case-insensitive substring over every kept line; `line` is 1-based from the oldest. */
  search(pattern: string, maxMatches = SEARCH_MATCHES_DEFAULT) {
    const limit = Math.min(SEARCH_MATCHES_MAX, Math.max(1, maxMatches));
    const needle = pattern.toLowerCase();
    const matches: Array<{ line: number; text: string }> = [];
    let truncated = false;
    this.allLines().forEach((text, index) => {
      if (!text.toLowerCase().includes(needle)) return;
      if (matches.length < limit) matches.push({ line: index + 1, text });
      else truncated = true;
    });
    return { matches, truncated };
  }

  /** The last screen text within `maxBytes`, kept when the process exits. */
  finalText(maxBytes: number): string {
    const rows = this.terminalRows();
    let lines = joinRows(rows);
    let chars = lines.reduce((sum, line) => sum + line.length + 1, 0);
    const shown = this.deep?.shown;
    // Deep blocks only while the text is short of `maxBytes` (a character is at least a byte).
    if (shown && chars < maxBytes) {
      const deep = shown.textsFromEnd((block) => {
        for (const row of block) chars += row.text.length + 1;
        return chars >= maxBytes;
      });
      const deepLines = joinRows(deep.rows);
      if (!deep.complete) deepLines.shift();
      lines = joinRows(rows, deepLines);
    }
    return tailText(lines, maxBytes);
  }

  /** The shown screen's rows not in the deep store, to the last non-blank one. */
  private terminalRows(): Array<{ text: string; wrapped: boolean }> {
    return rowsOf(this.term, this.deep?.shown ? this.deep.firstUnarchived() : 0);
  }

  /** Logical lines from the end of the deep store, at least `count` of them (fewer when it holds fewer), whole. */
  private deepTail(count: number): string[] {
    const { rows, complete } = this.deep!.store.tailTexts(count);
    const lines = joinRows(rows);
    // The first row read may continue a line begun in a block not read: that line is not whole.
    if (!complete) lines.shift();
    return lines;
  }

  /** Every kept line, oldest first: the deep store's, then the terminal's. */
  private allLines(): string[] {
    const shown = this.deep?.shown;
    const deep = shown ? joinRows(shown.allTexts()) : [];
    return joinRows(this.terminalRows(), deep);
  }
}
