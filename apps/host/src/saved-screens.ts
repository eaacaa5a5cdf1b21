import type { Manifest } from '@paneflow/protocol';
import { randomBytes } from 'node:crypto';
import { readRegularFileSync, RefusedFileError } from '@paneflow/proc';
import { readdirSync, rmSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Session } from './session';

// Each session's screen on disk, so that a host that dies (kill -9, a crash, the machine) loses no
// screen: the session's checkpoint — screen, the newest scrollback, modes — saved beside its
// manifest as `<session>.screen` once its output settles, and shown above the next process when
// the lost session is restarted. VS Code's pty host revives its terminals the same way.

/** Output quiet this long, the screen is saved. */
const SCREEN_SAVE_SETTLE_MS = 300;
/** While output never settles, the screen is saved at least this often. */
const SCREEN_SAVE_MAX_DELAY_MS = 3000;
/** Rows of scrollback a saved screen keeps, the newest, and the most bytes of them from the deep store. */
const SCREEN_SAVE_SCROLLBACK_ROWS = 1000;
const SCREEN_SAVE_DEEP_BYTES = 512 * 1024;
/** A saved screen file larger than this is not one the host wrote: it is not read. */
const SCREEN_FILE_MAX_BYTES = 8 * 1024 * 1024;
const SCREEN_SUFFIX = '.screen';
const TEMP_SUFFIX = '.screen-tmp';

/** What `<session>.screen` holds. */
export interface SavedScreen {
  session: string;
  generation: number;
  saved_at_ms: number;
  cols: number;
  rows: number;
  scrollback_rows: number;
  /** Rows of the screen, from the top, that hold something: history ends below them. */
  content_rows: number;
  /** The escape sequences that redraw it (the host's checkpoint). */
  checkpoint: string;
}

interface Pending {
  timer: NodeJS.Timeout | null;
  /** When output first changed the screen since it was last saved. */
  dirtySince: number | null;
  /** When output last changed it: the timer, once it fires, waits on from there. */
  changedAt: number;
  writing: Promise<void> | null;
}

/**
 * Saves each session's screen in the background as its output settles: 300 ms after the last
 * output, and at least every 3 s while it never stops. One write at a time per session, written
 * to a temp file and renamed (no fsync: a crash of the host, not of the machine, keeps what the
 * kernel was given; after a power loss the screen is the one before, or none). Idle sessions
 * cost nothing: no timer runs without new output.
 */
export class SavedScreens {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly dir: string,
    private readonly isCurrent: (session: Session) => boolean,
    private readonly log: (message: string) => void,
  ) {}

  private pathOf(id: string): string {
    return join(this.dir, `${id}${SCREEN_SUFFIX}`);
  }

  /** At start: temp files of an interrupted save go, and screens whose session has no manifest. */
  adopt(sessions: ReadonlySet<string>): void {
    for (const name of readdirSync(this.dir)) {
      const orphan = name.endsWith(SCREEN_SUFFIX) && !sessions.has(name.slice(0, -SCREEN_SUFFIX.length));
      if (orphan || name.endsWith(TEMP_SUFFIX)) rmSync(join(this.dir, name), { force: true });
    }
  }

  /**
   * The session's screen changed (output parsed, a resize): saved once it settles. Called for every
   * parsed read of a flood, so it only notes the time; one timer per session, armed when none is,
   * waits on when output came meanwhile.
   */
  changed(session: Session): void {
    const pending = this.entry(session.id);
    pending.changedAt = Date.now();
    pending.dirtySince ??= pending.changedAt;
    // A write in flight is followed by another once it ends.
    if (!pending.timer && !pending.writing) this.arm(session, pending);
  }

  private arm(session: Session, pending: Pending): void {
    const now = Date.now();
    const settled = pending.changedAt + SCREEN_SAVE_SETTLE_MS - now;
    const overdue = pending.dirtySince! + SCREEN_SAVE_MAX_DELAY_MS - now;
    const delay = Math.min(settled, overdue);
    if (delay <= 0) {
      void this.save(session);
      return;
    }
    pending.timer = setTimeout(() => {
      pending.timer = null;
      this.arm(session, pending);
    }, delay);
  }

  /** Saves at once what is not saved yet (the program exited: its last screen). */
  saveNow(session: Session): Promise<void> {
    const pending = this.entry(session.id);
    if (pending.dirtySince === null) return pending.writing ?? Promise.resolve();
    clearTimeout(pending.timer ?? undefined);
    pending.timer = null;
    return pending.writing ?? this.save(session);
  }

  /** The session is gone for good: its screen too. */
  forget(id: string): void {
    clearTimeout(this.pending.get(id)?.timer ?? undefined);
    this.pending.delete(id);
    rmSync(this.pathOf(id), { force: true });
  }

  /**
   * The saved screen of a session an earlier host ran, or null when there is none or it is not
   * one: a regular file of bounded size (`readRegularFileSync`: a FIFO does not block), JSON of
   * this shape.
   */
  read(id: string): SavedScreen | null {
    try {
      const saved = JSON.parse(readRegularFileSync(this.pathOf(id), { maxBytes: SCREEN_FILE_MAX_BYTES }).toString('utf8')) as SavedScreen;
      if (saved.session !== id || typeof saved.checkpoint !== 'string' || !Number.isFinite(saved.saved_at_ms) || !Number.isInteger(saved.content_rows)) throw new Error('not a saved screen');
      return saved;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      this.log(`session ${id}: its saved screen is not shown: ${error instanceof RefusedFileError ? error.why : (error as Error).message}`);
      return null;
    }
  }

  private entry(id: string): Pending {
    let pending = this.pending.get(id);
    if (!pending) {
      pending = { timer: null, dirtySince: null, changedAt: 0, writing: null };
      this.pending.set(id, pending);
    }
    return pending;
  }

  private save(session: Session): Promise<void> {
    const pending = this.entry(session.id);
    pending.timer = null;
    pending.dirtySince = null;
    const writing = this.write(session)
      .catch((error: Error) => {
        if (this.isCurrent(session)) this.log(`session ${session.id}: screen not saved: ${error.message}`);
      })
      .finally(() => {
        pending.writing = null;
        if (!this.isCurrent(session)) return;
        // Output that came during the write is saved in its turn.
        if (pending.dirtySince !== null && !pending.timer) this.arm(session, pending);
      });
    pending.writing = writing;
    return writing;
  }

  private async write(session: Session): Promise<void> {
    if (!this.isCurrent(session)) return;
    const checkpoint = await session.terminal.savedScreen(SCREEN_SAVE_SCROLLBACK_ROWS, SCREEN_SAVE_DEEP_BYTES);
    if (!this.isCurrent(session)) return;
    const saved: SavedScreen = {
      session: session.id,
      generation: session.generation,
      saved_at_ms: Date.now(),
      cols: checkpoint.cols,
      rows: checkpoint.rows,
      scrollback_rows: checkpoint.scrollback_rows,
      content_rows: checkpoint.content_rows,
      checkpoint: checkpoint.checkpoint,
    };
    const temp = join(this.dir, `.${randomBytes(6).toString('hex')}${TEMP_SUFFIX}`);
    try {
      await writeFile(temp, JSON.stringify(saved), { mode: 0o600 });
      // Removed meanwhile: its screen must not come back.
      if (!this.isCurrent(session)) return;
      await rename(temp, this.pathOf(session.id));
    } finally {
      await rm(temp, { force: true });
    }
  }
}

const LOSS_WORDS: Record<NonNullable<Manifest['lost']>['reason'], string> = {
  host_crash: 'before the host stopped',
  reboot: 'before the machine restarted',
};

/**
 * What a restarted lost session shows first: the saved screen, the modes its program had set
 * put back to a terminal's defaults, then below its last row that holds something a line
 * marking all above as history. The next process starts below that line.
 */
export function historyPreamble(saved: SavedScreen, lost: Manifest['lost'], cols: number): string {
  const when = new Date(saved.saved_at_ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  const stamp = `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())} ${pad(when.getHours())}:${pad(when.getMinutes())}`;
  const words = lost ? LOSS_WORDS[lost.reason] : 'before it was restarted';
  const label = `── above: what this pane showed ${words} (${stamp}) ──`;
  const clipped = [...label].slice(0, Math.max(1, cols - 1)).join('');
  const resetModes =
    '\x1b[?1049l' + // the normal screen, if a program had left the alternate one on
    '\x1b[!p' + // DECSTR: attributes, scroll region, origin, insert, cursor keys, cursor shown
    '\x1b[?9l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[?2004l\x1b[?66l\x1b[0 q\x1b[?25h\x1b[0m';
  // On the last row that holds something, then a line down (scrolling when that is the bottom one).
  const below = saved.content_rows > 0 ? `\x1b[${saved.content_rows};1H\r\n` : '\x1b[H';
  return `${saved.checkpoint}${resetModes}${below}\x1b[2m${clipped}\x1b[0m\r\n`;
}
