// The renderer: workspaces as tabs, the active one's split tree of terminals, and the sidebar
// whose Agents section says, for every agent pane, what its agent declared. It draws what serve
// pushes and computes no state of its own.
import { runtimeCatalog } from '@paneflow/procscan/catalog-source';
import { platformOf, suggestedPresets } from '@paneflow/procscan/match';
import type { EventFrame, EventFrameOf, Presentation } from '@paneflow/protocol/events';
import { asksToClose } from '@paneflow/protocol/errors';
import type { NoticeKind } from '@paneflow/protocol/status';
import type { LayoutNode } from '@paneflow/protocol/layout';
import type { WorktreeTeardown } from '@paneflow/protocol/public-protocol';
import type { SurfaceEntry as Surface, WorkspaceEntry as Workspace } from '@paneflow/protocol/model';
import type { PaneflowApi } from '../api';
import { AnswerBox, InboxReader } from './answers';
import { Digest } from './digest';
import { el } from './dom';
import { SpinnerClock } from './clock';
import { agentRows, displayText, endedNotice, headerStatus, noticeText, Picture, rowMark, STATIC_MARK, subagentsText, type PaneStatus, type ReadRequest } from '@paneflow/view';
import { PaneTerminal } from './terminal';
import { TurnsPanel } from './turns';

export class App {
  readonly picture = new Picture();
  /** Run after the agents or the panes are drawn (the phone layout follows them). */
  readonly drawn: Array<() => void> = [];
  /** The picture's reads, through the renderer's one API. */
  private readonly read = ((method, params) => this.api.request(method, params)) as ReadRequest;
  private readonly panes = new Map<number, { element: HTMLElement; terminal: PaneTerminal; header: HTMLElement; answers: AnswerBox }>();
  /** Serve's inbox: the answers a waiting agent takes, in its pane and on the phone. */
  readonly inbox: InboxReader;
  /** The turn ledger: a pane's turns and what each did, and the digest of what happened while you were away. */
  readonly turns: TurnsPanel;
  readonly digest: Digest;
  private readonly clock = new SpinnerClock();
  private readonly catalog = runtimeCatalog();
  /** The runtimes' launcher presets for this machine, offered in the new-pane menu. */
  private readonly presets = suggestedPresets(this.catalog, platformOf(navigator.platform));
  private refreshing: Promise<void> | null = null;
  /** The tree now on screen: redrawn only when it changes, so a focused terminal keeps its focus. */
  private drawnLayout = '';
  private refreshAgain = false;
  private readonly sidebar = el('aside', 'sidebar');
  private readonly tabs = el('nav', 'workspaces');
  private readonly agents = el('section', 'agents');
  private readonly main = el('main', 'panes');
  /** What closing left behind (worktrees kept), shown for a while. */
  private readonly notices = el('div', 'notices');

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
    const workspacesTitle = el('h2', undefined, 'Workspaces');
    const agentsTitle = el('h2', undefined, 'Agents');
    this.turns = new TurnsPanel(api, (id) => this.labelOf(id));
    this.digest = new Digest(api, (id) => this.labelOf(id), (id) => void this.turns.show(id, null));
    this.sidebar.append(workspacesTitle, this.tabs, agentsTitle, this.agents, this.digest.sidebar);
    root.append(this.sidebar, this.main, this.notices, this.turns.element);
    this.inbox = new InboxReader(api, this.picture, () => {
      for (const id of this.panes.keys()) this.renderHeader(id);
      for (const listener of this.drawn) listener();
    });
    api.onFocusSurface((id) => void this.focusSurface(id));
    // The window coming forward brings its pane in front of you too.
    window.addEventListener('focus', () => void this.ackInFront());
  }

  async start(): Promise<void> {
    await this.readPresentation();
    await this.api.subscribe({}, (frame) => this.onEvent(frame as EventFrame), () => this.lostServe());
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
      this.api.subscribe({}, (frame) => this.onEvent(frame as EventFrame), () => this.lostServe()).then(
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
    if (frame.type === 'notification') return this.notify(frame);
    if (frame.type === 'presentation_changed') return this.clock.setReduceMotion(frame.presentation.reduce_motion);
    if (frame.type === 'turn_started' || frame.type === 'turn_ended') return this.turns.onTurn(frame);
    if (frame.type === 'status_changed') {
      if (this.picture.apply(frame) === 'status') void this.statusChanged(frame.surface_status);
      return;
    }
    switch (this.picture.apply(frame)) {
      case 'status':
        if ('surface_id' in frame && frame.surface_id !== undefined) this.renderHeader(frame.surface_id);
        this.renderAgents();
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
        for (const id of this.panes.keys()) this.renderHeader(id);
        void this.ackInFront();
        return;
      case 'resync':
        void this.refresh();
        return;
    }
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
        await this.picture.reload(this.read);
        this.render();
      } while (this.refreshAgain);
    })().finally(() => (this.refreshing = null));
    return this.refreshing;
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
    this.renderHeader(status.surface_id);
    this.renderAgents();
    // Done in the pane you are looking at is seen at once.
    await this.ackInFront();
  }

  label(status: PaneStatus): string {
    const surface = this.surfaces.get(status.surface_id);
    const runtime = status.runtime_id ? this.catalog.bySlug.get(status.runtime_id) : undefined;
    return surface?.name ?? runtime?.label ?? surface?.title ?? `pane ${status.surface_id}`;
  }

  /** A pane's label by its id (its status's, else its name or title). */
  labelOf(surfaceId: number): string {
    const status = this.statuses.get(surfaceId);
    const surface = this.surfaces.get(surfaceId);
    return status ? this.label(status) : (surface?.name ?? (surface?.title || `pane ${surfaceId}`));
  }

  private render(): void {
    this.renderTabs();
    this.renderAgents();
    this.renderPanes();
  }

  private renderTabs(): void {
    this.tabs.replaceChildren(
      ...this.workspaces.map((w) => {
        const row = el('div', 'tab-row');
        const tab = el('button', `tab${w.active ? ' active' : ''}`, displayText(w.name));
        tab.dataset.workspace = String(w.index);
        tab.onclick = () => void this.api.request('workspace.select', { index: w.index });
        const close = el('button', 'tab-close', '×');
        close.title = 'Close this workspace and every pane in it';
        close.onclick = () => void this.close({ workspace: w.id });
        row.append(tab, close);
        return row;
      }),
    );
  }

  private renderAgents(): void {
    const rows = agentRows([...this.statuses.values()].sort((a, b) => a.surface_id - b.surface_id), (s) => this.label(s));
    for (const spinner of this.agents.querySelectorAll<HTMLElement>('.spinner')) this.clock.remove(spinner);
    const spinners: HTMLElement[] = [];
    this.agents.replaceChildren(
      ...rows.map((row) => {
        const item = el('div', `agent ${row.mark}`);
        item.dataset.surface = String(row.surface_id);
        item.dataset.mark = row.mark;
        const mark = el('span', 'mark');
        const name = el('span', 'name', row.label);
        item.append(mark, name);
        if (row.subagents) item.append(el('span', 'subagents', row.subagents));
        if (row.mark === 'working') {
          mark.classList.add('spinner');
          spinners.push(mark);
        } else if (row.mark === 'need_you') {
          mark.textContent = STATIC_MARK;
          item.append(el('span', 'badge', 'Need you'));
          if (row.message) item.append(el('div', 'message', row.message));
        } else if (row.mark === 'error') item.append(el('span', 'badge', 'Error'));
        else if (row.mark === 'done') item.append(el('span', 'badge', 'Done'));
        else if (row.mark === 'ended') item.append(el('span', 'badge', endedNotice(this.statuses.get(row.surface_id)!)!.badge));
        else if (row.mark === 'no_status') {
          const badge = el('span', 'badge dim', 'No status');
          const status = this.statuses.get(row.surface_id);
          const runtime = status?.runtime_id ? this.catalog.bySlug.get(status.runtime_id) : undefined;
          const first = runtime?.status.first_version;
          badge.title = first ? `${runtime!.label} declares its status from version ${first} on` : `${runtime?.label ?? 'This agent'} does not declare its status`;
          item.append(badge);
        }
        item.onclick = () => void this.focusSurface(row.surface_id);
        return item;
      }),
    );
    // On screen first: the clock drops spinners that are not.
    for (const spinner of spinners) this.clock.add(spinner);
    for (const listener of this.drawn) listener();
  }

  private renderHeader(surfaceId: number): void {
    const pane = this.panes.get(surfaceId);
    if (!pane) return;
    const surface = this.surfaces.get(surfaceId);
    const status = this.statuses.get(surfaceId);
    const title = pane.header.querySelector<HTMLElement>('.title')!;
    title.textContent = displayText(surface?.name ?? (surface?.title || `pane ${surfaceId}`));
    // What the program in it declared, agent or not (REFERENCE.md §3.9).
    const declared = status ? headerStatus(status.declared) : null;
    const badge = pane.header.querySelector<HTMLElement>('.declared')!;
    badge.textContent = declared ?? '';
    badge.hidden = declared === null;
    const subagents = pane.header.querySelector<HTMLElement>('.subagents')!;
    subagents.textContent = (status && subagentsText(status)) ?? '';
    subagents.hidden = !subagents.textContent;
    // An agent that is not running: one click resumes its conversation (or, after a failed resume, starts it anew).
    const ended = status ? endedNotice(status) : null;
    const resume = pane.header.querySelector<HTMLButtonElement>('.resume')!;
    resume.hidden = ended === null;
    resume.textContent = ended ? `${ended.text} — ${ended.action === 'fresh' ? 'start anew' : 'resume'}` : '';
    resume.dataset.action = ended?.action ?? '';
    // While its agent waits, the answers its runtime knows, under the header.
    const waiting = status && rowMark(status) === 'need_you';
    if (waiting) this.inbox.refresh();
    pane.answers.draw(waiting ? this.inbox.waiting(surfaceId) : undefined);
    pane.element.classList.toggle('focused', this.workspaces.find((w) => w.active)?.focus === surfaceId);
  }

  private paneView(surface: Surface) {
    let pane = this.panes.get(surface.surface_id);
    if (pane) return pane;
    const element = el('div', 'pane');
    element.dataset.surface = String(surface.surface_id);
    const header = el('header');
    const title = el('span', 'title');
    const declared = el('span', 'declared');
    const subagents = el('span', 'subagents');
    const find = el('input', 'find') as HTMLInputElement;
    find.placeholder = 'Search';
    find.hidden = true;
    const split = el('button', 'split-button', '⊞');
    split.title = 'Split this pane';
    split.onclick = () => void this.api.request('surface.split', { direction: 'h', surface_id: surface.surface_id });
    const resume = el('button', 'resume');
    resume.hidden = true;
    resume.onclick = () => void this.restart(surface.surface_id, resume.dataset.action === 'fresh');
    const turns = el('button', 'turns-button', 'Turns');
    turns.title = 'What each turn of this pane’s agent did: prompt, questions, tokens, diff';
    turns.onclick = () => void this.turns.show(surface.surface_id, null);
    const launch = el('button', 'new-pane-button', '+');
    launch.title = 'New pane: a shell or an agent preset';
    launch.onclick = () => this.newPaneMenu(surface.surface_id, header);
    const close = el('button', 'close-button', '×');
    close.title = 'Close this pane (Ctrl+Shift+W)';
    close.onclick = () => void this.close({ pane: surface.surface_id });
    header.append(title, declared, subagents, resume, find, turns, launch, split, close);
    const terminal = new PaneTerminal(this.api, surface.session, () => void this.focusSurface(surface.surface_id, false));
    find.onkeydown = (event) => {
      if (event.key === 'Enter') void terminal.find(find.value);
      if (event.key === 'Escape') {
        find.hidden = true;
        terminal.focus();
      }
    };
    element.addEventListener('keydown', (event) => {
      if (event.ctrlKey && event.shiftKey && event.key.toLowerCase() === 'f') {
        event.preventDefault();
        find.hidden = false;
        find.focus();
      }
      if (event.ctrlKey && event.shiftKey && event.key.toLowerCase() === 'w') {
        event.preventDefault();
        void this.close({ pane: surface.surface_id });
      }
    });
    const answers = new AnswerBox(this.api, this.inbox, 'pane-answers', (message) => this.notice(message));
    element.append(header, answers.element, terminal.element);
    element.onmousedown = () => void this.focusSurface(surface.surface_id, false);
    pane = { element, terminal, header, answers };
    this.panes.set(surface.surface_id, pane);
    return pane;
  }

  private renderPanes(): void {
    const active = this.workspaces.find((w) => w.active);
    for (const [id, pane] of this.panes) {
      if (!this.surfaces.has(id)) {
        pane.terminal.dispose();
        pane.element.remove();
        this.panes.delete(id);
      }
    }
    const build = (node: LayoutNode): HTMLElement => {
      if ('surface_id' in node) {
        const surface = this.surfaces.get(node.surface_id);
        if (!surface) return el('div', 'pane missing');
        return this.paneView(surface).element;
      }
      const box = el('div', `split ${node.split}`);
      const [first, second] = node.children.map(build);
      first.style.flex = `${node.ratio} 1 0`;
      second.style.flex = `${1 - node.ratio} 1 0`;
      box.append(first, second);
      return box;
    };
    const key = JSON.stringify([active?.id, active?.layout]);
    if (key !== this.drawnLayout) {
      this.drawnLayout = key;
      const focused = document.activeElement as HTMLElement | null;
      this.main.replaceChildren(active?.layout ? build(active.layout) : el('div', 'empty', 'No panes'));
      if (focused && this.main.contains(focused)) focused.focus();
    }
    for (const id of this.panes.keys()) this.renderHeader(id);
    for (const listener of this.drawn) listener();
  }

  /** A pane's terminal, while it is drawn (the phone's key row types through it). */
  terminal(surfaceId: number): PaneTerminal | undefined {
    return this.panes.get(surfaceId)?.terminal;
  }

  /** Brings a pane forward; seeing it acknowledges its Done (session.ack). */
  async focusSurface(surfaceId: number, focusTerminal = true): Promise<void> {
    const surface = this.surfaces.get(surfaceId);
    if (!surface) return;
    if (focusTerminal) this.panes.get(surfaceId)?.terminal.focus();
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

  /** Starts an agent pane that is not running again; its header follows from serve's events. */
  private async restart(surfaceId: number, fresh: boolean): Promise<void> {
    const button = this.panes.get(surfaceId)?.header.querySelector<HTMLButtonElement>('.resume');
    if (button) button.disabled = true;
    try {
      await this.api.request('surface.restart', { surface_id: surfaceId, ...(fresh ? { fresh: true } : {}) });
    } catch (error) {
      if (button) button.title = (error as Error).message;
    } finally {
      if (button) button.disabled = false;
    }
    await this.focusSurface(surfaceId);
  }

  /**
   * Closes a pane, or a workspace's every pane, by REFERENCE §1.4's policy: at once when nothing
   * runs there; when serve says one needs confirmation (an agent in its turn, a shell running a
   * program) only after you confirm; when the host does not answer, after you confirm a warning
   * that nothing can be stopped.
   */
  async close(target: { pane: number } | { workspace: string }): Promise<void> {
    // A workspace by id: the same one however others come and go while you decide.
    const request = (options: { unless_busy?: true }) =>
      'pane' in target ? this.api.settle('surface.close', { surface_id: target.pane, ...options }) : this.api.settle('workspace.close', { workspace_id: target.workspace, ...options });
    const first = await request({ unless_busy: true });
    let outcome = first;
    if ('error' in first) {
      if (!asksToClose(first.error.reason)) return this.notice(`Not closed: ${first.error.message}`);
      const name = 'workspace' in target ? this.workspaces.find((w) => w.id === target.workspace)?.name : undefined;
      const what = name === undefined ? '' : `Close the workspace ${name}? `;
      if (!(await this.confirm(what + first.error.message, first.error.reason!))) return;
      outcome = await request({});
      if ('error' in outcome) return this.notice(`Not closed: ${outcome.error.message}`);
    }
    const { worktrees } = (outcome as { result: { worktrees: WorktreeTeardown[] } }).result;
    for (const kept of worktrees.filter((w) => !w.removed)) this.notice(`Worktree kept: ${kept.path}${kept.reason ? ` (${kept.reason})` : ''}`);
  }

  /**
   * The new-pane menu under a pane's header: a shell, or a runtime's launcher preset (its
   * `[[suggested_presets]]`, started by serve from its own catalog), split beside the pane.
   * Escape or a click elsewhere closes it.
   */
  private newPaneMenu(surfaceId: number, header: HTMLElement): void {
    const open = document.querySelector('.new-pane-menu');
    open?.remove();
    if (open?.parentElement === header) return;
    const menu = el('div', 'new-pane-menu');
    menu.setAttribute('role', 'menu');
    const dismiss = (event: Event) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !menu.contains(event.target as Node)) close();
    };
    const close = () => {
      menu.remove();
      document.removeEventListener('mousedown', dismiss, true);
      document.removeEventListener('keydown', dismiss, true);
    };
    const entry = (label: string, hint: string, params: { preset?: string }) => {
      const item = el('button', 'launcher', displayText(label));
      item.setAttribute('role', 'menuitem');
      item.title = displayText(hint);
      if (params.preset) item.dataset.preset = params.preset;
      item.onclick = async () => {
        close();
        const outcome = await this.api.settle('surface.split', { direction: 'h', surface_id: surfaceId, ...params });
        if ('error' in outcome) this.notice(`Not opened: ${outcome.error.message}`);
      };
      return item;
    };
    menu.append(entry('Shell', 'A shell in this pane’s directory', {}), ...this.presets.map((p) => entry(p.name ?? p.id, `${p.runtime.label}: ${p.command}`, { preset: p.id })));
    header.append(menu);
    document.addEventListener('mousedown', dismiss, true);
    document.addEventListener('keydown', dismiss, true);
    menu.querySelector<HTMLElement>('.launcher')?.focus();
  }

  /** An in-page question with Close and Cancel, marked with serve's reason; Escape cancels. Resolves true on Close. */
  private confirm(message: string, reason: string): Promise<boolean> {
    document.querySelector('.confirm')?.remove();
    const focused = document.activeElement as HTMLElement | null;
    const dialog = el('div', 'confirm');
    dialog.dataset.reason = reason;
    dialog.setAttribute('role', 'alertdialog');
    const text = el('p', 'message', displayText(message));
    const cancel = el('button', 'cancel', 'Cancel');
    const close = el('button', 'confirm-close', 'Close');
    const buttons = el('div', 'buttons');
    buttons.append(cancel, close);
    dialog.append(text, buttons);
    document.body.append(dialog);
    close.focus();
    return new Promise((resolve) => {
      const answer = (yes: boolean) => {
        dialog.remove();
        if (!yes && focused?.isConnected) focused.focus();
        resolve(yes);
      };
      close.onclick = () => answer(true);
      cancel.onclick = () => answer(false);
      dialog.addEventListener('keydown', (event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        answer(false);
      });
    });
  }

  /** A short notice at the bottom right, gone after a while. */
  private notice(message: string): void {
    const item = el('div', 'notice', displayText(message));
    this.notices.append(item);
    setTimeout(() => item.remove(), 8000);
  }

  /** For tests: what is selected in a pane's terminal. */
  paneSelection(surfaceId: number): string {
    return this.panes.get(surfaceId)?.terminal.selection() ?? '';
  }

  /** For tests and benchmarks: what a pane's terminal shows. */
  paneText(surfaceId: number): string {
    return this.panes.get(surfaceId)?.terminal.text() ?? '';
  }
}
