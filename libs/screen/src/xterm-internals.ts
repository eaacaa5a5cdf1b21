import type { PaneCell } from './pane';
import type { CharWidth } from './plain-lines';

// Every read of @xterm/headless 6.0.0 past its public API, in one place. Each function says why
// the public API is not enough; test/xterm-internals.test.ts drives a real Terminal into each
// state and fails the day an upgrade moves a field. Nothing else in the repo may touch a
// `_`-prefixed field of xterm. The shapes are declared here, so nothing imports xterm at run time.

/** An xterm.js `Terminal` (@xterm/headless or @xterm/xterm): taken as it is. */
export interface XtermTerminal {
  readonly cols: number;
  readonly rows: number;
}

/**
 * The current SGR state (xterm's `AttributeData`), live: it changes with the next write. Its
 * public-style methods read as a cell's do (`cellStyle` takes it); `fg` and `bg` are its words.
 */
export interface CurrentAttr extends PaneCell {
  readonly fg: number;
  readonly bg: number;
  isOverline(): number;
  readonly extended: { readonly underlineStyle: number; readonly underlineColor: number };
}

/** The cursor as the program set it: DECTCEM, and DECSCUSR's shape (undefined while unset) and blink. */
export interface CursorModes {
  hidden: boolean;
  style: 'block' | 'underline' | 'bar' | undefined;
  blink: boolean;
}

/** One buffer line's cells as xterm stores them: three words a cell (content, fg, bg), and the strings of combined cells by column. */
export interface LineWords {
  readonly length: number;
  readonly data: Uint32Array;
  readonly combined: Readonly<Record<number, string>>;
}

/** A cell object's words (xterm's `CellData`), when it has them: equal `fg` and `bg` words are the same style. */
export interface CellWords {
  readonly content?: number;
  readonly fg?: number;
  readonly bg?: number;
}

/** The content word of a cell (`LineWords.data[3 * x]`, `CellWords.content`): its code point, whether its text is combined, its width. */
export const CONTENT_CODE_POINT = 0x1fffff;
export const CONTENT_IS_COMBINED = 0x200000;
export const CONTENT_WIDTH_SHIFT = 22;

interface Core {
  _writeBuffer: { writeSync(data: string | Uint8Array): void };
  unicodeService: { wcwidth(codePoint: number): number };
  coreService: { isCursorHidden: boolean; decPrivateModes: { cursorStyle?: CursorModes['style']; cursorBlink?: boolean } };
  coreMouseService: { activeEncoding: string };
  _charsetService: { charset: object | undefined };
  _inputHandler: { getAttrData(): CurrentAttr; _parser: { currentState: number } };
  buffers: { active: { scrollTop: number; scrollBottom: number }; normal: { lines: BufferLines } };
}
type Listen<T> = (listener: (event: T) => void) => { dispose(): void };
/** The events of a buffer's lines (xterm's `CircularList`) that move rows: trimmed from the top, inserted, deleted. */
interface BufferLines {
  onTrim: Listen<number>;
  onInsert: Listen<{ index: number; amount: number }>;
  onDelete: Listen<{ index: number; amount: number }>;
}
/** The escape sequence parser's state between sequences. */
const GROUND = 0;

const core = (term: XtermTerminal): Core => (term as unknown as { _core: Core })._core;

/**
 * Parses `data` now, whole. The public `write` parses on a timer, in slices of up to 12 ms; the
 * core's `writeSync` is the same parser without them (safe with no asynchronous parser handlers).
 */
export function writeSync(term: XtermTerminal, data: string | Uint8Array): void {
  core(term)._writeBuffer.writeSync(data);
}

/** The terminal's own character widths, for its active Unicode version: `term.unicode` chooses the version but does not measure. */
export function terminalCharWidth(term: XtermTerminal): CharWidth {
  const unicode = core(term).unicodeService;
  return (codePoint) => unicode.wcwidth(codePoint);
}

/** A row of the normal buffer followed as rows move (`followRow`). */
export interface FollowedRow {
  /** Where the row is now, from the buffer's first row. */
  readonly line: number;
  dispose(): void;
}

/**
 * Follows a place in the normal buffer (`row` from its first) as xterm trims, inserts and deletes
 * rows above it (a reflow too), as a marker does, but it keeps the place where a marker moves or
 * is disposed: rows inserted at it (IL) go below it, the row that takes the place of its own when
 * that is deleted (DL) is followed, an erase of its row (ED clears a row's markers) changes
 * nothing, and once trimmed it stands at row 0. A marker can also only be placed while the normal
 * buffer is shown. A reflow that adds rows to the line above it inserts them at its place too.
 */
export function followRow(term: XtermTerminal, row: number): FollowedRow {
  const lines = core(term).buffers.normal.lines;
  let line = row;
  const subscriptions = [
    lines.onTrim((amount) => {
      line = Math.max(0, line - amount);
    }),
    lines.onInsert(({ index, amount }) => {
      if (line > index) line += amount;
    }),
    lines.onDelete(({ index, amount }) => {
      line = line >= index + amount ? line - amount : Math.min(line, index);
    }),
  ];
  return {
    get line() {
      return line;
    },
    dispose: () => {
      for (const subscription of subscriptions) subscription.dispose();
    },
  };
}

/** Whether the parser stands between sequences: the public parser API registers handlers but does not say. */
export function parserInGround(term: XtermTerminal): boolean {
  return core(term)._inputHandler._parser.currentState === GROUND;
}

/** The current SGR state, live: the public API gives cells' styles, not the one the next character is printed in. */
export function currentAttr(term: XtermTerminal): CurrentAttr {
  return core(term)._inputHandler.getAttrData();
}

/** Whether a character set (ESC ( 0 and the like) is in use: designations are not in the public `modes`. */
export function charsetActive(term: XtermTerminal): boolean {
  return core(term)._charsetService.charset !== undefined;
}

/** The active buffer's scroll region (DECSTBM), rows from 0: the public buffer does not carry it. */
export function scrollRegion(term: XtermTerminal): { top: number; bottom: number } {
  const buffer = core(term).buffers.active;
  return { top: buffer.scrollTop, bottom: buffer.scrollBottom };
}

/** DECTCEM and DECSCUSR: the public `modes` has neither, and `options.cursorStyle` is the embedder's default, not the program's. */
export function cursorModes(term: XtermTerminal): CursorModes {
  const service = core(term).coreService;
  return { hidden: service.isCursorHidden, style: service.decPrivateModes.cursorStyle, blink: service.decPrivateModes.cursorBlink === true };
}

/** The mouse report encoding the program chose (?1006 SGR, ?1016 SGR pixels): the public `modes` says which events are reported, not how. */
export function mouseEncoding(term: XtermTerminal): 'default' | 'sgr' | 'sgr_pixels' {
  const encoding = core(term).coreMouseService.activeEncoding;
  return encoding === 'SGR' ? 'sgr' : encoding === 'SGR_PIXELS' ? 'sgr_pixels' : 'default';
}

/**
 * The words behind a public buffer line (`buffer.getLine(y)`), or undefined for any other line:
 * the public line hands out one cell object per cell and builds strings to read text.
 */
export function lineWords(line: object): LineWords | undefined {
  const inner = (line as { _line?: { readonly length: number; _data?: Uint32Array; _combined?: Record<number, string> } })._line;
  if (!inner?._data || !inner._combined) return undefined;
  return { length: inner.length, data: inner._data, combined: inner._combined };
}

/**
 * Puts a copy of `from` in place of `to` (both public buffer lines, of terminals as wide), with
 * `wrapped` as its wrap flag: a public line is read-only, and a row laid out elsewhere (another
 * terminal that parsed it) can only come back into a buffer by its inner line.
 */
export function replaceLine(to: object, from: object, wrapped: boolean): void {
  type Inner = { isWrapped: boolean; copyFrom(line: Inner): void };
  const inner = (line: object) => (line as { _line: Inner })._line;
  inner(to).copyFrom(inner(from));
  inner(to).isWrapped = wrapped;
}

/** A cell object's words, read when present: the public cell gives its style only through a dozen methods. */
export function cellWords(cell: PaneCell): CellWords {
  return cell as CellWords;
}
