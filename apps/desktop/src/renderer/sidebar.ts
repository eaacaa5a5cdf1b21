// The sidebar: the workspaces as tabs (a click selects one, × closes it with its panes), then the
// Agents section, a row per agent pane saying what its agent declared — a spinner on the page's
// one clock while it works, Need you with its message, Error, Done, why it is not running, or No
// status and whether its runtime can declare one — with the supervisor's words under it and a
// Queue button, then the digest of what happened while you were away. A row brings its pane forward.
import type { Catalog } from '@paneflow/procscan/match';
import { agentRows, BADGE_WORDS, displayText, endedNotice, STATIC_MARK, type PaneStatus, type Picture } from '@paneflow/view';
import type { PaneflowApi } from '../api';
import type { SpinnerClock } from './clock';
import type { CloseTarget } from './closing';
import { el } from './dom';
import { queueButton, supervisionElement } from './supervision';

/** What the sidebar's rows ask of the rest of the page. */
export interface SidebarActions {
  focus(surfaceId: number): Promise<void>;
  close(target: CloseTarget): Promise<void>;
  /** Opens the Queue box for an agent. */
  queue(surfaceId: number): void;
}

export class Sidebar {
  readonly element = el('aside', 'sidebar');
  private readonly tabs = el('nav', 'workspaces');
  private readonly agents = el('section', 'agents');

  constructor(
    private readonly api: PaneflowApi,
    private readonly picture: Picture,
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
          item.append(el('span', 'badge', BADGE_WORDS.need_you));
          if (row.message) item.append(el('div', 'message', row.message));
        } else if (row.mark === 'error') item.append(el('span', 'badge', BADGE_WORDS.error));
        else if (row.mark === 'done') item.append(el('span', 'badge', BADGE_WORDS.done));
        else if (row.mark === 'ended') item.append(el('span', 'badge', endedNotice(statuses.get(row.surface_id)!)!.badge));
        else if (row.mark === 'no_status') {
          const badge = el('span', 'badge dim', BADGE_WORDS.no_status);
          const status = statuses.get(row.surface_id);
          const runtime = status?.runtime_id ? this.catalog.bySlug.get(status.runtime_id) : undefined;
          const first = runtime?.status.first_version;
          badge.title = first ? `${runtime!.label} declares its status from version ${first} on` : `${runtime?.label ?? 'This agent'} does not declare its status`;
          item.append(badge);
        }
        const queue = queueButton(() => this.actions.queue(row.surface_id));
        // Beside the declared state, never in its place: what the supervisor saw or did.
        const supervision = supervisionElement(statuses.get(row.surface_id));
        item.append(queue, ...(supervision ? [supervision] : []));
        item.onclick = () => void this.actions.focus(row.surface_id);
        return item;
      }),
    );
    // On screen first: the clock drops spinners that are not.
    for (const spinner of spinners) this.clock.add(spinner);
  }
}
