// What a new pane can start: the menu under a pane's header offers a shell, or a runtime's
// launcher preset for this machine (its `[[suggested_presets]]`, started by serve from its own
// catalog), split beside the pane. Escape or a click elsewhere closes it.
import { platformOf, suggestedPresets, type Catalog, type Preset } from '@paneflow/procscan/match';
import { displayText } from '@paneflow/view';
import type { PaneflowApi } from '../api';
import { el } from './dom';

export class NewPaneMenu {
  private readonly presets: Preset[];

  constructor(
    private readonly api: PaneflowApi,
    catalog: Catalog,
    private readonly say: (message: string) => void,
  ) {
    this.presets = suggestedPresets(catalog, platformOf(navigator.platform));
  }

  /** Opens the menu under `header`, in place of one open anywhere. */
  open(surfaceId: number, header: HTMLElement): void {
    document.querySelector('.new-pane-menu')?.remove();
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
        if ('error' in outcome) this.say(`Not opened: ${outcome.error.message}`);
      };
      return item;
    };
    menu.append(entry('Shell', 'A shell in this pane’s directory', {}), ...this.presets.map((p) => entry(p.name ?? p.id, `${p.runtime.label}: ${p.command}`, { preset: p.id })));
    header.append(menu);
    document.addEventListener('mousedown', dismiss, true);
    document.addEventListener('keydown', dismiss, true);
    menu.querySelector<HTMLElement>('.launcher')?.focus();
  }
}
