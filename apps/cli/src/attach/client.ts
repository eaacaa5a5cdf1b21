import type { InstanceClient } from '@paneflow/client';
import type { EventFrame, EventType, Presentation } from '@paneflow/protocol/events';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { MethodName, ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import { encodeFocus, encodeKey, type InputEvent, type KeyEvent, type MouseEvent } from '@paneflow/screen';
import { endedNotice, Picture, rowMark, type PaneStatus, type ReadRequest } from '@paneflow/view';
import { Commands, type CommandFace } from './commands';
import { FrameDrawing } from './drawing';
import { KeyReader } from './keys';
import { AttachFleet, HOME_NAME, type FleetNotice, type FleetPane } from './fleet';
import type { Drawn, Mode, Scene } from './frame';
import type { PaneMirror } from './mirror';
import { Mirrors } from './mirrors';
import { mouseAction } from './mouse';
import { noticeWords, notified } from './notices';
import type { OuterTerminal } from './tty';

/**
 * The frames attach reads (the picture's, the turn ledger's overlay, notices, the config's): a
 * pane's output counter (`surface_changed`, ~10 a second per busy pane) and the hooks' frames
 * would only wake it (issue 34).
 */
const FOLLOWED: EventType[] = ['status_changed', 'declared_changed', 'surface_created', 'surface_updated', 'surface_closed', 'workspace_changed', 'focus_changed', 'notification', 'presentation_changed', 'turn_started', 'turn_ended'];

export interface AttachOptions {
  label(status: PaneStatus): string;
}

/** Where a session starts: a workspace by name or index, or a pane to focus (its workspace comes forward with it); a note to show. */
export interface AttachStart {
  workspace?: string;
  pane?: number;
  note?: string;
}

/**
 * How a session ended: detached (0) or serve lost for good (1), or to go on in another machine's
 * instance at one of its panes (`back`: where this one was, should that one not start).
 */
export type AttachEnd = { code: number } | { switchTo: FleetPane; back: AttachStart };

/**
 * `paneflow attach`: the active workspace's panes, each a mirror of its host session, drawn into
 * the terminal it runs in with a sidebar of every agent's declared turn, every other machine's
 * agents under it (AttachFleet). It keeps its picture from serve's events, draws only what
 * changed, and sleeps while nothing does. The face in use sets the panes' sizes (tmux's
 * `window-size latest`); detaching leaves every session running.
 */
export class AttachClient implements CommandFace {
  readonly picture = new Picture();
  /** The picture's reads. */
  private readonly read: ReadRequest = (method, params) => this.request(method, params);
  private readonly mirrors: Mirrors;
  private readonly drawing: FrameDrawing;
  private readonly keys = new KeyReader((event) => this.handle(event));
  mode: Mode = { kind: 'normal' };
  zoomed: number | null = null;
  private note: string | null = null;
  private noteTimer: NodeJS.Timeout | null = null;
  private outerFocused = true;
  private subscription: number | null = null;
  /**
   * What the config says of this face (the prefix key as the input parser names it, `ctrl-b`;
   * bell and notifications for agents out of view; reduce_motion), read at start and after serve
   * comes back, and followed through `presentation_changed` in between: it applies live.
   */
  private presentation!: Presentation;
  private readonly commands = new Commands(this);
  /** Every other machine's agents, from this machine's serve (issue 32). */
  private readonly fleet: AttachFleet;
  private finish: (end: AttachEnd) => void = () => undefined;
  private readonly onData = (chunk: Buffer) => {
    this.drawing.keyRead();
    this.keys.feed(chunk);
  };
  private readonly onResize = () => {
    this.mirrors.active = true;
    this.drawing.resized();
  };

  /** `client`: the instance worked in (another machine's when it has one); `local`: this machine's, whose serve knows every machine. */
  constructor(
    private readonly client: InstanceClient,
    local: InstanceClient,
    private readonly tty: OuterTerminal,
    private readonly options: AttachOptions,
  ) {
    this.mirrors = new Mirrors(client, (pane) => this.invalidate(pane));
    this.drawing = new FrameDrawing(tty, this.mirrors, { scene: (tick) => this.scene(tick) });
    this.fleet = new AttachFleet(local, client.machine, { changed: () => this.invalidate('sidebar'), noticed: (notice, machine) => this.notify(notice, machine) });
  }

  /**
   * Runs until detached (0), serve is lost for good (1), or `prefix a` or a click goes to an agent
   * on another machine: then the terminal stays taken over, for the session that goes on there.
   */
  async run(start: AttachStart): Promise<AttachEnd> {
    const done = new Promise<AttachEnd>((resolve) => (this.finish = resolve));
    try {
      await this.subscribe();
      await this.fleet.start();
      await this.readPresentation();
      await this.load();
      // Attaching is looking: the digest's default start. An older serve has no such method.
      void this.request('fleet.looked', {}).catch(() => undefined);
      if (start.workspace !== undefined) await this.commands.selectWorkspace(start.workspace);
      if (start.pane !== undefined) await this.request('surface.focus', { surface_id: start.pane }).catch((error: Error) => this.say(error.message));
      if (start.note) this.say(start.note);
    } catch (error) {
      // The terminal is attach's to give back (it may go on in another session).
      this.stop(true);
      throw error;
    }
    this.tty.enter();
    this.drawing.start();
    this.tty.input.on('data', this.onData);
    this.tty.output.on('resize', this.onResize);
    this.invalidate();
    const end = await done;
    this.stop('switchTo' in end);
    return end;
  }

  /** Ends this session's mirrors, subscriptions and clocks; the terminal is given back unless another session takes it over. */
  private stop(switching: boolean): void {
    this.drawing.stop();
    this.keys.stop();
    if (this.noteTimer) clearTimeout(this.noteTimer);
    this.tty.input.off('data', this.onData);
    this.tty.output.off('resize', this.onResize);
    this.mirrors.dispose();
    this.fleet.close();
    if (this.subscription !== null) this.client.unsubscribe(this.subscription);
    this.subscription = null;
    if (!switching) this.tty.leave();
  }

  request<M extends MethodName<PublicMethods>>(method: M, params: ParamsOf<PublicMethods, M>): Promise<ResultOf<PublicMethods, M>> {
    return this.client.request(method, params) as Promise<ResultOf<PublicMethods, M>>;
  }

  get prefix(): string {
    return this.presentation.attach.prefix;
  }

  label(status: PaneStatus): string {
    return this.options.label(status);
  }

  detach(): void {
    this.finish({ code: 0 });
  }

  /** `prefix a`: the next agent waiting on any machine, oldest wait first (serve's fleet-wide inbox). */
  async nextWaiting(): Promise<void> {
    const focused = this.picture.active?.focus ?? null;
    const next = await this.fleet.nextWaiting(focused === null ? null : { machine: this.client.machine, surfaceId: focused });
    if (!next) return this.say('no agent needs you');
    await this.goTo(next);
  }

  /** A pane of any machine: focused here, or the session goes on in its machine's instance. */
  async goTo(pane: FleetPane): Promise<void> {
    if (pane.machine === this.client.machine) return this.commands.focus(pane.surfaceId);
    // A link known to be down: said here, and this session goes on untouched.
    const down = pane.machine === null ? null : this.fleet.unreachable(pane.machine, Date.now());
    if (down) return this.say(down);
    const focused = this.picture.active?.focus;
    this.finish({ switchTo: pane, back: focused ? { pane: focused } : {} });
  }

  private async subscribe(): Promise<void> {
    // No heartbeats: a closed socket already says serve is gone, and idle means no wakeups.
    this.subscription = await this.client.subscribe(
      { heartbeat: false, types: FOLLOWED },
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
        // The config may have changed while serve was away.
        await this.readPresentation();
        await Promise.all([this.load(), this.fleet.load()]);
        this.say(null);
        return;
      } catch {
        // not yet
      }
    }
    this.finish({ code: 1 });
  }

  private async readPresentation(): Promise<void> {
    this.presentation = (await this.request('serve.status', {})).presentation;
    this.invalidate();
  }

  private async load(): Promise<void> {
    await this.picture.reload(this.read);
    this.invalidate();
  }

  private onEvent(frame: EventFrame): void {
    if (this.mode.kind === 'turns') this.mode.overlay.event(frame);
    if (frame.type === 'notification') return this.notify(frame);
    if (frame.type === 'presentation_changed') {
      this.presentation = frame.presentation;
      // The whole frame: the sidebar's marks and the key hints change with it.
      return this.invalidate();
    }
    const before = frame.type === 'status_changed' ? this.picture.statuses.get(frame.surface_id) : undefined;
    const change = this.picture.apply(frame);
    // A pane running again is a new generation of its session: the old output stream has ended.
    // Mirror it again from its checkpoint now (the connection's own retry would wait and say "lost").
    if (frame.type === 'status_changed' && before && !running(before) && running(frame.surface_status)) this.mirrors.drop(frame.surface_id);
    if (change === 'resync') void this.load();
    if (frame.type === 'surface_created') {
      void this.picture.readCreated(frame, this.read).then((status) => status && this.invalidate());
    }
    if (change === 'status' || change === 'focus') this.ackInFront();
    if (change === 'status' && frame.type === 'status_changed' && this.outOfFront(frame.surface_id)) {
      // An agent's state shows in the sidebar and, once it ended, on its pane's first line: the
      // title and the status line are the pane in front's (issue 34: most changes are elsewhere).
      this.invalidate('sidebar');
      if (this.inView(frame.surface_id)) this.invalidate(frame.surface_id);
      return;
    }
    if (change !== 'none') this.invalidate();
  }

  /** An agent pane not in front, whose title shows nothing of its state (only a non-agent's declared status is there). */
  private outOfFront(surfaceId: number): boolean {
    return surfaceId !== this.picture.active?.focus && this.picture.statuses.get(surfaceId)?.tool != null;
  }

  /**
   * A notice from this instance's stream (`machine` undefined) or the fleet's (an agent on another
   * machine, or on this one while another is attached): the bell, a notification where the
   * terminal shows them (worded as every face words it), and a note naming the key that goes to an
   * agent that needs you. One in view while the terminal has focus is not raised.
   */
  private notify(notice: FleetNotice, machine?: string | null): void {
    const here = machine === undefined;
    if (!notified(this.presentation, notice.kind) || (here && this.inView(notice.surface_id) && this.outerFocused)) return;
    const status = here ? this.picture.statuses.get(notice.surface_id) : this.fleet.status(machine, notice.surface_id);
    const workspaceId = here ? this.picture.surfaces.get(notice.surface_id)?.workspace_id : undefined;
    const workspace = this.picture.workspaces.find((w) => w.id === workspaceId)?.name;
    const words = noticeWords(notice, status ? this.options.label(status) : notice.title, workspace, here ? this.client.machine : (machine ?? HOME_NAME), this.prefixName);
    this.tty.notify(words.title, words.body);
    this.say(words.note);
  }

  /** The prefix as the help and the status line name it (`C-b`). */
  private get prefixName(): string {
    return this.prefix.replace('ctrl-', 'C-');
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

  /** Something changed: the whole frame, the sidebar or one pane's terminal is drawn again (FrameDrawing). */
  invalidate(pane?: number | 'sidebar'): void {
    this.drawing.invalidate(pane);
  }

  /** The frame last drawn: the layout the arrows move in. */
  get drawn(): Drawn | null {
    return this.drawing.drawn;
  }

  private scene(tick: number): Scene {
    const { cols, rows } = this.tty.size;
    const nowMs = Date.now();
    return {
      cols,
      rows,
      picture: this.picture,
      mirrors: this.mirrors,
      zoomed: this.zoomed,
      label: this.options.label,
      tick,
      reduceMotion: this.presentation.reduce_motion,
      mode: this.mode,
      note: this.note,
      prefixName: this.prefixName,
      nowMs,
      fleet: this.fleet.groups(nowMs),
    };
  }

  say(note: string | null): void {
    this.note = note;
    if (this.noteTimer) clearTimeout(this.noteTimer);
    this.noteTimer = note ? setTimeout(() => this.say(null), 3000) : null;
    this.invalidate();
  }

  // ------------------------------------------------------------------ input

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
      if (this.mode.kind === 'queue') return this.setMode({ ...this.mode, text: this.mode.text + event.text });
      const mirror = this.focusedMirror();
      if (mirror && this.mode.kind === 'normal') void this.client.input(mirror.session, event.text, { paste: true }).catch(() => undefined);
      return;
    }
    switch (this.mode.kind) {
      case 'normal':
        if (event.name === this.prefix) return this.setMode({ kind: 'prefix' });
        return this.typeKey(event);
      case 'prefix':
        this.setMode({ kind: 'normal' });
        return void this.commands.run(event);
      case 'help':
        return this.setMode({ kind: 'normal' });
      case 'confirm':
        return this.commands.confirmed(event.name === 'y' || event.name === 'Y');
      case 'scroll':
        return this.commands.scrollTyped(event);
      case 'turns':
        return this.mode.overlay.key(event);
      case 'queue':
        return this.commands.queueTyped(this.mode, event);
    }
  }

  setMode(mode: Mode): void {
    this.mode = mode;
    this.invalidate();
  }

  focusedMirror(): PaneMirror | undefined {
    const focused = this.picture.active?.focus;
    return focused ? this.mirrors.get(focused) : undefined;
  }

  private typeKey(event: KeyEvent): void {
    const focused = this.picture.active?.focus;
    const status = focused ? this.picture.statuses.get(focused) : undefined;
    const ended = status ? endedNotice(status) : null;
    // No program reads an ended pane's keys: Enter brings it back, as its banner says.
    if (focused && ended) return event.name === 'enter' ? void this.commands.restart(focused, ended) : undefined;
    const mirror = this.focusedMirror();
    // Encoded here, in the mirror's cursor-key mode: the host's session.key takes key names, not
    // bytes, and refuses the keys that submit, which a person at the keyboard must be able to press.
    if (mirror) this.type(mirror, encodeKey(event, mirror.modes));
  }

  /** What the user types goes to the focused pane as their own input; using this face makes it the one that sets sizes. */
  type(mirror: PaneMirror, bytes: string): void {
    if (mirror.scrolledBack > 0) mirror.follow();
    if (!this.mirrors.active) {
      this.mirrors.active = true;
      this.invalidate();
    }
    void this.client.input(mirror.session, bytes).catch(() => undefined);
  }

  private mouse(event: MouseEvent): void {
    // The turn ledger covers the panes: a click there is for none of them.
    if (!this.drawn || this.mode.kind === 'turns') return;
    const action = mouseAction(event, this.drawn, this.mirrors, this.picture.active?.focus);
    if (action) this.commands.clicked(action);
  }
}

const running = (status: PaneStatus) => status.lifecycle === 'live' || status.lifecycle === 'starting';
