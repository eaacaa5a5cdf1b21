import type { InstanceClient } from '@paneflow/client';
import type { EventFrame } from '@paneflow/protocol/events';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { MethodName, ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import { encodeFocus, encodeKey, encodeMouse, Grid, InputParser, neighbour, Renderer, type InputEvent, type KeyEvent, type MouseEvent } from '@paneflow/screen';
import { endedNotice, notificationText, Picture, rowMark, SPINNER_TICK_MS, type EndedNotice, type PaneStatus } from '@paneflow/view';
import { drawFrame, drawPane, place, redrawSidebar, type Drawn, type Mode, type Scene } from './frame';
import { PaneMirror } from './mirror';
import type { OuterTerminal } from './tty';

/** Frames are drawn only when something changed, and while only output changes at most this often. */
const OUTPUT_FRAME_MS = 33;
/** How long a lone ESC waits to be the start of a sequence. */
const ESCAPE_MS = 25;
const WHEEL_LINES = 3;

export interface AttachOptions {
  /** The prefix key, as the input parser names it (`ctrl-b`). */
  prefix: string;
  /** Bell and desktop notifications for agents outside the view that start waiting. */
  notifications: boolean;
  reduceMotion: boolean;
  label(status: PaneStatus): string;
}

/**
 * `paneflow attach`: the active workspace's panes, each a mirror of its host session, drawn into
 * the terminal it runs in with a sidebar of every agent's declared turn. It keeps its picture from
 * serve's events, draws only what changed, and sleeps while nothing does. The face in use sets
 * the panes' sizes (tmux's `window-size latest`); detaching leaves every session running.
 */
export class AttachClient {
  private readonly picture = new Picture();
  private readonly mirrors = new Map<number, PaneMirror>();
  /** What this face last asked each pane's size to be. */
  private readonly claimed = new Map<number, string>();
  private readonly renderer = new Renderer();
  private readonly parser = new InputParser();
  private grid: Grid;
  private drawn: Drawn | null = null;
  private mode: Mode = { kind: 'normal' };
  private zoomed: number | null = null;
  private note: string | null = null;
  private tick = 0;
  private spinner: NodeJS.Timeout | null = null;
  /** The next frame: soon (this turn of the event loop is over) or later (the output cap). */
  private frameSoon: NodeJS.Immediate | null = null;
  private frameLater: NodeJS.Timeout | null = null;
  private escapeTimer: NodeJS.Timeout | null = null;
  private noteTimer: NodeJS.Timeout | null = null;
  private lastFrameAt = 0;
  /** A keystroke went in since the last frame: the frame that shows its echo waits for nothing. */
  private echoDue = false;
  private writing: Promise<void> | null = null;
  private dirty = false;
  /** What the next frame must draw again: all of it, or only these panes' terminals. */
  private wholeFrame = true;
  private readonly dirtyPanes = new Set<number>();
  private sidebarDirty = false;
  /** Frames go out only once the terminal is taken over: one drawn before would be on the other screen. */
  private entered = false;
  /** This face sets the panes' sizes until another one is used (`resized` to a size it did not ask). */
  private active = true;
  private outerFocused = true;
  private subscription: number | null = null;
  /** Panes whose restart this face asked for and serve has not answered yet. */
  private readonly restarting = new Set<number>();
  private ended: (code: number) => void = () => undefined;

  constructor(
    private readonly client: InstanceClient,
    private readonly tty: OuterTerminal,
    private readonly options: AttachOptions,
  ) {
    this.grid = new Grid(tty.size.cols, tty.size.rows);
  }

  /** Runs until detached (0) or serve is lost for good (1). */
  async run(workspace: string | undefined): Promise<number> {
    const done = new Promise<number>((resolve) => (this.ended = resolve));
    await this.subscribe();
    await this.load();
    if (workspace !== undefined) await this.selectWorkspace(workspace);
    this.tty.enter();
    this.entered = true;
    this.wholeFrame = true;
    this.tty.input.on('data', (chunk: Buffer) => this.receive(chunk));
    this.tty.output.on('resize', () => {
      this.active = true;
      this.grid = new Grid(this.tty.size.cols, this.tty.size.rows);
      this.renderer.invalidate();
      this.invalidate();
    });
    this.invalidate();
    const code = await done;
    this.stop();
    return code;
  }

  private stop(): void {
    this.entered = false; // a frame still queued draws nothing
    for (const timer of [this.spinner, this.escapeTimer, this.noteTimer]) if (timer) clearInterval(timer);
    for (const mirror of this.mirrors.values()) mirror.dispose();
    this.mirrors.clear();
    if (this.subscription !== null) this.client.unsubscribe(this.subscription);
    this.tty.leave();
  }

  private request<M extends MethodName<PublicMethods>>(method: M, params: ParamsOf<PublicMethods, M>): Promise<ResultOf<PublicMethods, M>> {
    return this.client.request(method, params) as Promise<ResultOf<PublicMethods, M>>;
  }

  private async subscribe(): Promise<void> {
    // No heartbeats: a closed socket already says serve is gone, and idle means no wakeups.
    this.subscription = await this.client.subscribe(
      { heartbeat: false },
      (_id, frame) => this.onEvent(frame as EventFrame),
      () => void this.reconnect(),
    );
  }

  /** Serve went away: terminals go on (they follow the host); the picture comes back with serve. */
  private async reconnect(): Promise<void> {
    this.subscription = null;
    this.say('serve is away; reconnecting');
    for (let attempt = 0; attempt < 120; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      try {
        await this.subscribe();
        await this.load();
        this.say(null);
        return;
      } catch {
        // not yet
      }
    }
    this.ended(1);
  }

  private async load(): Promise<void> {
    const [{ workspaces }, { surfaces }] = await Promise.all([this.request('workspace.list', {}), this.request('surface.list', { scope: 'all' })]);
    const statuses = await Promise.all(surfaces.map((s) => this.request('surface.status', { surface_id: s.surface_id }).catch(() => null)));
    this.picture.load(workspaces, surfaces, statuses.filter((s): s is NonNullable<typeof s> => s !== null));
    this.invalidate();
  }

  private onEvent(frame: EventFrame): void {
    if (frame.type === 'notification') return this.notification(frame);
    const before = frame.type === 'status_changed' ? this.picture.statuses.get(frame.surface_id) : undefined;
    const change = this.picture.apply(frame);
    // A pane running again is a new generation of its session: the old output stream has ended.
    // Mirror it again from its checkpoint now (the connection's own retry would wait and say "lost").
    if (frame.type === 'status_changed' && before && !running(before) && running(frame.surface_status)) this.dropMirror(frame.surface_id);
    if (change === 'resync') void this.load();
    // A new pane's status is not in its frame: read once.
    if (frame.type === 'surface_created') {
      void this.request('surface.status', { surface_id: frame.surface_id }).then(
        (status) => {
          if (this.picture.read(status)) this.invalidate();
        },
        () => undefined,
      );
    }
    if (change === 'status' || change === 'focus') this.ackInFront();
    if (change !== 'none') this.invalidate();
  }

  /** Needs input, Finished, Error for a pane you are not looking at: the bell, and a notification where the terminal shows them. */
  private notification(frame: Extract<EventFrame, { type: 'notification' }>): void {
    if (!this.options.notifications || frame.kind !== 'needs_input') return;
    if (this.inView(frame.surface_id) && this.outerFocused) return;
    const { title, body } = notificationText(`${frame.title} needs you`, frame.body);
    this.tty.notify(title, body);
  }

  private inView(surfaceId: number): boolean {
    return this.drawn?.layout?.panes.some((p) => p.surfaceId === surfaceId) ?? false;
  }

  /** A Done in the pane in front of you is seen at once. */
  private ackInFront(): void {
    const focused = this.picture.active?.focus;
    if (!focused || !this.outerFocused) return;
    const status = this.picture.statuses.get(focused);
    if (status && rowMark(status) === 'done') void this.request('session.ack', { sessions: [status.session] }).catch(() => undefined);
  }

  // ------------------------------------------------------------------ drawing

  /**
   * Something changed: draw it, at most once a frame, and never while nothing did. A pane's output
   * alone redraws that pane, a spinner tick the sidebar; anything else (the picture, a mode, the
   * size) the frame.
   */
  private invalidate(pane?: number | 'sidebar'): void {
    if (pane === undefined) this.wholeFrame = true;
    else if (pane === 'sidebar') this.sidebarDirty = true;
    else this.dirtyPanes.add(pane);
    this.dirty = true;
    this.schedule();
  }

  private schedule(): void {
    if (!this.entered || this.frameSoon || this.writing) return;
    // Output alone is drawn at most every OUTPUT_FRAME_MS; the echo of a keystroke at once, even
    // while a capped frame is waiting (a stream plus typing costs one extra frame per key).
    const wait = this.echoDue ? 0 : this.lastFrameAt + OUTPUT_FRAME_MS - Date.now();
    if (wait > 0) {
      this.frameLater ??= setTimeout(() => this.draw(), wait);
      return;
    }
    if (this.frameLater) clearTimeout(this.frameLater);
    this.frameLater = null;
    this.frameSoon = setImmediate(() => this.draw());
  }

  private draw(): void {
    this.frameSoon = null;
    if (this.frameLater) clearTimeout(this.frameLater);
    this.frameLater = null;
    if (!this.dirty || !this.entered) return;
    this.dirty = false;
    // A frame without pane output (a spinner tick, a mode) is not the echo still to come.
    if (this.dirtyPanes.size > 0) this.echoDue = false;
    this.lastFrameAt = Date.now();
    const scene = this.scene();
    if (this.wholeFrame || !this.drawn) {
      this.syncMirrors();
      this.drawn = drawFrame(scene, this.grid, place(scene));
      if (this.active) this.claimSizes();
      this.clock(this.drawn.spinning);
    } else {
      if (this.sidebarDirty) redrawSidebar(scene, this.drawn);
      for (const pane of this.drawn.layout?.panes ?? []) {
        if (!this.dirtyPanes.has(pane.surfaceId)) continue;
        const cursor = drawPane(scene, this.grid, pane);
        if (pane.surfaceId === this.picture.active?.focus && cursor) this.drawn.cursor = cursor;
      }
    }
    this.wholeFrame = false;
    this.sidebarDirty = false;
    this.dirtyPanes.clear();
    // A slow terminal gets fewer frames, never a backlog: the next waits for this one.
    this.writing = this.tty.write(this.renderer.render(this.grid, this.drawn.cursor)).then(() => {
      this.writing = null;
      if (this.dirty) this.schedule();
    });
  }

  private scene(): Scene {
    const { cols, rows } = this.tty.size;
    return {
      cols,
      rows,
      picture: this.picture,
      mirrors: this.mirrors,
      zoomed: this.zoomed,
      label: this.options.label,
      tick: this.tick,
      reduceMotion: this.options.reduceMotion,
      mode: this.mode,
      note: this.note,
      prefixName: this.options.prefix.replace('ctrl-', 'C-'),
    };
  }

  /** The shared spinner clock: it runs only while a spinner is on screen. */
  private clock(spinning: boolean): void {
    if (spinning && !this.spinner) {
      this.spinner = setInterval(() => {
        this.tick++;
        // An overlay may cover the sidebar: then the whole frame, to keep it on top.
        this.invalidate(this.mode.kind === 'help' || this.mode.kind === 'confirm' ? undefined : 'sidebar');
      }, SPINNER_TICK_MS);
    } else if (!spinning && this.spinner) {
      clearInterval(this.spinner);
      this.spinner = null;
    }
  }

  /** One mirror per pane of the workspace on screen, except lost ones (the host has no session for them); the others are let go. */
  private syncMirrors(): void {
    const wanted = new Set((this.picture.active?.surfaces ?? []).filter((id) => this.picture.statuses.get(id)?.lifecycle !== 'lost'));
    for (const [id, mirror] of this.mirrors) {
      if (wanted.has(id) && this.picture.surfaces.get(id)?.session === mirror.session) continue;
      mirror.dispose();
      this.mirrors.delete(id);
    }
    for (const id of wanted) {
      const surface = this.picture.surfaces.get(id);
      if (surface && !this.mirrors.has(id)) {
        this.mirrors.set(id, new PaneMirror(this.client, surface.session, { changed: () => this.invalidate(id), resized: (size) => this.mirrorResized(id, size), state: () => this.invalidate() }));
      }
    }
  }

  private dropMirror(surfaceId: number): void {
    this.mirrors.get(surfaceId)?.dispose();
    this.mirrors.delete(surfaceId);
    this.invalidate();
  }

  /** A pane's PTY took a size this face did not ask for: another face is the one in use now. */
  private mirrorResized(surfaceId: number, size: { cols: number; rows: number }): void {
    if (this.claimed.get(surfaceId) !== sizeKey(size)) this.active = false;
    this.invalidate();
  }

  private claimSizes(): void {
    for (const pane of this.drawn?.layout?.panes ?? []) {
      const mirror = this.mirrors.get(pane.surfaceId);
      if (!mirror || mirror.state !== 'attached' || pane.content.width < 2 || pane.content.height < 1) continue;
      const want = { cols: pane.content.width, rows: pane.content.height };
      if (sizeKey(mirror.size) === sizeKey(want)) continue;
      this.claimed.set(pane.surfaceId, sizeKey(want));
      void this.client.resize(mirror.session, want.cols, want.rows).catch(() => undefined);
    }
  }

  private say(note: string | null): void {
    this.note = note;
    if (this.noteTimer) clearTimeout(this.noteTimer);
    this.noteTimer = note ? setTimeout(() => this.say(null), 3000) : null;
    this.invalidate();
  }

  // ------------------------------------------------------------------ input

  private receive(chunk: Buffer): void {
    this.echoDue = true;
    if (this.escapeTimer) clearTimeout(this.escapeTimer);
    this.escapeTimer = null;
    for (const event of this.parser.feed(chunk)) this.handle(event);
    if (this.parser.pendingEscape) {
      this.escapeTimer = setTimeout(() => {
        this.escapeTimer = null;
        for (const event of this.parser.flush()) this.handle(event);
      }, ESCAPE_MS);
    }
  }

  private handle(event: InputEvent): void {
    if (event.type === 'focus') {
      this.outerFocused = event.focused;
      if (event.focused) this.ackInFront();
      const mirror = this.focusedMirror();
      const bytes = mirror && encodeFocus(event.focused, mirror.modes);
      if (mirror && bytes) this.type(mirror, bytes);
      return;
    }
    if (event.type === 'mouse') return this.mouse(event);
    if (event.type === 'paste') {
      const mirror = this.focusedMirror();
      if (mirror && this.mode.kind === 'normal') void this.client.input(mirror.session, event.text, { paste: true }).catch(() => undefined);
      return;
    }
    switch (this.mode.kind) {
      case 'normal':
        if (event.name === this.options.prefix) return this.setMode({ kind: 'prefix' });
        return this.typeKey(event);
      case 'prefix':
        this.setMode({ kind: 'normal' });
        return void this.command(event);
      case 'help':
        return this.setMode({ kind: 'normal' });
      case 'confirm':
        return this.confirmed(event.name === 'y' || event.name === 'Y');
      case 'scroll':
        return this.scrollKey(event);
    }
  }

  private setMode(mode: Mode): void {
    this.mode = mode;
    this.invalidate();
  }

  private focusedMirror(): PaneMirror | undefined {
    const focused = this.picture.active?.focus;
    return focused ? this.mirrors.get(focused) : undefined;
  }

  private typeKey(event: KeyEvent): void {
    const focused = this.picture.active?.focus;
    const status = focused ? this.picture.statuses.get(focused) : undefined;
    const ended = status ? endedNotice(status) : null;
    // No program reads an ended pane's keys: Enter brings it back, as its banner says.
    if (focused && ended) return event.name === 'enter' ? void this.restart(focused, ended) : undefined;
    const mirror = this.focusedMirror();
    if (mirror) this.type(mirror, encodeKey(event, mirror.modes));
  }

  /** What the user types goes to the focused pane as their own input; using this face makes it the one that sets sizes. */
  private type(mirror: PaneMirror, bytes: string): void {
    if (mirror.scrolledBack > 0) mirror.scrolledBack = 0;
    if (!this.active) {
      this.active = true;
      this.invalidate();
    }
    void this.client.input(mirror.session, bytes).catch(() => undefined);
  }

  private async command(event: KeyEvent): Promise<void> {
    const workspace = this.picture.active;
    const focused = workspace?.focus ?? null;
    try {
      switch (event.name) {
        case this.options.prefix: {
          const mirror = this.focusedMirror();
          if (mirror) this.type(mirror, event.sequence);
          return;
        }
        case '%':
        case '|':
        case '"':
        case '-':
          if (focused === null) return;
          await this.request('surface.split', { direction: event.name === '%' || event.name === '|' ? 'h' : 'v', surface_id: focused });
          return;
        case 'up':
        case 'down':
        case 'left':
        case 'right': {
          const layout = this.drawn?.layout;
          const next = layout && focused !== null ? neighbour(layout, focused, event.name, this.drawn?.cursor) : null;
          if (next !== null) await this.focus(next);
          return;
        }
        case 'n':
        case 'p': {
          const count = this.picture.workspaces.length;
          if (count < 2 || !workspace) return;
          await this.request('workspace.select', { index: (workspace.index + (event.name === 'n' ? 1 : count - 1)) % count });
          return;
        }
        case 'a':
          return void (await this.nextNeedingYou());
        case 'z':
          this.zoomed = this.zoomed === null ? focused : null;
          return this.invalidate();
        case '[': {
          const mirror = this.focusedMirror();
          if (mirror) this.setMode({ kind: 'scroll', search: null, typing: false, match: null });
          return;
        }
        case 'x':
          return this.askToClose();
        case 'c': {
          const cwd = focused !== null ? this.picture.surfaces.get(focused)?.cwd : undefined;
          await this.request('workspace.create', cwd ? { cwd } : {});
          return;
        }
        case 'd':
          return this.ended(0);
        case '?':
          return this.setMode({ kind: 'help' });
        default:
          if (event.name && /^[0-9]$/.test(event.name)) {
            const index = Number(event.name);
            if (index < this.picture.workspaces.length) await this.request('workspace.select', { index });
          }
      }
    } catch (error) {
      this.say((error as Error).message);
    }
  }

  private async focus(surfaceId: number): Promise<void> {
    if (this.zoomed !== null) this.zoomed = surfaceId;
    await this.request('surface.focus', { surface_id: surfaceId });
  }

  /** Jumps to the next agent waiting for you, across workspaces, after the focused one. */
  private async nextNeedingYou(): Promise<void> {
    const waiting = [...this.picture.statuses.values()].filter((s) => rowMark(s) === 'need_you').sort((a, b) => a.surface_id - b.surface_id);
    if (waiting.length === 0) return this.say('no agent needs you');
    const focused = this.picture.active?.focus ?? 0;
    const next = waiting.find((s) => s.surface_id > focused) ?? waiting[0];
    await this.focus(next.surface_id);
  }

  /** REFERENCE.md §1.4: a pane whose agent is thinking or waiting asks first; any other closes at once. */
  private askToClose(): void {
    const focused = this.picture.active?.focus;
    if (!focused) return;
    const status = this.picture.statuses.get(focused);
    if (status && status.tool !== null && (status.state === 'thinking' || status.state === 'waiting_for_input')) {
      const name = this.picture.surfaces.get(focused)?.name ?? this.options.label(status);
      return this.setMode({ kind: 'confirm', question: `Close ${name}? Its agent is ${status.state === 'thinking' ? 'working' : 'waiting for you'}.` });
    }
    void this.close(focused);
  }

  private confirmed(yes: boolean): void {
    this.setMode({ kind: 'normal' });
    const focused = this.picture.active?.focus;
    if (yes && focused) void this.close(focused);
  }

  private async close(surfaceId: number): Promise<void> {
    if (this.zoomed === surfaceId) this.zoomed = null;
    await this.request('surface.close', { surface_id: surfaceId }).catch((error: Error) => this.say(error.message));
  }

  /** Starts an ended agent pane again: its conversation resumed, or (after a failed resume) its launch anew. */
  private async restart(surfaceId: number, notice: EndedNotice): Promise<void> {
    if (this.restarting.has(surfaceId)) return;
    this.restarting.add(surfaceId);
    const name = this.picture.surfaces.get(surfaceId)?.name ?? `pane ${surfaceId}`;
    this.say(`${name}: ${notice.action === 'fresh' ? 'starting anew' : 'resuming'}…`);
    try {
      const result = await this.request('surface.restart', { surface_id: surfaceId, ...(notice.action === 'fresh' ? { fresh: true } : {}) });
      this.say(`${name}: ${restartNote(result.restart)}`);
    } catch (error) {
      this.say(`${name}: ${(error as Error).message}`);
    } finally {
      this.restarting.delete(surfaceId);
    }
  }

  private scrollKey(event: KeyEvent): void {
    const mirror = this.focusedMirror();
    const mode = this.mode;
    if (!mirror || mode.kind !== 'scroll') return this.setMode({ kind: 'normal' });
    if (mode.typing) {
      if (event.name === 'enter') return this.search(mirror, mode.search ?? '', false);
      if (event.name === 'escape') return this.setMode({ ...mode, typing: false, search: null });
      if (event.name === 'backspace') return this.setMode({ ...mode, search: (mode.search ?? '').slice(0, -1) });
      // eslint-disable-next-line no-control-regex -- a control key is not text to search for
      if (event.sequence.length >= 1 && !/[\x00-\x1f\x7f]/.test(event.sequence)) return this.setMode({ ...mode, search: (mode.search ?? '') + event.sequence });
      return;
    }
    const page = Math.max(1, mirror.size.rows - 1);
    switch (event.name) {
      case 'up':
      case 'k':
        mirror.scroll(1);
        break;
      case 'down':
      case 'j':
        mirror.scroll(-1);
        break;
      case 'pageup':
      case 'ctrl-b':
        mirror.scroll(page);
        break;
      case 'pagedown':
      case 'ctrl-f':
        mirror.scroll(-page);
        break;
      case 'g':
        mirror.scroll(Number.MAX_SAFE_INTEGER);
        break;
      case 'G':
        mirror.scroll(-Number.MAX_SAFE_INTEGER);
        break;
      case '/':
        return this.setMode({ ...mode, typing: true, search: '' });
      case 'n':
        if (mode.search) return this.search(mirror, mode.search, true);
        return;
      case 'q':
      case 'escape':
        mirror.scrolledBack = 0;
        return this.setMode({ kind: 'normal' });
      default:
        return;
    }
    this.invalidate();
  }

  /** Finds the pattern, case-insensitively, going back from the line shown (or the last match). */
  private search(mirror: PaneMirror, pattern: string, again: boolean): void {
    const mode = this.mode;
    if (mode.kind !== 'scroll' || pattern === '') return this.setMode({ kind: 'scroll', search: null, typing: false, match: null });
    const needle = pattern.toLowerCase();
    const from = (again && mode.match !== null ? mode.match : mirror.top + mirror.size.rows) - 1;
    for (let line = from; line >= 0; line--) {
      if (!mirror.lineText(line).toLowerCase().includes(needle)) continue;
      // The match goes in the middle of the view.
      const bottom = mirror.term.buffer.active.baseY;
      mirror.scrolledBack = Math.min(bottom, Math.max(0, bottom - (line - Math.floor(mirror.size.rows / 2))));
      return this.setMode({ kind: 'scroll', search: pattern, typing: false, match: line });
    }
    this.setMode({ kind: 'scroll', search: pattern, typing: false, match: mode.match });
    this.say(`not found: ${pattern}`);
  }

  private mouse(event: MouseEvent): void {
    const x = event.x - 1;
    const y = event.y - 1;
    const drawn = this.drawn;
    if (!drawn) return;
    const pane = drawn.layout?.panes.find((p) => inRect(p.box, x, y));
    if (pane) {
      const mirror = this.mirrors.get(pane.surfaceId);
      const inContent = inRect(pane.content, x, y);
      // A program that asked for the mouse gets it, in its own coordinates and encoding.
      const bytes = mirror && inContent && mirror.scrolledBack === 0 ? encodeMouse(event, pane.content, mirror.modes) : null;
      if (mirror && bytes && pane.surfaceId === this.picture.active?.focus) return this.type(mirror, bytes);
      if (event.action === 'wheel' && mirror) {
        mirror.scroll(event.button === 'wheel-up' ? WHEEL_LINES : -WHEEL_LINES);
        return this.invalidate();
      }
      if (event.action === 'press' && pane.surfaceId !== this.picture.active?.focus) void this.focus(pane.surfaceId).catch(() => undefined);
      return;
    }
    if (event.action !== 'press') return;
    const hit = drawn.hits.find((h) => inRect(h.rect, x, y));
    if (hit?.kind === 'workspace') void this.request('workspace.select', { index: hit.index }).catch(() => undefined);
    if (hit?.kind === 'agent') void this.focusAnywhere(hit.surfaceId);
  }

  /** Focuses a pane, bringing its workspace to the front. */
  private async focusAnywhere(surfaceId: number): Promise<void> {
    await this.request('surface.focus', { surface_id: surfaceId }).catch((error: Error) => this.say(error.message));
  }

  private async selectWorkspace(name: string): Promise<void> {
    const workspace = /^\d+$/.test(name) ? this.picture.workspaces[Number(name)] : this.picture.workspaces.find((w) => w.name === name);
    if (!workspace) throw new Error(`no workspace '${name}'`);
    await this.request('workspace.select', { index: workspace.index });
  }
}

const running = (status: PaneStatus) => status.lifecycle === 'live' || status.lifecycle === 'starting';

/** What a restart did, in a few words for the status line. */
function restartNote(restart: ResultOf<PublicMethods, 'surface.restart'>['restart']): string {
  if (restart.outcome === 'failed') return `resume failed: ${restart.reason ?? 'unknown'}`;
  if (restart.mode === 'launch') return 'started again from its launch command';
  const what = restart.mode === 'session' ? `conversation ${restart.provider_session_id}` : 'its latest conversation';
  return restart.outcome === 'resumed' ? `resumed ${what}` : `resuming ${what}, not confirmed yet`;
}

const sizeKey = (size: { cols: number; rows: number }) => `${size.cols}x${size.rows}`;
const inRect = (rect: { x: number; y: number; width: number; height: number }, x: number, y: number) => x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;
