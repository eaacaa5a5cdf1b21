// The narrow-screen layout (a phone, through `paneflow web`): first what happened while you were
// away (the digest), then the agents that wait for you (serve's `fleet.inbox`, oldest wait
// first), then every agent, then the other panes. One tap
// opens a pane's terminal full-screen, with a row of the keys a phone's keyboard lacks and, while
// its agent waits, a button for each answer its runtime's `[answers]` know (`surface.answer`,
// which serve refuses when the agent has moved on). The supervisor's words are under each agent,
// what answer rules answered follows the inbox, and a Queue button beside each agent (and on its
// full-screen bar) opens the page's Queue box. It draws from the App's picture. Other machines'
// agents (issue 32) are in the inbox and the agents with their machine's name, and its link's state
// when it is not connected; a tap on one opens its bar and answers, but no terminal (a far
// machine's bytes are not carried): a line says where it is and how to reach it.
import { agentRows, BADGE_WORDS, displayText, farTerminalText, machineLinkText, paneKey, rowMark, type PaneStatus, type RowMark } from '@paneflow/view';
import type { InboxItem } from '@paneflow/protocol/status';
import type { PaneflowApi } from '../api';
import { AnswerBox } from './answers';
import { el } from './dom';
import { paneName } from './panes';
import type { App } from './app';
import { answeredElement, queueButton, supervisionElement } from './supervision';

/** Below this width the phone layout replaces the sidebar and the split tree. */
export const NARROW = '(max-width: 700px)';
const KEYS = [
  ['Esc', 'escape'],
  ['Tab', 'tab'],
  ['←', 'left'],
  ['↑', 'up'],
  ['↓', 'down'],
  ['→', 'right'],
  ['Ctrl-C', 'ctrl-c'],
] as const;

const time = (ms: number) => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });

export class PhoneLayout {
  private readonly home = el('div', 'phone-home');
  private readonly inboxList = el('section', 'phone-inbox');
  private readonly answeredList = el('section', 'phone-answered');
  private readonly agentList = el('section', 'phone-agents');
  private readonly paneList = el('section', 'phone-panes');
  private readonly bar = el('header', 'phone-bar');
  private readonly answers: AnswerBox;
  private readonly said = el('div', 'phone-said');
  /** Where a far agent is, in place of its terminal. */
  private readonly farHint = el('div', 'phone-far');
  private readonly keys = el('div', 'phone-keys');
  private readonly media = matchMedia(NARROW);
  /** The pane open full-screen, or null for the lists. */
  private solo: number | null = null;
  /** Another machine's agent open full-screen (its bar and answers), or null. */
  private farSolo: { machine: string; surfaceId: number } | null = null;
  private drawPending = false;

  constructor(
    private readonly app: App,
    api: PaneflowApi,
    root: HTMLElement,
  ) {
    // What happened while you were away comes first, then who waits for you now.
    this.home.append(app.digest.phone, el('h2', undefined, 'Waiting for you'), this.inboxList, this.answeredList, el('h2', undefined, 'Agents'), this.agentList, el('h2', undefined, 'Panes'), this.paneList);
    for (const [label, key] of KEYS) {
      const button = el('button', 'key', label);
      button.dataset.key = key;
      // The terminal keeps the keyboard (and the phone its on-screen keyboard) across a tap.
      button.onpointerdown = (event) => event.preventDefault();
      button.onclick = () => (this.solo === null ? undefined : this.app.terminal(this.solo)?.key(key));
      this.keys.append(button);
    }
    this.answers = new AnswerBox(api, app.inbox, 'phone-answers', (message) => this.say(message));
    root.append(this.home, this.bar, this.farHint, this.said, this.answers.element, this.keys);
    this.media.addEventListener('change', () => this.layout());
    app.drawn.push(() => this.schedule());
    // A notification clicked: its pane full-screen (the App brings it forward in the tree).
    api.onFocusSurface((id, machine) => {
      if (this.phone) void (machine === null ? this.open(id) : this.openFar(machine, id));
    });
    this.layout();
  }

  private get phone(): boolean {
    return this.media.matches;
  }

  private layout(): void {
    document.body.classList.toggle('phone', this.phone);
    if (!this.phone) {
      this.solo = null;
      this.farSolo = null;
    }
    this.draw();
  }

  /** Opens a pane full-screen (it becomes the focused pane, as a click does on the desktop), or back to the lists. */
  async open(surfaceId: number | null): Promise<void> {
    this.solo = surfaceId;
    this.farSolo = null;
    this.draw();
    if (surfaceId !== null) await this.app.focusSurface(surfaceId);
  }

  /** Opens another machine's agent: its bar, its answers while it waits, and where its terminal is. */
  openFar(machine: string, surfaceId: number): void {
    this.solo = null;
    this.farSolo = { machine, surfaceId };
    this.draw();
  }

  /** Drawn once for a burst of changes (the App draws agents and panes one after the other). */
  private schedule(): void {
    if (this.drawPending) return;
    this.drawPending = true;
    queueMicrotask(() => {
      this.drawPending = false;
      this.draw();
    });
  }

  private draw(): void {
    const { picture, far } = this.app;
    if (this.solo !== null && !picture.surfaces.has(this.solo)) this.solo = null;
    if (this.farSolo && !far.get(this.farSolo.machine, this.farSolo.surfaceId)) this.farSolo = null;
    document.body.dataset.phoneView = this.solo !== null ? 'terminal' : this.farSolo ? 'far' : 'home';
    if (!this.phone) return;
    const { inbox } = this.app;
    inbox.refresh();
    const waiting = new Map(inbox.items.map((item) => [paneKey(item.machine, item.surface_id), item]));
    const statuses = [...picture.statuses.values()].sort((a, b) => a.surface_id - b.surface_id);
    const workspaceName = (surfaceId: number) => {
      const surface = picture.surfaces.get(surfaceId);
      return displayText(picture.workspaces.find((w) => w.id === surface?.workspace_id)?.name ?? '');
    };

    this.inboxList.replaceChildren(
      ...inbox.items.map((item) => {
        const machine = item.machine ?? null;
        const label = displayText(item.surface_name ?? this.app.labelOf(item.surface_id, machine));
        // Another machine's wait names its machine where this one's names its workspace.
        const row = this.row(item.surface_id, machine, 'need_you', label, machine === null ? workspaceName(item.surface_id) : displayText(machine));
        row.classList.add('inbox-item');
        const what = [item.kind, item.message].filter((part) => part).join(' · ');
        row.append(el('div', 'message', displayText(what || 'waiting for input')), el('div', 'since', `since ${time(item.since_ms)}${item.tool ? ` · ${displayText(item.tool)}` : ''}`));
        return this.withQueue(row, item.surface_id, machine);
      }),
    );
    if (inbox.items.length === 0) this.inboxList.append(el('div', 'empty', 'Nobody is waiting.'));
    // What rules answered in your place: each automatic answer is shown.
    this.answeredList.replaceChildren(...(inbox.answered.length ? [el('h3', undefined, 'Answered by rules'), ...inbox.answered.map((a) => answeredElement(a, this.app.labelOf(a.surface_id)))] : []));
    const rows = agentRows(statuses, (s) => this.app.label(s)).filter((r) => !waiting.has(paneKey(null, r.surface_id)));
    this.agentList.replaceChildren(
      ...rows.map((r) => {
        const row = this.row(r.surface_id, null, r.mark, r.label, workspaceName(r.surface_id));
        if (r.subagents) row.append(el('div', 'subagents', r.subagents));
        return this.withQueue(row, r.surface_id, null);
      }),
      ...far.grouped().flatMap(({ link, agents }) => {
        const state = machineLinkText(link, Date.now());
        const head = el('div', 'machine-link', state ?? displayText(link.name));
        head.dataset.machine = link.name;
        head.dataset.state = link.state;
        const farRows = agentRows(agents, (s) => this.app.label(s))
          .filter((r) => !waiting.has(paneKey(link.name, r.surface_id)))
          .map((r) => {
            const row = this.row(r.surface_id, link.name, r.mark, r.label, displayText(link.name));
            if (r.subagents) row.append(el('div', 'subagents', r.subagents));
            return this.withQueue(row, r.surface_id, link.name);
          });
        // A connected machine is named on its rows; one that is not says so above them.
        return state ? [head, ...farRows] : farRows;
      }),
    );
    const others = [...picture.surfaces.values()].filter((s) => (picture.statuses.get(s.surface_id)?.tool ?? null) === null);
    this.paneList.replaceChildren(...others.map((s) => this.row(s.surface_id, null, 'none', displayText(paneName(s, s.surface_id)), workspaceName(s.surface_id))));

    // Full-screen: the pane itself (the App's, in the split tree) and nothing else of the tree.
    for (const pane of document.querySelectorAll<HTMLElement>('.panes .pane')) pane.classList.toggle('solo', Number(pane.dataset.surface) === this.solo);
    this.bar.replaceChildren();
    this.farHint.textContent = '';
    if (this.farSolo) return this.drawFar(this.farSolo.machine, this.farSolo.surfaceId, waiting.get(paneKey(this.farSolo.machine, this.farSolo.surfaceId)));
    const item = this.solo === null ? undefined : waiting.get(paneKey(null, this.solo));
    this.answers.draw(item);
    if (this.solo === null) return;
    const solo = this.solo;
    const status = picture.statuses.get(solo);
    this.drawBar(this.app.labelOf(solo), status, null, () => this.app.queue.open(solo, this.app.labelOf(solo)));
    const turns = el('button', 'turns-button', 'Turns');
    turns.onclick = () => void this.app.turns.show(solo, null);
    this.bar.append(turns);
    this.bar.dataset.surface = String(solo);
    delete this.bar.dataset.machine;
  }

  /** Another machine's agent full-screen: its bar, its answers while it waits, and where its terminal is. */
  private drawFar(machine: string, surfaceId: number, item: InboxItem | undefined): void {
    const status = this.app.far.get(machine, surfaceId);
    this.drawBar(this.app.labelOf(surfaceId, machine), status, machine, () => this.app.queue.open(surfaceId, this.app.labelOf(surfaceId, machine), machine));
    const turns = el('button', 'turns-button', 'Turns');
    turns.onclick = () => void this.app.turns.show(surfaceId, null, machine);
    this.bar.append(turns);
    this.bar.dataset.surface = String(surfaceId);
    this.bar.dataset.machine = machine;
    this.answers.draw(item);
    this.farHint.textContent = farTerminalText(machine);
  }

  /** The full-screen bar: back, the label (and another machine's name), the badge, the supervisor's words, Queue. */
  private drawBar(label: string, status: PaneStatus | undefined, machine: string | null, queue: () => void): void {
    const back = el('button', 'back', '‹');
    back.title = 'Back to the list';
    back.onclick = () => void this.open(null);
    const mark = status ? rowMark(status) : 'none';
    this.bar.append(back, el('span', 'title', displayText(label)));
    if (machine !== null) this.bar.append(el('span', 'machine', displayText(machine)));
    if (mark !== 'none') this.bar.append(el('span', `badge ${mark}`, BADGE_WORDS[mark]));
    const supervision = supervisionElement(status);
    if (supervision) this.bar.append(supervision);
    if (status && status.tool !== null) this.bar.append(queueButton(queue));
  }

  private row(surfaceId: number, machine: string | null, mark: RowMark, label: string, where: string): HTMLElement {
    const row = el('button', `phone-row ${mark}`);
    row.dataset.surface = String(surfaceId);
    if (machine !== null) row.dataset.machine = machine;
    row.dataset.mark = mark;
    const head = el('div', 'head');
    head.append(el('span', 'name', label), el('span', machine === null ? 'workspace' : 'workspace machine', where));
    if (mark !== 'none') head.append(el('span', 'badge', BADGE_WORDS[mark]));
    row.append(head);
    // Beside the declared state, never in its place: what the supervisor saw or did.
    const supervision = supervisionElement(machine === null ? this.app.picture.statuses.get(surfaceId) : this.app.far.get(machine, surfaceId));
    if (supervision) row.append(supervision);
    row.onclick = () => void (machine === null ? this.open(surfaceId) : this.openFar(machine, surfaceId));
    return row;
  }

  /** An agent's row with its Queue button after it (a button cannot hold another). */
  private withQueue(row: HTMLElement, surfaceId: number, machine: string | null): HTMLElement {
    const line = el('div', 'phone-line');
    line.append(row, queueButton(() => this.app.queue.open(surfaceId, this.app.labelOf(surfaceId, machine), machine), 'queue-button phone-queue'));
    return line;
  }

  private say(message: string): void {
    const line = el('div', undefined, displayText(message));
    this.said.append(line);
    setTimeout(() => line.remove(), 8000);
  }
}
