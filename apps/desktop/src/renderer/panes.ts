// The panes on screen: the active workspace's split tree, and each pane's header — its name, what
// the program in it declared, its subagents, a resume button for an agent that is not running,
// search, Queue and the supervisor's words for an agent, Turns, the new-pane menu, split and close
// — with the answers strip under it while its agent waits, and its terminal, which lives as long
// as the pane does in the model.
import type { LayoutNode } from '@paneflow/protocol/layout';
import type { SurfaceEntry as Surface } from '@paneflow/protocol/model';
import { displayText, endedNotice, headerStatus, rowMark, subagentsText, type Picture } from '@paneflow/view';
import type { PaneflowApi } from '../api';
import { AnswerBox, type InboxReader } from './answers';
import type { CloseTarget } from './closing';
import { el } from './dom';
import type { NewPaneMenu } from './launcher';
import { queueButton, supervisionElement } from './supervision';
import { PaneTerminal } from './terminal';
import type { TurnsPanel } from './turns';

/** A pane's own name: the one it was given, else the title its program set, else its number. */
export const paneName = (surface: Surface | undefined, surfaceId: number): string => surface?.name ?? (surface?.title || `pane ${surfaceId}`);

/** What a pane's controls ask of the rest of the page. */
export interface PaneActions {
  focus(surfaceId: number, focusTerminal?: boolean): Promise<void>;
  close(target: CloseTarget): Promise<void>;
  say(message: string): void;
  /** Opens the Queue box for the pane's agent. */
  queue(surfaceId: number): void;
}

interface PaneView {
  element: HTMLElement;
  terminal: PaneTerminal;
  header: HTMLElement;
  answers: AnswerBox;
}

export class PaneTree {
  readonly element = el('main', 'panes');
  private readonly panes = new Map<number, PaneView>();
  /** The tree now on screen: redrawn only when it changes, so a focused terminal keeps its focus. */
  private drawnLayout = '';

  constructor(
    private readonly api: PaneflowApi,
    private readonly picture: Picture,
    private readonly inbox: InboxReader,
    private readonly turns: TurnsPanel,
    private readonly menu: NewPaneMenu,
    private readonly actions: PaneActions,
  ) {}

  /** A pane's terminal, while it is drawn. */
  terminal(surfaceId: number): PaneTerminal | undefined {
    return this.panes.get(surfaceId)?.terminal;
  }

  draw(): void {
    const { surfaces } = this.picture;
    const active = this.picture.workspaces.find((w) => w.active);
    for (const [id, pane] of this.panes) {
      if (!surfaces.has(id)) {
        pane.terminal.dispose();
        pane.element.remove();
        this.panes.delete(id);
      }
    }
    const build = (node: LayoutNode): HTMLElement => {
      if ('surface_id' in node) {
        const surface = surfaces.get(node.surface_id);
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
      this.element.replaceChildren(active?.layout ? build(active.layout) : el('div', 'empty', 'No panes'));
      if (focused && this.element.contains(focused)) focused.focus();
    }
    this.drawHeaders();
  }

  drawHeaders(): void {
    for (const id of this.panes.keys()) this.drawHeader(id);
  }

  drawHeader(surfaceId: number): void {
    const pane = this.panes.get(surfaceId);
    if (!pane) return;
    const surface = this.picture.surfaces.get(surfaceId);
    const status = this.picture.statuses.get(surfaceId);
    const title = pane.header.querySelector<HTMLElement>('.title')!;
    title.textContent = displayText(paneName(surface, surfaceId));
    // What the program in it declared, agent or not (REFERENCE.md §3.9).
    const declared = status ? headerStatus(status.declared) : null;
    const badge = pane.header.querySelector<HTMLElement>('.declared')!;
    badge.textContent = declared ?? '';
    badge.hidden = declared === null;
    const subagents = pane.header.querySelector<HTMLElement>('.subagents')!;
    subagents.textContent = (status && subagentsText(status)) ?? '';
    subagents.hidden = !subagents.textContent;
    // The supervisor's words, and the Queue button of a pane that has an agent.
    const supervision = supervisionElement(status);
    pane.header.querySelector('.supervision')?.replaceWith(supervision ?? el('span', 'supervision'));
    pane.header.querySelector<HTMLElement>('.queue-button')!.hidden = !status || status.tool === null;
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
    pane.element.classList.toggle('focused', this.picture.workspaces.find((w) => w.active)?.focus === surfaceId);
  }

  private paneView(surface: Surface): PaneView {
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
    launch.onclick = () => this.menu.open(surface.surface_id, header);
    const close = el('button', 'close-button', '×');
    close.title = 'Close this pane (Ctrl+Shift+W)';
    close.onclick = () => void this.actions.close({ pane: surface.surface_id });
    const queue = queueButton(() => this.actions.queue(surface.surface_id));
    header.append(title, declared, subagents, el('span', 'supervision'), resume, find, queue, turns, launch, split, close);
    const terminal = new PaneTerminal(this.api, surface.session, () => void this.actions.focus(surface.surface_id, false));
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
        void this.actions.close({ pane: surface.surface_id });
      }
    });
    const answers = new AnswerBox(this.api, this.inbox, 'pane-answers', (message) => this.actions.say(message));
    element.append(header, answers.element, terminal.element);
    element.onmousedown = () => void this.actions.focus(surface.surface_id, false);
    pane = { element, terminal, header, answers };
    this.panes.set(surface.surface_id, pane);
    return pane;
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
    await this.actions.focus(surfaceId);
  }
}
