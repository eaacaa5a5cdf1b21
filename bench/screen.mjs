// What one frame of `paneflow attach` costs on a 200x60 terminal: the renderer's diff with no
// change, with a few changed cells and in full; copying a pane out of a headless terminal; and a
// whole frame (clear, three panes, borders, titles, sidebar, render) with one pane changed.
// Run: npx nx build screen && node bench/screen.mjs
import headless from '@xterm/headless';
import { copyPane, DEFAULT_STYLE, Grid, layoutPanes, paletteColor, Renderer, writeText } from '@paneflow/screen';

const COLS = 200;
const ROWS = 60;
const SIDEBAR = 28;
const cursor = { x: 0, y: 0, visible: true, shape: 'block' };

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Microseconds per call of `run`, the median of 7 rounds of `count` calls. */
function measure(count, run) {
  const rounds = [];
  for (let round = 0; round < 8; round++) {
    const start = performance.now();
    for (let i = 0; i < count; i++) run(i);
    if (round > 0) rounds.push(((performance.now() - start) * 1000) / count);
  }
  return median(rounds);
}

function terminalWith(cols, rows, text) {
  const term = new headless.Terminal({ cols, rows, allowProposedApi: true });
  return new Promise((resolve) => term.write(text, () => resolve(term)));
}

const agentLines = [
  '\x1b[1m\x1b[36m⏺\x1b[0m Reading \x1b[4msrc/server/routes.ts\x1b[0m (412 lines)',
  '  \x1b[2m│\x1b[0m  const user = await db.users.find({ id: req.params[0] });',
  '\x1b[32m+\x1b[0m   if (!user) return res.status(404).json({ error: "not found" });',
  '  PASS  test/routes.test.ts (3.2 s) ✓ 41 tests, 日本語のコメント',
  '\x1b[38;5;208m✻ Thinking…\x1b[39m (esc to interrupt)',
];
const plainLines = agentLines.map((line) => line.replace(/\x1b\[[\d;]*m/g, ''));
const output = (rows) => Array.from({ length: rows }, (_, i) => agentLines[i % agentLines.length]).join('\r\n');

const figures = {};

const grid = new Grid(COLS, ROWS);
for (let y = 0; y < ROWS; y++) writeText(grid, 0, y, `${plainLines[y % plainLines.length]} `.repeat(3), { fg: paletteColor(y % 16), bg: 0, attrs: y % 3 });
const renderer = new Renderer();
renderer.render(grid, cursor);
figures['render, nothing changed (µs)'] = measure(2000, () => renderer.render(grid, cursor));
figures['render, 3 cells changed (µs)'] = measure(2000, (i) => {
  for (let k = 0; k < 3; k++) grid.setCell((i * 7 + k * 31) % COLS, (i + k * 17) % ROWS, String.fromCharCode(65 + ((i + k) % 26)), DEFAULT_STYLE);
  renderer.render(grid, { ...cursor, x: i % COLS });
});
figures['render, full redraw (µs)'] = measure(100, () => {
  renderer.invalidate();
  renderer.render(grid, cursor);
});

const full = await terminalWith(COLS, ROWS, output(ROWS));
const copy = new Grid(COLS, ROWS);
figures['copyPane, 200x60 pane (µs)'] = measure(200, () => copyPane(copy, full.buffer.active, { x: 0, y: 0, width: COLS, height: ROWS }));

const tree = { split: 'h', ratio: 0.5, children: [{ surface_id: 1 }, { split: 'v', ratio: 0.5, children: [{ surface_id: 2 }, { surface_id: 3 }] }] };
const layout = layoutPanes(tree, { x: SIDEBAR, y: 0, width: COLS - SIDEBAR, height: ROWS - 1 });
const panes = new Map();
for (const pane of layout.panes) panes.set(pane.surfaceId, await terminalWith(pane.content.width, pane.content.height, output(pane.content.height)));
const frame = new Grid(COLS, ROWS);
const frameRenderer = new Renderer();
const dim = { fg: paletteColor(8), bg: 0, attrs: 0 };
function composeAndRender(i) {
  frame.clear();
  for (let y = 0; y < ROWS - 1; y++) writeText(frame, 0, y, `agent ${y} · working`, dim, { maxWidth: SIDEBAR - 1, ellipsis: '…' });
  for (const border of layout.borders) frame.setCell(border.x, border.y, border.glyph, dim);
  for (const pane of layout.panes) {
    writeText(frame, pane.title.x, pane.title.y, ` ${pane.surfaceId}: claude `, DEFAULT_STYLE, { maxWidth: pane.title.width });
    copyPane(frame, panes.get(pane.surfaceId).buffer.active, pane.content);
  }
  writeText(frame, 0, ROWS - 1, `[demo] 3 panes · frame ${i}`, { fg: 0, bg: paletteColor(2), attrs: 0 });
  frameRenderer.render(frame, cursor);
}
figures['whole frame, status line changed (µs)'] = measure(200, composeAndRender);

for (const [name, value] of Object.entries(figures)) console.log(`${name.padEnd(40)} ${value.toFixed(1)}`);
full.dispose();
for (const term of panes.values()) term.dispose();
