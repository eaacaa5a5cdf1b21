// "While you were away": per agent, what its turns did since the person last looked (serve's
// `fleet.digest`), read when the page opens and each time it comes back into view, after which
// the page tells serve the person is looking (`fleet.looked`), so the next digest starts here.
// Drawn in the sidebar and first on the phone's home; a row opens that agent's turns, on whichever machine.
import type { DigestAgent } from '@paneflow/protocol/turns';
import { digestLine, displayText, promptLine } from '@paneflow/view';
import type { PaneflowApi } from '../api';
import { el } from './dom';

interface DigestResult {
  since_ms: number;
  looked_at_ms: number | null;
  agents: DigestAgent[];
}

const since = (ms: number) => new Date(ms).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' });

export class Digest {
  readonly sidebar = el('section', 'digest');
  readonly phone = el('section', 'phone-digest');
  private reading: Promise<void> | null = null;

  constructor(
    private readonly api: PaneflowApi,
    private readonly label: (surfaceId: number, machine: string | null) => string,
    private readonly open: (surfaceId: number, machine: string | null) => void,
  ) {
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'visible') void this.read();
    });
  }

  /** Reads the digest since the person last looked, draws it, and marks that they look now. */
  read(): Promise<void> {
    this.reading ??= (async () => {
      const outcome = await this.api.settle('fleet.digest', {});
      // An older serve has no ledger: no digest to show.
      if ('error' in outcome) return;
      this.draw(outcome.result as DigestResult);
      await this.api.settle('fleet.looked', {});
    })().finally(() => (this.reading = null));
    return this.reading;
  }

  private draw(digest: DigestResult): void {
    const when = digest.looked_at_ms === null ? 'in the last day' : `since ${since(digest.since_ms)}`;
    for (const [section, className] of [
      [this.sidebar, 'digest-row'],
      [this.phone, 'phone-row digest-row'],
    ] as const) {
      section.replaceChildren(el('h2', undefined, 'While you were away'));
      if (digest.agents.length === 0) section.append(el('div', 'empty', `Nothing happened ${when}.`));
      else section.append(el('div', 'digest-since', when));
      for (const agent of digest.agents) {
        const row = el('button', className);
        const machine = agent.machine ?? null;
        row.dataset.surface = String(agent.surface_id);
        const name = el('div', 'name', displayText(agent.pane_name ?? this.label(agent.surface_id, machine)));
        // Another machine's agent (issue 32) names its machine; its turns are asked of that machine.
        if (machine) {
          row.dataset.machine = machine;
          name.append(el('span', 'machine', displayText(` on ${machine}`)));
        }
        row.append(name, el('div', 'what', digestLine(agent)));
        const prompt = promptLine(agent.last_prompt, 80);
        if (prompt) row.append(el('div', 'prompt', prompt));
        row.onclick = () => this.open(agent.surface_id, machine);
        section.append(row);
      }
    }
  }
}
