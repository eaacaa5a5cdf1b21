import { encodeMouse, type MouseEvent } from '@paneflow/screen';
import type { FleetPane } from './fleet';
import type { Drawn } from './frame';
import type { PaneMirror } from './mirror';

const WHEEL_LINES = 3;

/** What a mouse event asks of the face. */
export type MouseAction =
  | { kind: 'type'; mirror: PaneMirror; bytes: string }
  | { kind: 'scroll'; mirror: PaneMirror; lines: number }
  | { kind: 'focus'; surfaceId: number }
  | { kind: 'workspace'; index: number }
  | { kind: 'agent'; surfaceId: number }
  | { kind: 'fleet'; pane: FleetPane };

/**
 * Where a mouse event lands in the frame last drawn. A program in the focused pane that asked for
 * the mouse gets it, in its own coordinates and encoding; otherwise the wheel scrolls a pane, a
 * press focuses one, and a press in the sidebar picks a workspace or an agent (of any machine).
 */
export function mouseAction(event: MouseEvent, drawn: Drawn, mirrors: ReadonlyMap<number, PaneMirror>, focused: number | null | undefined): MouseAction | null {
  const x = event.x - 1;
  const y = event.y - 1;
  const pane = drawn.layout?.panes.find((p) => inRect(p.box, x, y));
  if (pane) {
    const mirror = mirrors.get(pane.surfaceId);
    const inContent = inRect(pane.content, x, y);
    const bytes = mirror && inContent && mirror.scrolledBack === 0 ? encodeMouse(event, pane.content, mirror.modes) : null;
    if (mirror && bytes && pane.surfaceId === focused) return { kind: 'type', mirror, bytes };
    if (event.action === 'wheel' && mirror) return { kind: 'scroll', mirror, lines: event.button === 'wheel-up' ? WHEEL_LINES : -WHEEL_LINES };
    if (event.action === 'press' && pane.surfaceId !== focused) return { kind: 'focus', surfaceId: pane.surfaceId };
    return null;
  }
  if (event.action !== 'press') return null;
  const hit = drawn.hits.find((h) => inRect(h.rect, x, y));
  if (hit?.kind === 'workspace') return { kind: 'workspace', index: hit.index };
  if (hit?.kind === 'agent') return { kind: 'agent', surfaceId: hit.surfaceId };
  if (hit?.kind === 'fleet') return { kind: 'fleet', pane: hit.pane };
  return null;
}

const inRect = (rect: { x: number; y: number; width: number; height: number }, x: number, y: number) => x >= rect.x && x < rect.x + rect.width && y >= rect.y && y < rect.y + rect.height;
