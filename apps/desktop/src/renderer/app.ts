// The page's core: it keeps serve's picture from the event stream (read whole only at start,
// after a gap, or when serve is back), decides what each frame redraws, which pane is in front of
// you (its Done acknowledged, no notice raised for it), and brings a pane forward when asked. The
// sidebar, the panes, closing and the new-pane menu draw from the picture in modules of their own;
// nothing here computes an agent's state. Other machines' agents (issue 32) are kept beside it, by
// (machine, surface_id), from `fleet.list` and the far frames: they are listed and answered here,
// their terminals are not.
import { runtimeCatalog } from '@paneflow/procscan/catalog-source';
import type { EventFrame, EventFrameOf, Presentation } from '@paneflow/protocol/events';
import type { MachineRow } from '@paneflow/protocol/machines';
import type { NoticeKind, StatusObject } from '@paneflow/protocol/status';
import type { SurfaceEntry as Surface, WorkspaceEntry as Workspace } from '@paneflow/protocol/model';
import { FarMachines, farTerminalText, frameMachine, noticeText, Picture, rowMark, type PaneStatus, type ReadRequest } from '@paneflow/view';
import type { PaneflowApi } from '../api';
import { InboxReader } from './answers';
import { SpinnerClock } from './clock';
import { Closer, type CloseTarget } from './closing';
import { Digest } from './digest';
import { NewPaneMenu } from './launcher';
import { Notices } from './notices';
import { paneName, PaneTree } from './panes';
import { Sidebar } from './sidebar';
import { AgeingClock, QueueBox } from './supervision';
import type { PaneTerminal } from './terminal';
import { TurnsPanel } from './turns';

/** The page's one subscription: every frame, other machines' too (each with its `machine`). */
const SUBSCRIPTION = { machines: true };

export class App {
  readonly picture = new Picture();
  /** Other machines: their links and their agents, as this machine's serve last saw them. */
  readonly far = new FarMachines();
  /** Run after the agents or the panes are drawn (the phone layout follows them). */
  readonly drawn: Array<() => void> = [];
  /** The picture's reads, through the renderer's one API. */
  private readonly read = ((method, params) => this.api.request(method, params)) as ReadRequest;
  /** Serve's inbox: the answers a waiting agent takes, in its pane and on the phone. */
  readonly inbox: InboxReader;
  /** The turn ledger: a pane's turns and what each did, and the digest of what happened while you were away. */
  readonly turns: TurnsPanel;
  readonly digest: Digest;
  private readonly clock = new SpinnerClock();
  private readonly catalog = runtimeCatalog();
  private readonly notices = new Notices();
  private readonly sidebar: Sidebar;
  private readonly panes: PaneTree;
  /** The Queue box (`queue.add`), one for the page: the sidebar, the pane headers and the phone open it. */
  readonly queue: QueueBox;
  /** Redraws the supervisor's ages (`stalled 12m`) while any is shown. */
  private readonly ageing = new AgeingClock(() => {
    this.panes.drawHeaders();
    this.drawAgents();
  });
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private readingFleet: Promise<void> | null = null;
  private readFleetAgain = false;

  private get workspaces(): Workspace[] {
    return this.picture.workspaces;
  }

  private get surfaces(): Map<number, Surface> {
    return this.picture.surfaces;
  }

  private get statuses(): Map<number, PaneStatus> {
    return this.picture.statuses;
  }

  constructor(
    private readonly api: PaneflowApi,
    root: HTMLElement,
  ) {
    this.turns = new TurnsPanel(api, (id, machine) => this.labelOf(id, machine));
    this.digest = new Digest(api, (id, machine) => this.labelOf(id, machine), (id, machine) => void this.turns.show(id, null, machine));
    this.inbox = new InboxReader(api, () => [...this.statuses.values(), ...this.far.agents.values()], () => {
      this.panes.drawHeaders();
      this.sidebar.drawAgents();
      this.afterDraw();
    });
    const say = (message: string) => this.notices.say(message);
    this.queue = new QueueBox(api, say);
    const queue = (surfaceId: number, machine: string | null = null) => this.queue.open(surfaceId, this.labelOf(surfaceId, machine), machine);
    const closer = new Closer(api, this.picture, say);
    const close = (target: CloseTarget) => closer.close(target);
    const focus = (surfaceId: number, focusTerminal?: boolean) => this.focusSurface(surfaceId, focusTerminal);
    this.sidebar = new Sidebar(api, this.picture, this.far, this.inbox, this.catalog, this.clock, (status) => this.label(status), { focus, close, queue, say }, this.digest.sidebar);
    this.panes = new PaneTree(api, this.picture, this.inbox, this.turns, new NewPaneMenu(api, this.catalog, say), { focus, close, say, queue });
    root.append(this.sidebar.element, this.panes.element, this.notices.element, this.turns.element, this.queue.element);
    api.onFocusSurface((id, machine) => (machine === null ? void this.focusSurface(id) : this.sayWhere(id, machine)));
    // The window coming forward brings its pane in front of you too.
    window.addEventListener('focus', () => void this.ackInFront());
  }

  async start(): Promise<void> {
    await this.readPresentation();
    await this.api.subscribe(SUBSCRIPTION, (frame) => this.onEvent(frame as EventFrame), () => this.lostServe());
    await this.refresh();
    await this.digest.read();
    document.body.dataset.ready = 'true';
  }

  /** The config's part the page follows; `presentation_changed` frames carry it after this. */
  private async readPresentation(): Promise<void> {
    const status = (await this.api.request('serve.status')) as { presentation: Presentation };
    this.clock.setReduceMotion(status.presentation.reduce_motion);
  }

  /** Serve went away: the terminals go on (they follow the host); the model comes back when serve does. */
  private lostServe(): void {
    document.body.dataset.serve = 'lost';
    setTimeout(() => {
      this.api.subscribe(SUBSCRIPTION, (frame) => this.onEvent(frame as EventFrame), () => this.lostServe()).then(
        () => {
          document.body.dataset.serve = 'up';
          // The config may have changed while serve was away.
          void this.readPresentation().then(() => this.refresh());
        },
        () => this.lostServe(),
      );
    }, 500);
  }

  /** Every frame carries what changed, so the picture is kept from the stream; only a gap re-reads it. */
  private onEvent(frame: EventFrame): void {
    if (frame.type === 'machine_changed' || frameMachine(frame) !== null) return this.onFarEvent(frame);
    if (frame.type === 'notification') return this.notify(frame);
    if (frame.type === 'presentation_changed') return this.clock.setReduceMotion(frame.presentation.reduce_motion);
    if (frame.type === 'turn_started' || frame.type === 'turn_ended') return this.turns.onTurn(frame);
    if (frame.type === 'status_changed') {
      if (this.picture.apply(frame) === 'status') void this.statusChanged(frame.surface_status);
      return;
    }
    switch (this.picture.apply(frame)) {
      case 'status':
        if ('surface_id' in frame && frame.surface_id !== undefined) this.panes.drawHeader(frame.surface_id);
        this.drawAgents();
        return;
      case 'surfaces':
        if (frame.type === 'surface_created') void this.createdStatus(frame);
        this.render();
        return;
      case 'workspaces':
        this.render();
        void this.ackInFront();
        return;
      case 'focus':
        this.panes.drawHeaders();
        void this.ackInFront();
        return;
      case 'resync':
        void this.refresh();
        return;
    }
  }

  /** Another machine's frame, or a link's: never this machine's picture, whose ids are its own. */
  private onFarEvent(frame: EventFrame): void {
    const machine = frameMachine(frame);
    if (frame.type === 'notification' && machine !== null) return this.notifyFar(frame, machine);
    const change = this.far.apply(frame);
    // A link that changed may have brought agents, lost them, or gone (removed): read whole.
    if (change === 'links') void this.readFleet();
    if (change !== 'none') this.drawAgents();
  }

  /** Another machine's notification, shown as this machine's are, naming its machine. */
  private notifyFar(notice: { surface_id: number; kind: NoticeKind; title: string; body: string | null }, machine: string): void {
    const status = this.far.get(machine, notice.surface_id);
    const pane = status ? this.label(status) : notice.title;
    this.api.notify({ ...noticeText(notice.kind, pane, undefined, notice.body, machine), surface_id: notice.surface_id, machine });
  }

  /** A far pane cannot come forward here: where it is, and how to reach it, in passing. */
  private sayWhere(surfaceId: number, machine: string): void {
    this.notices.say(`${this.labelOf(surfaceId, machine)} is ${farTerminalText(machine)}`);
  }

  /** The pane is the focused one of the workspace on screen, in a focused window. */
  private inFront(surfaceId: number): boolean {
    const active = this.workspaces.find((w) => w.active);
    return document.hasFocus() && active?.focus === surfaceId && active.surfaces.includes(surfaceId);
  }

  /**
   * "Needs input", "Finished", "Error", shown unless that pane is already in front of you: the
   * reason, the pane and its workspace in the title, serve's body (the agent's message) below.
   * Serve raises one per transition (REFERENCE.md §3.5), so one per wait; a click brings the pane
   * forward (`onFocusSurface`).
   */
  private notify(notice: { surface_id: number; kind: NoticeKind; title: string; body: string | null }): void {
    if (this.inFront(notice.surface_id)) return;
    const surface = this.surfaces.get(notice.surface_id);
    const status = this.statuses.get(notice.surface_id);
    const workspace = this.workspaces.find((w) => w.id === surface?.workspace_id);
    const pane = status ? this.label(status) : notice.title;
    this.api.notify({ ...noticeText(notice.kind, pane, workspace?.name, notice.body), surface_id: notice.surface_id });
  }

  /** Done in the pane in front of you is seen, however it came in front: a click, a tab, `paneflow focus`, the window's focus. */
  private async ackInFront(): Promise<void> {
    const surfaceId = this.workspaces.find((w) => w.active)?.focus;
    if (surfaceId === null || surfaceId === undefined || !this.inFront(surfaceId)) return;
    const status = this.statuses.get(surfaceId);
    const session = this.surfaces.get(surfaceId)?.session;
    if (!session || !status || rowMark(status) !== 'done') return;
    try {
      await this.api.request('session.ack', { sessions: [session] });
    } catch (error) {
      if (document.body.dataset.serve !== 'lost') throw error;
    }
  }

  /** Re-reads the model; calls that arrive while one runs make it run once more. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        await Promise.all([this.picture.reload(this.read), this.readFleet()]);
        this.render();
      } while (this.refreshAgain);
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
  }

  /** Other machines' agents and links, read whole (`fleet.list`); calls meanwhile make it run once more. */
  private readFleet(): Promise<void> {
    if (this.readingFleet) {
      this.readFleetAgain = true;
      return this.readingFleet;
    }
    this.readingFleet = (async () => {
      do {
        this.readFleetAgain = false;
        const { agents, machines } = (await this.api.request('fleet.list')) as { agents: StatusObject[]; machines?: MachineRow[] };
        this.far.load(agents, machines ?? []);
        this.drawAgents();
      } while (this.readFleetAgain);
    })().finally(() => (this.readingFleet = null));
    return this.readingFleet;
  }

  /** A new pane whose frame came without its status (an older serve): read once. */
  private async createdStatus(frame: EventFrameOf<'surface_created'>): Promise<void> {
    const status = await this.picture.readCreated(frame, this.read);
    if (!status) return;
    await this.statusChanged(status);
    this.render();
  }

  /** A status the picture now holds: drawn, and Done in the pane in front acknowledged. */
  private async statusChanged(status: PaneStatus): Promise<void> {
    this.panes.drawHeader(status.surface_id);
    this.drawAgents();
    // Done in the pane you are looking at is seen at once.
    await this.ackInFront();
  }

  /** An agent's label: its pane's name, else its runtime's, else the pane's title; another machine's pane is not this one's. */
  label(status: PaneStatus & { machine?: string | null }): string {
    const surface = status.machine ? undefined : this.surfaces.get(status.surface_id);
    const runtime = status.runtime_id ? this.catalog.bySlug.get(status.runtime_id) : undefined;
    return surface?.name ?? (status.machine ? status.surface_name : null) ?? runtime?.label ?? surface?.title ?? `pane ${status.surface_id}`;
  }

  /** A pane's label by its id (its status's, else its name or title), of `machine` or this one. */
  labelOf(surfaceId: number, machine: string | null = null): string {
    if (machine !== null) {
      const far = this.far.get(machine, surfaceId);
      return far ? this.label(far) : `pane ${surfaceId}`;
    }
    const status = this.statuses.get(surfaceId);
    return status ? this.label(status) : paneName(this.surfaces.get(surfaceId), surfaceId);
  }

  private render(): void {
    this.sidebar.drawTabs();
    this.drawAgents();
    this.panes.draw();
    this.afterDraw();
  }

  private drawAgents(): void {
    this.sidebar.drawAgents();
    const linkDown = [...this.far.links.values()].some((link) => link.state !== 'connected');
    this.ageing.follow([...this.statuses.values(), ...this.far.agents.values()], linkDown);
    // Another machine's waits are answered in the sidebar: the inbox follows them too.
    this.inbox.refresh();
    this.afterDraw();
  }

  private afterDraw(): void {
    for (const listener of this.drawn) listener();
  }

  /** A pane's terminal, while it is drawn (the phone's key row types through it). */
  terminal(surfaceId: number): PaneTerminal | undefined {
    return this.panes.terminal(surfaceId);
  }

  /** Brings a pane forward; seeing it acknowledges its Done (session.ack). */
  async focusSurface(surfaceId: number, focusTerminal = true): Promise<void> {
    const surface = this.surfaces.get(surfaceId);
    if (!surface) return;
    if (focusTerminal) this.panes.terminal(surfaceId)?.focus();
    // With serve away the terminal still takes the keyboard; the model catches up when it is back.
    if (document.body.dataset.serve === 'lost') return;
    const active = this.workspaces.find((w) => w.active);
    try {
      if (active?.focus !== surfaceId || !active.surfaces.includes(surfaceId)) await this.api.request('surface.focus', { surface_id: surfaceId });
      const status = this.statuses.get(surfaceId);
      if (status && rowMark(status) === 'done') await this.api.request('session.ack', { sessions: [surface.session] });
    } catch (error) {
      if (document.body.dataset.serve !== 'lost') throw error;
    }
  }

  /** For tests: what is selected in a pane's terminal. */
  paneSelection(surfaceId: number): string {
    return this.panes.terminal(surfaceId)?.selection() ?? '';
  }

  /** For tests and benchmarks: what a pane's terminal shows. */
  paneText(surfaceId: number): string {
    return this.panes.terminal(surfaceId)?.text() ?? '';
  }
}
