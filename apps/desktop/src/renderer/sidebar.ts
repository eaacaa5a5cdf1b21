// The sidebar: the workspaces as tabs (a click selects one, × closes it with its panes), then the
// Agents section, a row per agent pane saying what its agent declared — a spinner on the page's
// one clock while it works, Need you with its message, Error, Done, why it is not running, or No
// status and whether its runtime can declare one — with the supervisor's words under it and a
// Queue button — this machine's, then each other machine's under its name (issue 32) — then the
// digest of what happened while you were away. A row of this machine brings its pane forward.
import type { MachineRow } from '@paneflow/protocol/machines';
import type { Catalog } from '@paneflow/procscan/match';
import {
  agentRows,
  BADGE_WORDS,
  displayText,
  endedNotice,
  farTerminalText,
  machineLinkText,
  paneKey,
  STATIC_MARK,
  type AgentRow,
  type FarMachines,
  type FarStatus,
  type PaneStatus,
  type Picture,
} from '@paneflow/view';
import type { PaneflowApi } from '../api';
import { AnswerBox, type InboxReader } from './answers';
import type { SpinnerClock } from './clock';
import type { CloseTarget } from './closing';
import { el } from './dom';
import { queueButton, supervisionElement } from './supervision';

/** What the sidebar's rows ask of the rest of the page. */
export interface SidebarActions {
  focus(surfaceId: number): Promise<void>;
  close(target: CloseTarget): Promise<void>;
  /** Opens the Queue box for an agent (of `machine`, null for this one). */
  queue(surfaceId: number, machine: string | null): void;
  /** Says something in passing (a notice). */
  say(message: string): void;
}

export class Sidebar {
  readonly element = el('aside', 'sidebar');
  private readonly tabs = el('nav', 'workspaces');
  private readonly agents = el('section', 'agents');
  /** Far agents' answer boxes by `paneKey`. */
  private readonly answerBoxes = new Map<string, AnswerBox>();

  constructor(
    private readonly api: PaneflowApi,
    private readonly picture: Picture,
    private readonly far: FarMachines,
    private readonly inbox: InboxReader,
    private readonly catalog: Catalog,
    private readonly clock: SpinnerClock,
    private readonly label: (status: PaneStatus) => string,
    private readonly actions: SidebarActions,
    digest: HTMLElement,
  ) {
    this.element.append(el('h2', undefined, 'Workspaces'), this.tabs, el('h2', undefined, 'Agents'), this.agents, digest);
  }

  drawTabs(): void {
    this.tabs.replaceChildren(
      ...this.picture.workspaces.map((w) => {
        const row = el('div', 'tab-row');
        const tab = el('button', `tab${w.active ? ' active' : ''}`, displayText(w.name));
        tab.dataset.workspace = String(w.index);
        tab.onclick = () => void this.api.request('workspace.select', { index: w.index });
        const close = el('button', 'tab-close', '×');
        close.title = 'Close this workspace and every pane in it';
        close.onclick = () => void this.actions.close({ workspace: w.id });
        row.append(tab, close);
        return row;
      }),
    );
  }

  drawAgents(): void {
    const { statuses } = this.picture;
    const rows = agentRows([...statuses.values()].sort((a, b) => a.surface_id - b.surface_id), this.label);
    for (const spinner of this.agents.querySelectorAll<HTMLElement>('.spinner')) this.clock.remove(spinner);
    const spinners: HTMLElement[] = [];
    const local = rows.map((row) => {
      const status = statuses.get(row.surface_id)!;
      const item = this.agentRow(row, status, spinners, () => this.actions.queue(row.surface_id, null));
      item.onclick = () => void this.actions.focus(row.surface_id);
      return item;
    });
    this.agents.replaceChildren(...local, ...this.far.grouped().map((group) => this.machineGroup(group, spinners)));
    // On screen first: the clock drops spinners that are not.
    for (const spinner of spinners) this.clock.add(spinner);
  }

  /**
   * Another machine's agents under its name, and its link's state when it is not connected. A
   * row cannot open its terminal here (a far machine's bytes are not carried): a click says
   * where it is and how to reach it; a waiting agent's answers are in its row.
   */
  private machineGroup({ link, agents }: { link: MachineRow; agents: FarStatus[] }, spinners: HTMLElement[]): HTMLElement {
    const group = el('div', 'machine');
    group.dataset.machine = link.name;
    group.dataset.state = link.state;
    const head = el('div', 'machine-head');
    head.append(el('span', 'machine-name', displayText(link.name)));
    const state = machineLinkText(link, Date.now());
    if (state) head.append(el('div', 'machine-link', state));
    group.append(head);
    const byId = new Map(agents.map((agent) => [agent.surface_id, agent]));
    for (const row of agentRows(agents, this.label)) {
      const status = byId.get(row.surface_id)!;
      const answers = this.answersFor(link.name, row.surface_id);
      answers.draw(row.mark === 'need_you' ? this.inbox.waiting(row.surface_id, link.name) : undefined);
      // Answering in the row is not a click on the row.
      answers.element.onclick = (event) => event.stopPropagation();
      const item = this.agentRow(row, status, spinners, () => this.actions.queue(row.surface_id, link.name), answers.element);
      item.classList.add('far');
      item.dataset.machine = link.name;
      item.title = farTerminalText(link.name);
      item.onclick = () => this.actions.say(`${row.label} is ${farTerminalText(link.name)}`);
      group.append(item);
    }
    return group;
  }

  /** A far agent's answers, kept across redraws so a half-typed answer stays. */
  private answersFor(machine: string, surfaceId: number): AnswerBox {
    const key = paneKey(machine, surfaceId);
    const box = this.answerBoxes.get(key) ?? new AnswerBox(this.api, this.inbox, 'far-answers', (message) => this.actions.say(message));
    this.answerBoxes.set(key, box);
    for (const held of this.answerBoxes.keys()) if (!this.far.agents.has(held)) this.answerBoxes.delete(held);
    return box;
  }

  /** One agent's row: its mark, label, badge and message, `answers` if given, the Queue button and the supervisor's words. */
  private agentRow(row: AgentRow, status: PaneStatus, spinners: HTMLElement[], queue: () => void, answers?: HTMLElement): HTMLElement {
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
      item.append(el('span', 'badge', BADGE_WORDS.need_you));
      if (row.message) item.append(el('div', 'message', row.message));
    } else if (row.mark === 'error') item.append(el('span', 'badge', BADGE_WORDS.error));
    else if (row.mark === 'done') item.append(el('span', 'badge', BADGE_WORDS.done));
    else if (row.mark === 'ended') item.append(el('span', 'badge', endedNotice(status)!.badge));
    else if (row.mark === 'no_status') {
      const badge = el('span', 'badge dim', BADGE_WORDS.no_status);
      const runtime = status.runtime_id ? this.catalog.bySlug.get(status.runtime_id) : undefined;
      const first = runtime?.status.first_version;
      badge.title = first ? `${runtime!.label} declares its status from version ${first} on` : `${runtime?.label ?? 'This agent'} does not declare its status`;
      item.append(badge);
    }
    // Beside the declared state, never in its place: what the supervisor saw or did.
    const supervision = supervisionElement(status);
    item.append(...(answers ? [answers] : []), queueButton(queue), ...(supervision ? [supervision] : []));
    return item;
  }
}
