import type { InstanceClient } from '@paneflow/client';
import type { Layout } from '@paneflow/screen';
import type { Picture } from '@paneflow/view';
import { PaneMirror } from './mirror';

const sizeKey = (size: { cols: number; rows: number }) => `${size.cols}x${size.rows}`;

/**
 * The mirrors of the workspace on screen, by pane, and who sets the panes' sizes: the face in use
 * (tmux's `window-size latest`), which is this one until a pane takes a size it did not ask for.
 */
export class Mirrors extends Map<number, PaneMirror> {
  /** This face sets the panes' sizes; false once another one did. */
  active = true;
  /** What this face last asked each pane's size to be. */
  private readonly claimed = new Map<number, string>();

  /** `changed(pane)`: a mirror's output changed; `changed()`: anything else about it. */
  constructor(
    private readonly client: InstanceClient,
    private readonly changed: (surfaceId?: number) => void,
  ) {
    super();
  }

  /** One mirror per pane of the workspace on screen (a lost one shows what its host last saved of it); the others are let go. */
  sync(picture: Picture): void {
    const wanted = new Set(picture.active?.surfaces ?? []);
    for (const [id, mirror] of this) {
      if (wanted.has(id) && picture.surfaces.get(id)?.session === mirror.session) continue;
      mirror.dispose();
      this.delete(id);
    }
    for (const id of wanted) {
      const surface = picture.surfaces.get(id);
      if (surface && !this.has(id)) {
        this.set(id, new PaneMirror(this.client, surface.session, { changed: () => this.changed(id), resized: (size) => this.resized(id, size), state: () => this.changed() }));
      }
    }
  }

  /** Lets a pane's mirror go: the next frame mirrors it again, from its checkpoint. */
  drop(surfaceId: number): void {
    this.get(surfaceId)?.dispose();
    this.delete(surfaceId);
    this.changed();
  }

  /** While this face is in use, each attached pane's PTY takes the size the pane has on screen. */
  claim(layout: Layout | null): void {
    if (!this.active) return;
    for (const pane of layout?.panes ?? []) {
      const mirror = this.get(pane.surfaceId);
      if (!mirror || mirror.state !== 'attached' || pane.content.width < 2 || pane.content.height < 1) continue;
      const want = { cols: pane.content.width, rows: pane.content.height };
      if (sizeKey(mirror.size) === sizeKey(want)) continue;
      this.claimed.set(pane.surfaceId, sizeKey(want));
      void this.client.resize(mirror.session, want.cols, want.rows).catch(() => undefined);
    }
  }

  dispose(): void {
    for (const mirror of this.values()) mirror.dispose();
    this.clear();
  }

  /** A pane's PTY took a size this face did not ask for: another face is the one in use now. */
  private resized(surfaceId: number, size: { cols: number; rows: number }): void {
    if (this.claimed.get(surfaceId) !== sizeKey(size)) this.active = false;
    this.changed();
  }
}
