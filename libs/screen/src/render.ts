import { attrsOf, codePointOf, contentWord, Grid, HAS_CLUSTER, widthOf } from './grid';
import { Attr, COLOR_RGB, DEFAULT_COLOR, type Color } from './style';

export type CursorShape = 'block' | 'underline' | 'bar';

export interface Cursor {
  x: number;
  y: number;
  visible: boolean;
  shape: CursorShape;
  /** A blinking cursor; steady when false or absent. */
  blinking?: boolean;
}

export interface RendererOptions {
  /**
   * Wraps each frame that changes cells in synchronized output (DEC mode 2026), so terminals that
   * know it show the frame at once. On by default; terminals that do not know it ignore it.
   */
  synchronizedOutput?: boolean;
}

const ESC = '\x1b';
/** One string per ASCII code, so writing a plain cell allocates nothing. */
const ASCII = Array.from({ length: 0x80 }, (_, code) => String.fromCharCode(code));
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const UNSAFE_CODE_UNIT = /[\u0000-\u001f\u007f-\u009f]/g;
// Longest run of unchanged plain cells rewritten instead of moving over them: a one-cell move
// (ESC [ C) costs three bytes, ESC [ n C four.
const MAX_REWRITTEN_GAP = 3;
// A row tail shorter than this is written as spaces rather than erased (ESC [ K plus SGR).
const MIN_ERASED_TAIL = 4;

// [attribute bit, SGR that sets it, SGR that clears it]; bold and dim share 22.
export const ATTRIBUTE_CODES: ReadonlyArray<readonly [number, string, string]> = [
  [Attr.bold, '1', '22'],
  [Attr.dim, '2', '22'],
  [Attr.italic, '3', '23'],
  [Attr.underline, '4', '24'],
  [Attr.blink, '5', '25'],
  [Attr.inverse, '7', '27'],
  [Attr.invisible, '8', '28'],
  [Attr.strikethrough, '9', '29'],
];
const BOLD_OR_DIM = Attr.bold | Attr.dim;

export function colorParams(color: Color, foreground: boolean): string {
  if (color === DEFAULT_COLOR) return foreground ? '39' : '49';
  const value = color & 0xffffff;
  if (color & COLOR_RGB) return `${foreground ? 38 : 48};2;${value >> 16};${(value >> 8) & 0xff};${value & 0xff}`;
  if (value < 8) return String((foreground ? 30 : 40) + value);
  if (value < 16) return String((foreground ? 90 : 100) + value - 8);
  return `${foreground ? 38 : 48};5;${value}`;
}

/** What a cell's characters become on the wire: never a control character. */
function cellText(word: number, cluster: string | undefined): string {
  // A control base shows as U+FFFD like a lone one; among the marks it is dropped, since any
  // visible stand-in would take a column of its own.
  if (cluster !== undefined) return cluster.replace(UNSAFE_CODE_UNIT, (_control, offset: number) => (offset === 0 ? '\ufffd' : ''));
  const code = codePointOf(word);
  if (code < 0x80) return code === 0 ? ' ' : code < 0x20 || code === 0x7f ? '\ufffd' : ASCII[code];
  return code < 0xa0 ? '\ufffd' : String.fromCodePoint(code);
}

/** Records that the terminal now shows cells from..to-1 of `next`. */
function adopt(screen: Grid, next: Grid, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    if (screen.words[i] & HAS_CLUSTER) screen.clusters.delete(i);
    const word = next.words[i];
    if (word & HAS_CLUSTER) screen.clusters.set(i, next.clusters.get(i)!);
    screen.words[i] = word;
    screen.fgs[i] = next.fgs[i];
    screen.bgs[i] = next.bgs[i];
  }
}

const BLANK = contentWord(0, false, 1, 0);
const SPACE = contentWord(0x20, false, 1, 0);

/** The first column from which row y of `grid` is blank in one background, erasable by EL. */
function erasableTail(grid: Grid, y: number): number {
  const rowStart = y * grid.cols;
  const background = grid.bgs[rowStart + grid.cols - 1];
  let x = grid.cols;
  while (x > 0) {
    const i = rowStart + x - 1;
    const word = grid.words[i];
    if ((word !== BLANK && word !== SPACE) || grid.fgs[i] !== DEFAULT_COLOR || grid.bgs[i] !== background) break;
    x--;
  }
  return x;
}

/** DECSCUSR's parameter for a cursor shape: odd blinks, even is steady. */
export function cursorStyleCode(shape: CursorShape, blinking: boolean): number {
  const steady = shape === 'block' ? 2 : shape === 'underline' ? 4 : 6;
  return blinking ? steady - 1 : steady;
}

/**
 * Turns frames into the bytes that update an outer terminal. It remembers what the terminal shows
 * (cells, SGR pen, cursor), so each `render` writes only the cells that changed, moves the cursor
 * the shortest way and changes only the SGR attributes that differ. The first frame, a frame of a
 * new size and the frame after `invalidate` clear the screen and draw everything.
 *
 * It assumes the terminal advances the cursor by each cell's width, as the grid says.
 */
export class Renderer {
  private screen: Grid | null = null;
  private readonly synchronizedOutput: boolean;
  private out: string[] = [];
  // The terminal's state as the bytes so far left it; x -1 when the cursor position is unknown
  // (after writing the last column the terminal waits to wrap).
  private cursorX = -1;
  private cursorY = -1;
  private penFg: Color = DEFAULT_COLOR;
  private penBg: Color = DEFAULT_COLOR;
  private penAttrs = 0;
  private cursorVisible: boolean | null = null;
  private cursorStyle = -1;

  constructor(options: RendererOptions = {}) {
    this.synchronizedOutput = options.synchronizedOutput ?? true;
  }

  /** Forgets what the terminal shows: the next frame is drawn in full (after a resize, a suspend). */
  invalidate(): void {
    this.screen = null;
  }

  /** The bytes that take the terminal from the previous frame to `next` with `cursor`. */
  render(next: Grid, cursor: Cursor): string {
    // Slot 0 is for the start of synchronized output, known to be needed only once cells change.
    const out: string[] = [''];
    this.out = out;
    let screen = this.screen;
    if (screen === null || screen.cols !== next.cols || screen.rows !== next.rows) {
      screen = this.screen = new Grid(next.cols, next.rows);
      out.push(`${ESC}[0m${ESC}[H${ESC}[2J`);
      this.penFg = this.penBg = DEFAULT_COLOR;
      this.penAttrs = 0;
      this.cursorX = this.cursorY = 0;
      this.cursorVisible = null;
      this.cursorStyle = -1;
    }
    if (this.drawCells(screen, next) && this.synchronizedOutput) {
      out[0] = `${ESC}[?2026h`;
      out.push(`${ESC}[?2026l`);
    }
    this.placeCursor(next, cursor);
    return out.join('');
  }

  /** Writes every cell of `next` that differs from `screen`, and records it there; whether any did. */
  private drawCells(screen: Grid, next: Grid): boolean {
    const { cols } = next;
    const size = cols * next.rows;
    const { words, fgs, bgs, clusters } = next;
    const { words: shownWords, fgs: shownFgs, bgs: shownBgs, clusters: shownClusters } = screen;
    let changed = false;
    let tailRow = -1;
    let tailStart = cols;
    for (let i = 0; i < size; ) {
      const word = words[i];
      if (word === shownWords[i] && fgs[i] === shownFgs[i] && bgs[i] === shownBgs[i] && ((word & HAS_CLUSTER) === 0 || clusters.get(i) === shownClusters.get(i))) {
        i++;
        continue;
      }
      if (!changed) {
        changed = true;
        if (this.cursorVisible !== false) {
          this.out.push(`${ESC}[?25l`);
          this.cursorVisible = false;
        }
      }
      const y = Math.floor(i / cols);
      const x = i - y * cols;
      if (tailRow !== y) {
        tailRow = y;
        tailStart = erasableTail(next, y);
      }
      this.moveTo(next, x, y);
      if (x >= tailStart && cols - x >= MIN_ERASED_TAIL) {
        this.setPen(DEFAULT_COLOR, bgs[i], 0);
        this.out.push(`${ESC}[K`);
        adopt(screen, next, i, (y + 1) * cols);
        i = (y + 1) * cols;
        continue;
      }
      this.setPen(fgs[i], bgs[i], attrsOf(word));
      this.out.push(cellText(word, word & HAS_CLUSTER ? clusters.get(i) : undefined));
      const width = widthOf(word) === 2 ? 2 : 1;
      adopt(screen, next, i, i + width);
      i += width;
      this.cursorX = x + width < cols ? x + width : -1;
    }
    return changed;
  }

  /** Moves the cursor to (x, y) in the fewest bytes, or rewrites a short run of plain cells. */
  private moveTo(grid: Grid, x: number, y: number): void {
    const { cursorX, cursorY } = this;
    if (cursorX === x && cursorY === y) return;
    if (cursorX >= 0 && cursorY === y && x > cursorX && x - cursorX <= MAX_REWRITTEN_GAP && this.rewriteGap(grid, cursorX, x, y)) return;
    let move = x === 0 ? (y === 0 ? `${ESC}[H` : `${ESC}[${y + 1}H`) : `${ESC}[${y + 1};${x + 1}H`;
    if (cursorX >= 0) {
      let relative = '';
      if (cursorY === y) {
        const dx = x - cursorX;
        relative = x === 0 ? '\r' : dx > 0 ? (dx === 1 ? `${ESC}[C` : `${ESC}[${dx}C`) : dx === -1 ? `${ESC}[D` : `${ESC}[${-dx}D`;
      } else if (cursorX === x) {
        const dy = y - cursorY;
        relative = dy > 0 ? (dy === 1 ? `${ESC}[B` : `${ESC}[${dy}B`) : dy === -1 ? `${ESC}[A` : `${ESC}[${-dy}A`;
      }
      if (relative && relative.length < move.length) move = relative;
    }
    this.out.push(move);
    this.cursorX = x;
    this.cursorY = y;
  }

  /** Writes the unchanged cells from..to-1 of row y again when they are plain ASCII in the pen. */
  private rewriteGap(grid: Grid, from: number, to: number, y: number): boolean {
    const rowStart = y * grid.cols;
    for (let i = rowStart + from; i < rowStart + to; i++) {
      const word = grid.words[i];
      const codePoint = codePointOf(word);
      if (word !== contentWord(codePoint, false, 1, this.penAttrs) || (codePoint !== 0 && (codePoint < 0x20 || codePoint > 0x7e))) return false;
      if (grid.fgs[i] !== this.penFg || grid.bgs[i] !== this.penBg) return false;
    }
    for (let i = rowStart + from; i < rowStart + to; i++) this.out.push(cellText(grid.words[i], undefined));
    this.cursorX = to;
    return true;
  }

  /** Changes the SGR pen to the target with the fewest parameters, resetting only when shorter. */
  private setPen(fg: Color, bg: Color, attrs: number): void {
    if (fg === this.penFg && bg === this.penBg && attrs === this.penAttrs) return;
    const fromReset: string[] = ['0'];
    for (const [bit, on] of ATTRIBUTE_CODES) if (attrs & bit) fromReset.push(on);
    if (fg !== DEFAULT_COLOR) fromReset.push(colorParams(fg, true));
    if (bg !== DEFAULT_COLOR) fromReset.push(colorParams(bg, false));

    const incremental: string[] = [];
    let adding = attrs & ~this.penAttrs;
    const removing = this.penAttrs & ~attrs;
    if (removing & BOLD_OR_DIM) {
      incremental.push('22');
      adding |= attrs & BOLD_OR_DIM;
    }
    for (const [bit, on, off] of ATTRIBUTE_CODES) {
      if (removing & bit & ~BOLD_OR_DIM) incremental.push(off);
      if (adding & bit) incremental.push(on);
    }
    if (fg !== this.penFg) incremental.push(colorParams(fg, true));
    if (bg !== this.penBg) incremental.push(colorParams(bg, false));

    const params = incremental.join(';');
    const reset = fromReset.join(';');
    this.out.push(`${ESC}[${reset.length < params.length ? reset : params}m`);
    this.penFg = fg;
    this.penBg = bg;
    this.penAttrs = attrs;
  }

  private placeCursor(grid: Grid, cursor: Cursor): void {
    if (cursor.visible) {
      this.moveTo(grid, Math.min(Math.max(0, cursor.x), grid.cols - 1), Math.min(Math.max(0, cursor.y), grid.rows - 1));
      const style = cursorStyleCode(cursor.shape, cursor.blinking ?? false);
      if (style !== this.cursorStyle) {
        this.out.push(`${ESC}[${style} q`);
        this.cursorStyle = style;
      }
    }
    if (cursor.visible !== this.cursorVisible) {
      this.out.push(cursor.visible ? `${ESC}[?25h` : `${ESC}[?25l`);
      this.cursorVisible = cursor.visible;
    }
  }
}
