import type { EventFrame } from '@paneflow/protocol/events';
import { Attr, copyPane, DEFAULT_STYLE, Grid, layoutPanes, paletteColor, paneCursor, writeText, type Cursor, type KeyEvent, type Layout, type PaneLayout, type Rect, type Style } from '@paneflow/screen';
import { agentRows, BADGE_WORDS, endedNotice, headerStatus, rowMark, spinnerFrame, STATIC_MARK, supervisionAges, supervisionBadges, type AgentRow, type EndedNotice, type PaneStatus, type Picture, type SupervisionTone } from '@paneflow/view';
import type { FleetGroup, FleetPane } from './fleet';
import { cursorOf, type PaneMirror } from './mirror';
import { queuePromptText } from './queue';

/** The sidebar's width when the terminal is wide enough to have one. */
const SIDEBAR_WIDTH = 26;
const SIDEBAR_FROM_COLS = 70;

export const style = (fg: number | null, attrs = 0, bg: number | null = null): Style => ({ fg: fg === null ? 0 : paletteColor(fg), bg: bg === null ? 0 : paletteColor(bg), attrs });
const STYLES = {
  heading: style(null, Attr.bold),
  dim: style(null, Attr.dim),
  active: style(null, Attr.bold | Attr.inverse),
  border: style(8),
  focus: style(2, Attr.bold),
  needYou: style(3, Attr.bold),
  error: style(1, Attr.bold),
  done: style(2),
  status: style(0, 0, 2),
  statusActive: style(15, Attr.bold, 4),
  statusPane: style(0, Attr.bold, 2),
  prefix: style(0, Attr.bold, 3),
  overlay: style(15, 0, 8),
  match: style(null, Attr.inverse),
  warn: style(5),
} as const;

/** The supervisor's words under an agent's row, in the colour of their tone. */
const TONE_STYLES: Record<SupervisionTone, Style> = { error: STYLES.error, warn: STYLES.warn, info: STYLES.dim };

/** Where a click lands. */
export type Hit = { rect: Rect; kind: 'workspace'; index: number } | { rect: Rect; kind: 'agent'; surfaceId: number } | { rect: Rect; kind: 'fleet'; pane: FleetPane };

/** What the client is doing with the keyboard, as the status line and overlays show it. */
export type Mode =
  | { kind: 'normal' }
  | { kind: 'prefix' }
  | { kind: 'scroll'; search: string | null; typing: boolean; match: number | null }
  | { kind: 'confirm'; question: string }
  | { kind: 'help' }
  | { kind: 'turns'; overlay: Overlay }
  | { kind: 'queue'; surfaceId: number; label: string; text: string };

/** What covers the whole pane area with keys of its own (the turn ledger, prefix t): it draws, takes keys and follows events. */
export interface Overlay {
  /** Its keys, for the status line. */
  readonly hint: string;
  draw(grid: Grid, area: Rect): void;
  key(event: KeyEvent): void;
  event(frame: EventFrame): void;
}

export interface Scene {
  cols: number;
  rows: number;
  picture: Picture;
  mirrors: ReadonlyMap<number, PaneMirror>;
  zoomed: number | null;
  label(status: PaneStatus): string;
  /** The spinner clock's tick; with `reduceMotion` spinners are a static mark. */
  tick: number;
  reduceMotion: boolean;
  mode: Mode;
  /** A passing note on the status line (an error, a hint). */
  note: string | null;
  prefixName: string;
  /** The clock the supervisor's ages are told by. */
  nowMs: number;
  /** Every other machine's agents, under the attached instance's own. */
  fleet: FleetGroup[];
}

export interface Drawn {
  grid: Grid;
  cursor: Cursor;
  layout: Layout | null;
  /** The pane area (right of the sidebar, above the status line). */
  area: Rect;
  /** The sidebar's width (0: none). */
  sidebar: number;
  hits: Hit[];
  /** Whether a spinner is on screen (the clock must run). */
  spinning: boolean;
  /** Whether words that age with the clock are on screen (`stalled 12m`). */
  ageing: boolean;
}

const HELP = [
  'prefix, then:',
  '  %  |     split right          "  -    split below',
  '  ← ↑ → ↓  move focus           z       zoom the pane',
  '  n  p     next/previous ws     0-9     workspace N',
  '  a        next agent that needs you (any machine)',
  '  [        scrollback (/ search, n next, q quit)',
  '  x        close the pane       &       close the workspace',
  '  c        new workspace        t       turns and diffs',
  '  q        queue a prompt for the agent (sent when its turn ends)',
  '  d        detach               ?       this help',
  '  prefix twice sends the prefix key to the pane',
  '',
  'mouse: click a pane to focus it, a row to jump, wheel scrolls',
];

/** Where things go this frame: the sidebar's width, the pane area, and the active workspace's layout. */
export interface Placement {
  sidebar: number;
  area: Rect;
  layout: Layout | null;
}

export function place(scene: Pick<Scene, 'cols' | 'rows' | 'picture' | 'zoomed'>): Placement {
  const { cols, rows } = scene;
  const sidebar = cols >= SIDEBAR_FROM_COLS ? SIDEBAR_WIDTH : 0;
  const area: Rect = { x: sidebar ? sidebar + 1 : 0, y: 0, width: cols - (sidebar ? sidebar + 1 : 0), height: Math.max(1, rows - 1) };
  const tree = scene.picture.active?.layout;
  return { sidebar, area, layout: tree ? layoutPanes(tree, area, { zoomed: scene.zoomed }) : null };
}

/** A whole frame of `paneflow attach`: sidebar, the active workspace's panes, status line, overlays. */
export function drawFrame(scene: Scene, grid: Grid, placement: Placement): Drawn {
  const { cols, rows, picture } = scene;
  const { sidebar, area, layout } = placement;
  grid.clear();
  const hits: Hit[] = [];
  const { spinning, ageing } = sidebar ? drawSidebar(scene, grid, sidebar, hits) : { spinning: false, ageing: false };
  const workspace = picture.active;
  let cursor: Cursor = HIDDEN_CURSOR;
  if (layout) {
    const focus = workspace?.focus ?? null;
    for (const border of layout.borders) grid.setCell(border.x, border.y, border.glyph, focus !== null && border.surfaces.includes(focus) ? STYLES.focus : STYLES.border);
    for (const pane of layout.panes) {
      writeText(grid, pane.title.x, pane.title.y, ` ${titleOf(scene, pane.surfaceId, scene.mirrors.get(pane.surfaceId))} `, pane.surfaceId === focus ? STYLES.focus : STYLES.dim, { maxWidth: pane.title.width, ellipsis: '…' });
      const at = drawPane(scene, grid, pane);
      if (at) cursor = at;
    }
  } else writeText(grid, area.x + 1, 0, workspace ? 'no panes' : 'no workspace: prefix c makes one', STYLES.dim);
  drawStatusLine(scene, grid);
  if (scene.mode.kind === 'help') drawBox(grid, HELP, cols, rows);
  if (scene.mode.kind === 'confirm') drawBox(grid, [scene.mode.question, '', 'y: close   n: keep'], cols, rows);
  if (scene.mode.kind === 'turns') scene.mode.overlay.draw(grid, area);
  if (scene.mode.kind === 'confirm' || scene.mode.kind === 'help' || scene.mode.kind === 'turns' || scene.mode.kind === 'queue' || (scene.mode.kind === 'scroll' && scene.mode.typing)) cursor = HIDDEN_CURSOR;
  return { grid, cursor, layout, area, sidebar, hits, spinning, ageing };
}

/** The sidebar alone, as a spinner tick needs it; the panes and status line stay as drawn. */
export function redrawSidebar(scene: Scene, drawn: Drawn): void {
  if (!drawn.sidebar) return;
  drawn.grid.fill({ x: 0, y: 0, width: drawn.sidebar, height: scene.rows - 1 }, DEFAULT_STYLE);
  drawn.hits = [];
  ({ spinning: drawn.spinning, ageing: drawn.ageing } = drawSidebar(scene, drawn.grid, drawn.sidebar, drawn.hits));
}

const HIDDEN_CURSOR: Cursor = { x: 0, y: 0, visible: false, shape: 'block' };

/**
 * One pane's terminal into its rectangle; the cursor when it is the focused pane's. Alone it is
 * what a frame costs while only a pane's output changed.
 */
export function drawPane(scene: Scene, grid: Grid, pane: PaneLayout): Cursor | null {
  const focused = pane.surfaceId === scene.picture.active?.focus;
  const mirror = scene.mirrors.get(pane.surfaceId);
  const status = scene.picture.statuses.get(pane.surfaceId);
  const ended = status ? endedNotice(status) : null;
  const shown = mirror && mirror.state !== 'attaching' ? mirror : null;
  if (shown) {
    copyPane(grid, shown.buffer, pane.content, { top: shown.top });
    if (focused && scene.mode.kind === 'scroll' && scene.mode.match !== null) highlightLine(grid, pane.content, scene.mode.match - shown.top);
  } else {
    grid.fill(pane.content, DEFAULT_STYLE);
    // A lost session has nothing to attach to: its banner says what there is to do.
    if (!ended) writeText(grid, pane.content.x, pane.content.y, 'attaching…', STYLES.dim, { maxWidth: pane.content.width });
  }
  const banner = ended ? endedBanner(ended) : shown && shown.state !== 'attached' ? (shown.state === 'lost' ? ' lost — reattaching ' : ' host replaced ') : null;
  if (banner) writeText(grid, pane.content.x, pane.content.y, banner, STYLES.error, { maxWidth: pane.content.width, ellipsis: '…' });
  if (!focused) return null;
  // No program runs in an ended pane: no cursor to show.
  if (ended) return HIDDEN_CURSOR;
  if (!shown || shown.scrolledBack > 0) return null;
  const at = paneCursor(shown.buffer, pane.content, { top: shown.top });
  const cursor = cursorOf(shown.term);
  return at ? { x: at.x, y: at.y, visible: !cursor.hidden, shape: cursor.shape, blinking: cursor.blinking } : HIDDEN_CURSOR;
}

/** The top line of an agent pane that is not running: why, and what Enter does there. */
const endedBanner = (notice: EndedNotice) => ` ${notice.text} — Enter ${notice.action === 'resume' ? 'resumes' : 'starts anew'} `;

/** A pane as the title row and the status line name it. */
function paneName(scene: Scene, surfaceId: number): string {
  const surface = scene.picture.surfaces.get(surfaceId);
  return `${surfaceId} ${surface?.name ?? (surface?.title || `pane ${surfaceId}`)}`;
}

function titleOf(scene: Scene, surfaceId: number, mirror: PaneMirror | undefined): string {
  const status = scene.picture.statuses.get(surfaceId);
  // An agent's state is in the sidebar; the title shows what any other program declared (§3.9).
  const declared = status && status.tool === null ? headerStatus(status.declared) : null;
  const scrolled = mirror && mirror.scrolledBack > 0 ? ` [-${mirror.scrolledBack}]` : '';
  return `${paneName(scene, surfaceId)}${declared ? ` · ${declared}` : ''}${scrolled}`;
}

function drawSidebar(scene: Scene, grid: Grid, width: number, hits: Hit[]): { spinning: boolean; ageing: boolean } {
  const { picture, rows } = scene;
  for (let y = 0; y < rows - 1; y++) grid.setCell(width, y, '│', STYLES.border);
  let y = 0;
  writeText(grid, 1, y++, 'Workspaces', STYLES.heading, { maxWidth: width - 1 });
  for (const workspace of picture.workspaces) {
    if (y >= rows - 3) break;
    writeText(grid, 1, y, `${workspace.active ? '▸' : ' '} ${workspace.index} ${workspace.name}`, workspace.active ? STYLES.heading : DEFAULT_STYLE, { maxWidth: width - 1, ellipsis: '…' });
    hits.push({ rect: { x: 0, y, width, height: 1 }, kind: 'workspace', index: workspace.index });
    y++;
  }
  y++;
  writeText(grid, 1, y++, 'Agents', STYLES.heading, { maxWidth: width - 1 });
  const drawn = { y, spinning: false, ageing: false };
  if (!drawAgents(scene, grid, width, picture.statuses, drawn, (surfaceId) => ({ kind: 'agent', surfaceId }), hits)) writeText(grid, 1, drawn.y++, 'none', STYLES.dim, { maxWidth: width - 1 });
  // Other machines' agents under each machine's name (a row of one is keyed by machine and id), and its link when it is not connected.
  for (const group of scene.fleet) {
    if (drawn.y >= rows - 2) break;
    drawn.y++;
    writeText(grid, 1, drawn.y++, group.heading, STYLES.heading, { maxWidth: width - 1, ellipsis: '…' });
    if (group.link && drawn.y < rows - 1) writeText(grid, 1, drawn.y++, group.link, STYLES.warn, { maxWidth: width - 1, ellipsis: '…' });
    // A link that is down says since when: its words age.
    drawn.ageing ||= group.link !== null;
    const statuses = new Map(group.agents.map((s) => [s.surface_id, s]));
    drawAgents(scene, grid, width, statuses, drawn, (surfaceId) => ({ kind: 'fleet', pane: { machine: group.machine, surfaceId } }), hits);
  }
  return { spinning: drawn.spinning, ageing: drawn.ageing };
}

type RowHit = { kind: 'agent'; surfaceId: number } | { kind: 'fleet'; pane: FleetPane };

/** One instance's agent rows from `at.y` on (`at` moves past them); false when it has none. */
function drawAgents(scene: Scene, grid: Grid, width: number, statuses: ReadonlyMap<number, PaneStatus>, at: { y: number; spinning: boolean; ageing: boolean }, hit: (surfaceId: number) => RowHit, hits: Hit[]): boolean {
  const { rows } = scene;
  const rows_ = agentRows([...statuses.values()].sort((a, b) => a.surface_id - b.surface_id), (s) => scene.label(s));
  for (const row of rows_) {
    if (at.y >= rows - 1) break;
    const top = at.y;
    const status = statuses.get(row.surface_id)!;
    at.spinning = drawAgentRow(scene, grid, row, status, width, at.y++) || at.spinning;
    if (row.subagents && at.y < rows - 1) writeText(grid, 3, at.y++, row.subagents, STYLES.dim, { maxWidth: width - 3, ellipsis: '…' });
    if (row.mark === 'need_you' && row.message && at.y < rows - 1) writeText(grid, 3, at.y++, row.message, STYLES.dim, { maxWidth: width - 3, ellipsis: '…' });
    // What the supervisor saw or did, a line each: beside the declared state, never in its place.
    for (const badge of supervisionBadges(status.supervision, scene.nowMs)) {
      if (at.y >= rows - 1) break;
      writeText(grid, 3, at.y++, badge.text, TONE_STYLES[badge.tone], { maxWidth: width - 3, ellipsis: '…' });
    }
    at.ageing ||= supervisionAges(status.supervision);
    hits.push({ rect: { x: 0, y: top, width, height: at.y - top }, ...hit(row.surface_id) });
  }
  return rows_.length > 0;
}

const BADGES: Partial<Record<AgentRow['mark'], [string, Style, string]>> = {
  need_you: [STATIC_MARK, STYLES.needYou, BADGE_WORDS.need_you],
  error: ['✖', STYLES.error, BADGE_WORDS.error],
  done: ['✔', STYLES.done, BADGE_WORDS.done],
  no_status: ['○', STYLES.dim, BADGE_WORDS.no_status],
};

/** One agent's row (§3.9); true when it is a spinner. */
function drawAgentRow(scene: Scene, grid: Grid, row: AgentRow, status: PaneStatus, width: number, y: number): boolean {
  // An agent that is not running, whatever its last record said: lost, exited, or a failed resume.
  const ended = row.mark === 'ended' ? endedNotice(status) : null;
  const badge: [string, Style, string] | undefined = ended ? ['↺', ended.badge === 'Exited' ? STYLES.dim : STYLES.error, ended.badge] : BADGES[row.mark];
  const working = row.mark === 'working';
  let glyph = ' ';
  let glyphStyle: Style = DEFAULT_STYLE;
  if (working) glyph = scene.reduceMotion ? STATIC_MARK : spinnerFrame(scene.tick);
  else if (badge) [glyph, glyphStyle] = badge;
  grid.setCell(1, y, glyph, working ? STYLES.focus : glyphStyle);
  const label = badge ? badge[2] : '';
  const labelWidth = label ? label.length + 1 : 0;
  writeText(grid, 3, y, row.label, row.mark === 'no_status' ? STYLES.dim : DEFAULT_STYLE, { maxWidth: width - 3 - labelWidth, ellipsis: '…' });
  if (badge) writeText(grid, width - label.length, y, label, badge[1]);
  return working && !scene.reduceMotion;
}

function drawStatusLine(scene: Scene, grid: Grid): void {
  const { cols, rows, picture, mode } = scene;
  const y = rows - 1;
  grid.fill({ x: 0, y, width: cols, height: 1 }, STYLES.status);
  const focused = picture.active?.focus;
  const status = focused ? picture.statuses.get(focused) : undefined;
  const mark = status ? rowMark(status) : 'none';
  const right = statusRight(scene, mark);
  // A note (an error, a restart's outcome) is read once and a prompt typed into: the tabs give way to them; key hints give way to the tabs.
  const left = cols - (scene.note !== null || mode.kind === 'queue' ? Math.min(cols, [...right].length) : 0);
  let x = 0;
  for (const workspace of picture.workspaces) {
    x += writeText(grid, x, y, ` ${workspace.index}:${workspace.name} `, workspace.active ? STYLES.statusActive : STYLES.status, { maxWidth: Math.max(0, left - x) });
  }
  if (focused) x += writeText(grid, x, y, ` ▸ ${paneName(scene, focused)} `, STYLES.statusPane, { maxWidth: Math.max(0, left - x), ellipsis: '…' });
  const rightStyle = mode.kind === 'prefix' || mode.kind === 'confirm' || mode.kind === 'queue' ? STYLES.prefix : STYLES.status;
  const width = Math.min(cols - x, [...right].length);
  if (width > 0) writeText(grid, cols - width, y, right, rightStyle, { maxWidth: width, ellipsis: '…' });
}

/** The status line's right end: a prompt being typed, a note, or the keys of the mode. */
function statusRight(scene: Scene, mark: AgentRow['mark']): string {
  const { mode, prefixName } = scene;
  if (mode.kind === 'queue') return queuePromptText(mode, scene.cols);
  if (scene.note !== null) return ` ${scene.note} `;
  switch (mode.kind) {
    case 'prefix':
      return ' PREFIX: ? for help ';
    case 'scroll':
      return mode.typing ? ` /${mode.search ?? ''}` : ` SCROLL  ↑↓ PgUp PgDn  / search${mode.search ? '  n next' : ''}  q quit `;
    case 'confirm':
      return ' y/n ';
    case 'turns':
      return ` ${mode.overlay.hint} `;
    default:
      return ` ${prefixName} ? help  ${prefixName} t turns  ${prefixName} d detach${mark === 'need_you' ? '  · this agent needs you' : ''} `;
  }
}

function drawBox(grid: Grid, lines: string[], cols: number, rows: number): void {
  const width = Math.min(cols - 2, Math.max(...lines.map((l) => [...l].length)) + 4);
  const height = Math.min(rows - 2, lines.length + 2);
  const x = Math.max(0, Math.floor((cols - width) / 2));
  const y = Math.max(0, Math.floor((rows - height) / 2));
  grid.fill({ x, y, width, height }, STYLES.overlay);
  lines.slice(0, height - 2).forEach((line, i) => writeText(grid, x + 2, y + 1 + i, line, STYLES.overlay, { maxWidth: width - 4 }));
}

function highlightLine(grid: Grid, content: Rect, row: number): void {
  if (row < 0 || row >= content.height) return;
  for (let x = content.x; x < content.x + content.width; x++) {
    const cell = grid.cell(x, content.y + row);
    if (cell.width === 0) continue;
    grid.setCell(x, content.y + row, cell.chars || ' ', { fg: cell.fg, bg: cell.bg, attrs: cell.attrs ^ Attr.inverse }, cell.width);
  }
}
