import { asksToClose } from '@paneflow/protocol/errors';
import type { PublicMethods } from '@paneflow/protocol/public-protocol';
import type { MethodName, ParamsOf, ResultOf } from '@paneflow/protocol/schema';
import { neighbour, type KeyEvent } from '@paneflow/screen';
import { displayText, type EndedNotice, type PaneStatus, type Picture } from '@paneflow/view';
import type { FleetPane } from './fleet';
import type { Drawn, Mode } from './frame';
import type { PaneMirror } from './mirror';
import type { MouseAction } from './mouse';
import { queuedNote, queueKey } from './queue';
import { scrollKey, type ScrollStep } from './scroll';
import { TurnLedger } from './turns';

/** What the commands reach of the face they run in (`AttachClient`). */
export interface CommandFace {
  readonly picture: Picture;
  /** The frame last drawn: the layout the arrows move in. */
  readonly drawn: Drawn | null;
  /** What the keyboard is doing now. */
  readonly mode: Mode;
  /** The pane shown alone (prefix z), or null. */
  zoomed: number | null;
  readonly prefix: string;
  label(status: PaneStatus): string;
  request<M extends MethodName<PublicMethods>>(method: M, params: ParamsOf<PublicMethods, M>): Promise<ResultOf<PublicMethods, M>>;
  focusedMirror(): PaneMirror | undefined;
  /** Types into a pane as the user. */
  type(mirror: PaneMirror, bytes: string): void;
  setMode(mode: Mode): void;
  invalidate(): void;
  say(note: string | null): void;
  /** Ends `attach`, leaving every session running (prefix d). */
  detach(): void;
  /** Goes to the next agent waiting for you, on any machine (prefix a). */
  nextWaiting(): Promise<void>;
  /** Goes to a pane of any machine (another's: the session goes on in that machine's instance). */
  goTo(pane: FleetPane): Promise<void>;
}

/** A pane, or a workspace, by id: the same one however others come and go while the user answers. */
type Closing = { pane: number } | { workspace: string };

/**
 * What the keys after the prefix do (tmux's, apps/cli/README.md *paneflow attach*), and the pane
 * actions they share with plain keys and the mouse: focus, close (asking first when serve says
 * it needs a yes), restart an ended agent.
 */
export class Commands {
  /** Panes whose restart this face asked for and serve has not answered yet. */
  private readonly restarting = new Set<number>();
  /** What the question on screen would close. */
  private closing: Closing | null = null;

  constructor(private readonly face: CommandFace) {}

  async run(event: KeyEvent): Promise<void> {
    const { face } = this;
    const workspace = face.picture.active;
    const focused = workspace?.focus ?? null;
    try {
      switch (event.name) {
        case face.prefix: {
          const mirror = face.focusedMirror();
          if (mirror) face.type(mirror, event.sequence);
          return;
        }
        case '%':
        case '|':
        case '"':
        case '-':
          if (focused === null) return;
          await face.request('surface.split', { direction: event.name === '%' || event.name === '|' ? 'h' : 'v', surface_id: focused });
          return;
        case 'up':
        case 'down':
        case 'left':
        case 'right': {
          const layout = face.drawn?.layout;
          const next = layout && focused !== null ? neighbour(layout, focused, event.name, face.drawn?.cursor) : null;
          if (next !== null) await this.focus(next);
          return;
        }
        case 'n':
        case 'p': {
          const count = face.picture.workspaces.length;
          if (count < 2 || !workspace) return;
          await face.request('workspace.select', { index: (workspace.index + (event.name === 'n' ? 1 : count - 1)) % count });
          return;
        }
        case 'a':
          return void (await face.nextWaiting());
        case 'z':
          face.zoomed = face.zoomed === null ? focused : null;
          return face.invalidate();
        case '[': {
          const mirror = face.focusedMirror();
          if (mirror) face.setMode({ kind: 'scroll', search: null, typing: false, match: null });
          return;
        }
        case 'x': {
          if (!focused) return;
          return this.askToClose({ pane: focused }, face.picture.surfaces.get(focused)?.name ?? `pane ${focused}`);
        }
        case '&':
          if (!workspace) return;
          return this.askToClose({ workspace: workspace.id }, `workspace ${workspace.name}`);
        case 'c': {
          const cwd = focused !== null ? face.picture.surfaces.get(focused)?.cwd : undefined;
          await face.request('workspace.create', cwd ? { cwd } : {});
          return;
        }
        case 't':
          if (focused !== null) face.setMode({ kind: 'turns', overlay: new TurnLedger(face, focused, face.picture.surfaces.get(focused)?.name ?? `pane ${focused}`) });
          return;
        case 'q': {
          // A prompt for the focused pane's agent, sent when its turn ends (`queue.add`).
          if (focused === null) return face.say('no pane to queue for');
          const status = face.picture.statuses.get(focused);
          const label = status ? face.label(status) : (face.picture.surfaces.get(focused)?.name ?? `pane ${focused}`);
          return face.setMode({ kind: 'queue', surfaceId: focused, label, text: '' });
        }
        case 'd':
          return face.detach();
        case '?':
          return face.setMode({ kind: 'help' });
        default:
          if (event.name && /^[0-9]$/.test(event.name)) {
            const index = Number(event.name);
            if (index < face.picture.workspaces.length) await face.request('workspace.select', { index });
          }
      }
    } catch (error) {
      face.say((error as Error).message);
    }
  }

  /** What a click or the wheel asks (`mouseAction`). */
  clicked(action: MouseAction): void {
    const { face } = this;
    switch (action.kind) {
      case 'type':
        return face.type(action.mirror, action.bytes);
      case 'scroll':
        action.mirror.scroll(action.lines);
        return face.invalidate();
      case 'focus':
        return void this.focus(action.surfaceId).catch(() => undefined);
      case 'workspace':
        return void face.request('workspace.select', { index: action.index }).catch(() => undefined);
      case 'agent':
        // Focusing a pane brings its workspace to the front.
        return void face.request('surface.focus', { surface_id: action.surfaceId }).catch((error: Error) => face.say(error.message));
      case 'fleet':
        return void face.goTo(action.pane).catch((error: Error) => face.say(error.message));
    }
  }

  /** A key at the queue prompt (prefix q); Enter queues the line for its pane (`queue.add`) and says what serve answered. */
  queueTyped(mode: Extract<Mode, { kind: 'queue' }>, event: KeyEvent): void {
    const { face } = this;
    const step = queueKey(mode, event);
    if (!step) return;
    if ('mode' in step) return face.setMode(step.mode);
    face.setMode({ kind: 'normal' });
    face.request('queue.add', { surface_id: mode.surfaceId, text: step.queue }).then(
      (result) => face.say(queuedNote(mode.label, result)),
      (error: Error) => face.say(displayText(`${mode.label}: not queued: ${error.message}`)),
    );
  }

  /** A key in scrollback mode (prefix [). */
  scrollTyped(event: KeyEvent): void {
    const mirror = this.face.focusedMirror();
    const mode = this.face.mode;
    if (!mirror || mode.kind !== 'scroll') return this.face.setMode({ kind: 'normal' });
    const step = scrollKey(mirror, mode, event);
    if (step) this.applyScrollStep(step);
  }

  private applyScrollStep(step: ScrollStep): void {
    const { face } = this;
    if (step.mode) face.setMode(step.mode);
    else face.invalidate();
    if (step.note) face.say(step.note);
    const shown = face.mode;
    // Applied only while the user is still where the step started (not out of scroll mode, no other key).
    void step.later?.then((next) => {
      if (face.mode !== shown) return;
      face.say(null);
      this.applyScrollStep(next);
    });
  }

  /** The workspace `attach` names (by name or index) in front. */
  async selectWorkspace(name: string): Promise<void> {
    const { picture } = this.face;
    const workspace = /^\d+$/.test(name) ? picture.workspaces[Number(name)] : picture.workspaces.find((w) => w.name === name);
    if (!workspace) throw new Error(`no workspace '${name}'`);
    await this.face.request('workspace.select', { index: workspace.index });
  }

  async focus(surfaceId: number): Promise<void> {
    if (this.face.zoomed !== null) this.face.zoomed = surfaceId;
    await this.face.request('surface.focus', { surface_id: surfaceId });
  }

  /**
   * REFERENCE.md §1.4, decided by serve like the desktop and `paneflow close`: a pane (or each pane
   * of a workspace) closes at once unless serve refuses (`unless_busy`: an agent in its turn, a
   * shell running a program), and then only after a yes.
   */
  private async askToClose(target: Closing, label: string): Promise<void> {
    const { face } = this;
    try {
      await this.close(target, true);
    } catch (error) {
      const { reason, message } = error as { reason?: string; message: string };
      if (!asksToClose(reason)) return face.say(message);
      this.closing = target;
      face.setMode({ kind: 'confirm', question: displayText(`Close ${label}? ${message.replace(/^close needs confirmation: /, '')}.`) });
    }
  }

  /** The answer to the question `askToClose` asked. */
  confirmed(yes: boolean): void {
    this.face.setMode({ kind: 'normal' });
    const target = this.closing;
    this.closing = null;
    if (yes && target !== null) void this.close(target, false).catch((error: Error) => this.face.say(error.message));
  }

  private async close(target: Closing, unlessBusy: boolean): Promise<void> {
    const { face } = this;
    const options = unlessBusy ? { unless_busy: true } : {};
    const { worktrees } = 'pane' in target ? await face.request('surface.close', { surface_id: target.pane, ...options }) : await face.request('workspace.close', { workspace_id: target.workspace, ...options });
    if ('workspace' in target || face.zoomed === target.pane) face.zoomed = null;
    const kept = worktrees.filter((w) => !w.removed);
    if (kept.length > 0) face.say(displayText(kept.map((w) => `worktree kept: ${w.path}${w.reason ? ` (${w.reason})` : ''}`).join('; ')));
  }

  /** Starts an ended agent pane again: its conversation resumed, or (after a failed resume) its launch anew. */
  async restart(surfaceId: number, notice: EndedNotice): Promise<void> {
    const { face } = this;
    if (this.restarting.has(surfaceId)) return;
    this.restarting.add(surfaceId);
    const name = face.picture.surfaces.get(surfaceId)?.name ?? `pane ${surfaceId}`;
    face.say(`${name}: ${notice.action === 'fresh' ? 'starting anew' : 'resuming'}…`);
    try {
      const result = await face.request('surface.restart', { surface_id: surfaceId, ...(notice.action === 'fresh' ? { fresh: true } : {}) });
      face.say(`${name}: ${restartNote(result.restart)}`);
    } catch (error) {
      face.say(`${name}: ${(error as Error).message}`);
    } finally {
      this.restarting.delete(surfaceId);
    }
  }
}

/** What a restart did, in a few words for the status line. */
function restartNote(restart: ResultOf<PublicMethods, 'surface.restart'>['restart']): string {
  if (restart.outcome === 'failed') return `resume failed: ${restart.reason ?? 'unknown'}`;
  if (restart.mode === 'launch') return 'started again from its launch command';
  const what = restart.mode === 'session' ? `conversation ${restart.provider_session_id}` : 'its latest conversation';
  return restart.outcome === 'resumed' ? `resumed ${what}` : `resuming ${what}, not confirmed yet`;
}
