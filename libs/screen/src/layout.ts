import { leaves, type LayoutNode } from '@paneflow/protocol/layout-tree';
import type { Rect } from './grid';

// Serve's split tree (@paneflow/protocol's LayoutNode) is binary; a split with more children gives
// the first its ratio and the others equal shares of the rest.

/**
 * Where one pane goes. Its box is a header row on top, where its title goes, and its terminal
 * below: the header row doubles as the border between stacked panes, tmux's
 * `pane-border-status top`.
 */
export interface PaneLayout {
  surfaceId: number;
  /** The header row and the content together. */
  box: Rect;
  /** The pane's top row: a horizontal rule (in `borders`) with the title over it. */
  header: Rect;
  /** Where the title text goes: the header inset by one cell each side. */
  title: Rect;
  /** The pane's terminal: the size its PTY gets. Height 0 when only the header fits. */
  content: Rect;
}

/** A cell of a header rule or of a column between side-by-side panes. */
export interface BorderCell {
  x: number;
  y: number;
  /** A box-drawing character that joins the lines around it. */
  glyph: string;
  /** The panes whose box this cell belongs to or touches, e.g. to highlight the focused pane's. */
  surfaces: number[];
}

export interface Layout {
  /** The panes that are shown, in tree order. */
  panes: PaneLayout[];
  /** Panes not shown: behind a zoomed pane, or with no room in a too small area. */
  hidden: number[];
  borders: BorderCell[];
}

export interface LayoutOptions {
  /** This pane takes the whole area and the others are hidden (when it is in the tree). */
  zoomed?: number | null;
}

function paneAt(surfaceId: number, box: Rect): PaneLayout {
  return {
    surfaceId,
    box,
    header: { x: box.x, y: box.y, width: box.width, height: 1 },
    title: { x: box.x + 1, y: box.y, width: Math.max(0, box.width - 2), height: 1 },
    content: { x: box.x, y: box.y + 1, width: box.width, height: box.height - 1 },
  };
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));

/** The last layout made, and what it was made of (`layoutPanes`). */
let last: { key: string; layout: Layout } | null = null;

/**
 * Places every pane of `tree` inside `area`. Side-by-side panes are parted by a one-column border;
 * stacked panes by the lower pane's header row. Each pane keeps at least one column and its header
 * row (a content row too when the split has room); what cannot get that much is hidden.
 *
 * A client asks again for every frame it draws whole (each status change), almost always with the
 * same tree and area: the same tree (by value), area and zoom give back the last layout, unmade
 * again. The layout returned is shared, so it is read-only.
 */
export function layoutPanes(tree: LayoutNode | null, area: Rect, options: LayoutOptions = {}): Layout {
  const key = `${area.x},${area.y},${area.width},${area.height},${options.zoomed ?? null},${JSON.stringify(tree)}`;
  if (last?.key !== key) last = { key, layout: makeLayout(tree, area, options.zoomed ?? null) };
  return last.layout;
}

function makeLayout(tree: LayoutNode | null, area: Rect, zoomed: number | null): Layout {
  const panes: PaneLayout[] = [];
  const hidden: number[] = [];
  const separators: Rect[] = [];
  const place = (node: LayoutNode, rect: Rect): void => {
    if (rect.width < 1 || rect.height < 1) {
      hidden.push(...leaves(node));
      return;
    }
    if ('surface_id' in node) {
      panes.push(paneAt(node.surface_id, rect));
      return;
    }
    const [first, ...others] = node.children;
    if (first === undefined) return;
    if (others.length === 0) return place(first, rect);
    const second: LayoutNode = others.length === 1 ? others[0] : { split: node.split, ratio: 1 / others.length, children: others };
    const share = Number.isFinite(node.ratio) ? clamp(node.ratio, 0, 1) : 0.5;
    if (node.split === 'h') {
      if (rect.width < 3) {
        place(first, rect);
        hidden.push(...leaves(second));
        return;
      }
      const firstWidth = clamp(Math.round(share * (rect.width - 1)), 1, rect.width - 2);
      place(first, { ...rect, width: firstWidth });
      separators.push({ x: rect.x + firstWidth, y: rect.y, width: 1, height: rect.height });
      place(second, { ...rect, x: rect.x + firstWidth + 1, width: rect.width - firstWidth - 1 });
    } else {
      if (rect.height < 2) {
        place(first, rect);
        hidden.push(...leaves(second));
        return;
      }
      const least = rect.height >= 4 ? 2 : 1;
      const firstHeight = clamp(Math.round(share * rect.height), least, rect.height - least);
      place(first, { ...rect, height: firstHeight });
      place(second, { ...rect, y: rect.y + firstHeight, height: rect.height - firstHeight });
    }
  };

  const ids = leaves(tree);
  if (zoomed !== null && ids.includes(zoomed)) {
    place({ surface_id: zoomed }, area);
    hidden.push(...ids.filter((id) => id !== zoomed));
  } else if (tree !== null) {
    place(tree, area);
  }
  return { panes, hidden, borders: borderCells(area, panes, separators) };
}

const HEADER = 1;
const SEPARATOR = 2;
// Indexed by the lines a separator cell joins: up 1, down 2, left 4, right 8.
const JUNCTIONS = ['│', '│', '│', '│', '─', '┘', '┐', '┤', '─', '└', '┌', '├', '─', '┴', '┬', '┼'];

function borderCells(area: Rect, panes: PaneLayout[], separators: Rect[]): BorderCell[] {
  const { width, height } = area;
  if (width < 1 || height < 1) return [];
  const kind = new Uint8Array(width * height);
  const owner = new Int32Array(width * height).fill(-1);
  const index = (x: number, y: number) => (y - area.y) * width + (x - area.x);
  const inside = (x: number, y: number) => x >= area.x && y >= area.y && x < area.x + width && y < area.y + height;
  const kindAt = (x: number, y: number) => (inside(x, y) ? kind[index(x, y)] : 0);
  const ownerAt = (x: number, y: number) => (inside(x, y) ? owner[index(x, y)] : -1);

  panes.forEach((pane, paneIndex) => {
    for (let y = pane.box.y; y < pane.box.y + pane.box.height; y++) {
      for (let x = pane.box.x; x < pane.box.x + pane.box.width; x++) {
        owner[index(x, y)] = paneIndex;
        if (y === pane.header.y) kind[index(x, y)] = HEADER;
      }
    }
  });
  for (const separator of separators) {
    for (let y = separator.y; y < separator.y + separator.height; y++) kind[index(separator.x, y)] = SEPARATOR;
  }

  const borders: BorderCell[] = [];
  for (const pane of panes) {
    const y = pane.header.y;
    for (let x = pane.header.x; x < pane.header.x + pane.header.width; x++) {
      borders.push({ x, y, glyph: kindAt(x, y - 1) === SEPARATOR ? '┴' : '─', surfaces: [pane.surfaceId] });
    }
  }
  for (const separator of separators) {
    const x = separator.x;
    for (let y = separator.y; y < separator.y + separator.height; y++) {
      const joins =
        (kindAt(x, y - 1) === SEPARATOR ? 1 : 0) |
        (kindAt(x, y + 1) === SEPARATOR ? 2 : 0) |
        (kindAt(x - 1, y) === HEADER ? 4 : 0) |
        (kindAt(x + 1, y) === HEADER ? 8 : 0);
      const surfaces = [ownerAt(x - 1, y), ownerAt(x + 1, y)].filter((p) => p >= 0).map((p) => panes[p].surfaceId);
      borders.push({ x, y, glyph: JUNCTIONS[joins], surfaces });
    }
  }
  return borders;
}

export type Direction = 'left' | 'right' | 'up' | 'down';

/**
 * The pane a focus move from `from` in `direction` lands on, or null at the edge. Among panes
 * beyond the edge whose span overlaps, the nearest wins; then the one on the cursor's row (moving
 * left or right) or column (moving up or down); then the one that overlaps most; then the one
 * closest to the cursor, or to the start of `from`'s edge when no cursor is given.
 */
export function neighbour(layout: Layout, from: number, direction: Direction, cursor?: { x: number; y: number }): number | null {
  const origin = layout.panes.find((pane) => pane.surfaceId === from);
  if (!origin) return null;
  const horizontal = direction === 'left' || direction === 'right';
  const a = origin.box;
  // Spans across the move (rows for left/right, columns for up/down) and positions along it.
  const spanStart = (r: Rect) => (horizontal ? r.y : r.x);
  const spanEnd = (r: Rect) => (horizontal ? r.y + r.height : r.x + r.width);
  const start = (r: Rect) => (horizontal ? r.x : r.y);
  const end = (r: Rect) => (horizontal ? r.x + r.width : r.y + r.height);
  const forward = direction === 'right' || direction === 'down';
  const line = cursor ? (horizontal ? cursor.y : cursor.x) : spanStart(a);

  let best: { surfaceId: number; score: number[] } | null = null;
  for (const pane of layout.panes) {
    const b = pane.box;
    if (pane.surfaceId === from) continue;
    const gap = forward ? start(b) - end(a) : start(a) - end(b);
    const overlap = Math.min(spanEnd(a), spanEnd(b)) - Math.max(spanStart(a), spanStart(b));
    if (gap < 0 || overlap <= 0) continue;
    const onLine = line >= spanStart(b) && line < spanEnd(b) ? 0 : 1;
    const offLine = line < spanStart(b) ? spanStart(b) - line : Math.max(0, line - spanEnd(b) + 1);
    const score = [gap, onLine, -overlap, offLine, spanStart(b)];
    if (best === null || compareScores(score, best.score) < 0) best = { surfaceId: pane.surfaceId, score };
  }
  return best?.surfaceId ?? null;
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}
