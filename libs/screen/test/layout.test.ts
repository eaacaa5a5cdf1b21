import type { LayoutNode } from '@paneflow/protocol';
import { layoutPanes, neighbour, type Layout } from '../src';

const leaf = (surface_id: number): LayoutNode => ({ surface_id });
const h = (ratio: number, ...children: LayoutNode[]): LayoutNode => ({ split: 'h', ratio, children });
const v = (ratio: number, ...children: LayoutNode[]): LayoutNode => ({ split: 'v', ratio, children });
const area = (width: number, height: number, x = 0, y = 0) => ({ x, y, width, height });

/** The layout as text: each pane's content filled with its id, borders with their glyphs, titles as 't'. */
function picture(layout: Layout, width: number, height: number, titles = false): string[] {
  const rows = Array.from({ length: height }, () => Array<string>(width).fill(' '));
  for (const pane of layout.panes) {
    const { x, y, width: w, height: hh } = pane.content;
    for (let row = y; row < y + hh; row++) for (let col = x; col < x + w; col++) rows[row][col] = String(pane.surfaceId);
  }
  for (const border of layout.borders) rows[border.y][border.x] = border.glyph;
  if (titles) for (const { title } of layout.panes) for (let col = title.x; col < title.x + title.width; col++) rows[title.y][col] = 't';
  return rows.map((row) => row.join(''));
}

// Pane 1 on the left; on the right 2 above, 3 and 4 side by side below.
const mixed = h(0.5, leaf(1), v(0.5, leaf(2), h(0.5, leaf(3), leaf(4))));

describe('layoutPanes', () => {
  test('one pane has its header on the top row, its title inset by a cell, and its terminal below', () => {
    const layout = layoutPanes(leaf(7), area(10, 4, 5, 1));
    expect(layout.panes).toEqual([
      {
        surfaceId: 7,
        box: { x: 5, y: 1, width: 10, height: 4 },
        header: { x: 5, y: 1, width: 10, height: 1 },
        title: { x: 6, y: 1, width: 8, height: 1 },
        content: { x: 5, y: 2, width: 10, height: 3 },
      },
    ]);
    expect(layout.hidden).toEqual([]);
    expect(layout.borders.map((b) => b.glyph).join('')).toBe('─'.repeat(10));
  });

  test('side-by-side panes are parted by a column, stacked ones by the lower header, and lines join', () => {
    expect(picture(layoutPanes(mixed, area(21, 8)), 21, 8)).toEqual([
      '──────────┬──────────',
      '1111111111│2222222222',
      '1111111111│2222222222',
      '1111111111│2222222222',
      '1111111111├─────┬────',
      '1111111111│33333│4444',
      '1111111111│33333│4444',
      '1111111111│33333│4444',
    ]);
    const grid = v(0.5, h(0.5, leaf(1), leaf(2)), h(0.3, leaf(3), leaf(4)));
    expect(picture(layoutPanes(grid, area(21, 8)), 21, 8)).toEqual([
      '──────────┬──────────',
      '1111111111│2222222222',
      '1111111111│2222222222',
      '1111111111│2222222222',
      '──────┬───┴──────────',
      '333333│44444444444444',
      '333333│44444444444444',
      '333333│44444444444444',
    ]);
    expect(picture(layoutPanes(h(0.5, leaf(1), v(0.5, leaf(2), leaf(3))), area(9, 6)), 9, 6, true)).toEqual([
      '─tt─┬─tt─',
      '1111│2222',
      '1111│2222',
      '1111├─tt─',
      '1111│3333',
      '1111│3333',
    ]);
  });

  test('the ratio is the first child’s share; more than two children share the rest evenly', () => {
    const layout = layoutPanes(h(0.25, leaf(1), leaf(2)), area(41, 3));
    expect(layout.panes.map((p) => p.box.width)).toEqual([10, 30]);
    const three = layoutPanes({ split: 'h', ratio: 0.5, children: [leaf(1), leaf(2), leaf(3)] }, area(41, 3));
    expect(three.panes.map((p) => [p.surfaceId, p.box.x, p.box.width])).toEqual([
      [1, 0, 20],
      [2, 21, 10],
      [3, 32, 9],
    ]);
    const stacked = layoutPanes(v(0.75, leaf(1), leaf(2)), area(10, 20));
    expect(stacked.panes.map((p) => [p.box.y, p.box.height, p.content.height])).toEqual([
      [0, 15, 14],
      [15, 5, 4],
    ]);
  });

  test('every pane keeps a column and a content row while there is room; what does not fit is hidden', () => {
    const tight = layoutPanes(h(0.01, leaf(1), leaf(2)), area(10, 4));
    expect(tight.panes.map((p) => p.box.width)).toEqual([1, 8]);
    expect(layoutPanes(v(0.99, leaf(1), leaf(2)), area(10, 6)).panes.map((p) => p.content.height)).toEqual([3, 1]);
    const narrow = layoutPanes(h(0.5, leaf(1), v(0.5, leaf(2), leaf(3))), area(2, 5));
    expect(narrow.panes.map((p) => p.surfaceId)).toEqual([1]);
    expect(narrow.hidden).toEqual([2, 3]);
    const flat = layoutPanes(v(0.5, leaf(1), leaf(2)), area(10, 1));
    expect(flat.panes.map((p) => [p.surfaceId, p.content.height])).toEqual([[1, 0]]);
    expect(flat.hidden).toEqual([2]);
    expect(layoutPanes(leaf(1), area(0, 5))).toEqual({ panes: [], hidden: [1], borders: [] });
  });

  test('a zoomed pane takes the whole area and hides the others; a zoom on a pane not in the tree is ignored', () => {
    const zoomed = layoutPanes(mixed, area(21, 8, 3, 2), { zoomed: 3 });
    expect(zoomed.panes.map((p) => [p.surfaceId, p.box])).toEqual([[3, { x: 3, y: 2, width: 21, height: 8 }]]);
    expect(zoomed.hidden).toEqual([1, 2, 4]);
    expect(layoutPanes(mixed, area(21, 8), { zoomed: 99 })).toEqual(layoutPanes(mixed, area(21, 8)));
  });

  test('no tree, no panes', () => {
    expect(layoutPanes(null, area(10, 10))).toEqual({ panes: [], hidden: [], borders: [] });
  });

  test('each border cell names the panes it belongs to or parts', () => {
    const layout = layoutPanes(mixed, area(21, 8));
    const at = (x: number, y: number) => layout.borders.find((b) => b.x === x && b.y === y)!.surfaces;
    expect(at(0, 0)).toEqual([1]);
    expect(at(12, 4)).toEqual([3]);
    expect(at(10, 2)).toEqual([1, 2]);
    expect(at(10, 6)).toEqual([1, 3]);
    expect(at(16, 6)).toEqual([3, 4]);
  });

  test('the same tree, area and zoom give back the last layout; any of them changed, even the tree in place, a new one', () => {
    const tree = h(0.5, leaf(1), leaf(2));
    const first = layoutPanes(tree, area(21, 8));
    expect(layoutPanes(h(0.5, leaf(1), leaf(2)), area(21, 8))).toBe(first);
    (tree as { ratio: number }).ratio = 0.25;
    const moved = layoutPanes(tree, area(21, 8));
    expect(moved).not.toBe(first);
    expect(moved.panes[0].box.width).toBe(5);
    expect(layoutPanes(tree, area(21, 8, 1))).toMatchObject({ panes: [{ box: { x: 1 } }, {}] });
    expect(layoutPanes(tree, area(21, 8, 1), { zoomed: 2 }).panes.map((p) => p.surfaceId)).toEqual([2]);
    expect(layoutPanes(tree, area(21, 8, 1))).toMatchObject({ panes: [{ box: { x: 1 } }, {}] });
  });
});

describe('neighbour', () => {
  const layout = layoutPanes(mixed, area(21, 8));

  test('moves to the pane beyond the edge, and to none at the edge of the area', () => {
    expect(neighbour(layout, 3, 'right')).toBe(4);
    expect(neighbour(layout, 4, 'left')).toBe(3);
    expect(neighbour(layout, 3, 'up')).toBe(2);
    expect(neighbour(layout, 3, 'left')).toBe(1);
    expect(neighbour(layout, 1, 'left')).toBeNull();
    expect(neighbour(layout, 2, 'up')).toBeNull();
    expect(neighbour(layout, 4, 'right')).toBeNull();
    expect(neighbour(layout, 99, 'right')).toBeNull();
  });

  test('prefers the pane on the cursor’s row or column, else the one that overlaps most', () => {
    expect(neighbour(layout, 1, 'right', { x: 3, y: 2 })).toBe(2);
    expect(neighbour(layout, 1, 'right', { x: 3, y: 6 })).toBe(3);
    expect(neighbour(layout, 2, 'down')).toBe(3);
    expect(neighbour(layout, 2, 'down', { x: 18, y: 2 })).toBe(4);
    expect(neighbour(layout, 2, 'down', { x: 12, y: 2 })).toBe(3);
  });

  test('the nearest pane wins over one farther away that overlaps more', () => {
    const row = layoutPanes(h(0.3, leaf(1), h(0.5, leaf(2), leaf(3))), area(31, 6));
    expect(neighbour(row, 1, 'right')).toBe(2);
    expect(neighbour(row, 3, 'left')).toBe(2);
  });

  test('a hidden pane is never a neighbour', () => {
    const zoomed = layoutPanes(mixed, area(21, 8), { zoomed: 3 });
    expect(neighbour(zoomed, 3, 'right')).toBeNull();
  });
});
